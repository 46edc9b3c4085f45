//! The exact optimal policy for a PILOT-Bench task: dynamic programming over (tool statuses,
//! the outcomes of the last three calls, consecutive failures, last call and its streak, turns
//! left) under the simulator's law and the protocol's termination rules. Full success needs the
//! required tools to first succeed in the task's order, so the policy never lets a required tool
//! succeed before the ones listed ahead of it. It yields the optimal next action for
//! any state, the workflow the optimal prompt shows, and the exact maximum probability of
//! full_success within the turn budget (the task's ceiling).
//!
//! The solver knows the law and the rules; it does not run the simulator or render text.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::Serialize;

use super::protocol::{LOOP_LIMIT, MAX_CONSECUTIVE_FAILURES, MAX_TURNS};
use super::registry::{Registry, ToolId};
use super::sim::{history_count, push_window, success_probability, HISTORY_WINDOW};
use super::PilotError;

/// A tiny multiplicative hasher for the packed u64 state keys.
#[derive(Debug, Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(5) ^ *b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        self.0 ^= self.0 >> 32;
    }
}

const NONE: u8 = 31;
/// The action "call a tool outside the relevant set that has no prerequisites": it only moves
/// the history window (see [`Solver::fillers`]).
pub const FILLER: u8 = 16;
/// Flag bit in a memoised action: call the tool and give the completion signal in the same turn.
const COMPLETE: u8 = 0x40;

/// The optimal action in a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action {
    /// Local index of the tool to call, or [`FILLER`].
    pub tool: u8,
    /// Also give the completion signal in the same turn (only worth it on the last turn, when
    /// this call is the last pending one).
    pub complete: bool,
}

fn decode(a: u8) -> Option<Action> {
    (a != NONE).then_some(Action {
        tool: a & !COMPLETE,
        complete: a & COMPLETE != 0,
    })
}

/// A decision state, in the solver's local tool indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    /// Tools that succeeded at least once (local bitmask).
    pub succ: u32,
    /// Succeeded tools whose latest call failed (local bitmask): they count towards Nf.
    pub stale: u32,
    /// Outcomes of the last three calls, most recent in bit 0 (set: failed).
    pub window: u8,
    /// Calls made so far, capped at three (Nh only counts once three calls exist).
    pub calls: u32,
    /// Consecutive failed calls just before now.
    pub consec: u32,
    /// Last tool called (local index), if it is relevant.
    pub last: Option<u8>,
    /// How many consecutive calls the last tool has had.
    pub streak: u32,
    /// Assistant turns left, this one included.
    pub turns_left: u32,
}

impl State {
    /// Nh of the next call.
    pub fn nh(&self) -> u32 {
        history_count(self.window, self.calls)
    }

    /// The state after calling `tool` (`None`: a filler) with the given outcome.
    fn after(&self, tool: Option<u8>, success: bool) -> State {
        let (last, streak) = match tool {
            Some(a) if self.last == Some(a) => (Some(a), self.streak + 1),
            Some(a) => (Some(a), 1),
            None => (None, 0),
        };
        let bit = tool.map_or(0, |a| 1u32 << a);
        State {
            succ: if success { self.succ | bit } else { self.succ },
            stale: if success {
                self.stale & !bit
            } else {
                self.stale | (bit & self.succ)
            },
            window: push_window(self.window, !success),
            calls: (self.calls + 1).min(HISTORY_WINDOW),
            consec: if success { 0 } else { self.consec + 1 },
            last,
            streak,
            turns_left: self.turns_left - 1,
        }
    }
}

/// One step of the optimal workflow (the path the policy takes while every call succeeds).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkflowStep {
    /// Tool to execute.
    pub tool: String,
    /// Whether the task requires it (false: a prerequisite called to raise later odds).
    pub required: bool,
    /// Success probability of this call under the law at this point.
    pub p_success: f64,
    /// What the optimal policy does next if this call fails (a tool name), if anything helps.
    pub on_failure: Option<String>,
    /// Probability of full success from this point on, before the call.
    pub value: f64,
    /// Give the completion signal in the same turn as this call (last turn only).
    pub with_completion: bool,
}

/// The solver's answer for a task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Solution {
    /// The optimal workflow.
    pub workflow: Vec<WorkflowStep>,
    /// Exact maximum probability of full_success within the turn budget.
    pub p_full_success: f64,
    /// Decision states evaluated.
    pub states: usize,
}

/// The exact solver for one task.
#[derive(Debug, Clone)]
pub struct Solver {
    tools: Vec<ToolId>,
    fillers: Vec<ToolId>,
    required: u32,
    deps: Vec<u32>,
    req_before: Vec<u32>,
    memo: HashMap<u64, (f64, u8), BuildHasherDefault<KeyHasher>>,
}

impl Solver {
    /// Prepares the solver for a task's required tools (in the task's order, which is the order
    /// sequence correctness demands). The relevant set is the required tools plus all their
    /// transitive prerequisites (at most 16 tools).
    pub fn new(reg: &Registry, required: &[ToolId]) -> Result<Self, PilotError> {
        let mut tools: Vec<ToolId> = Vec::new();
        fn add(reg: &Registry, t: ToolId, tools: &mut Vec<ToolId>) {
            if tools.contains(&t) {
                return;
            }
            let mut deps: Vec<ToolId> = reg.dep_ids(t).collect();
            deps.sort_by_key(|d| reg.tool(*d).dependency_metadata.execution_order);
            for d in deps {
                add(reg, d, tools);
            }
            tools.push(t);
        }
        for &r in required {
            add(reg, r, &mut tools);
        }
        if tools.len() > 16 {
            return Err(PilotError::TooManyTools(tools.len()));
        }
        let local = |g: u32| -> u32 {
            tools
                .iter()
                .enumerate()
                .filter(|(_, t)| g & (1 << t.0) != 0)
                .fold(0, |m, (i, _)| m | (1 << i))
        };
        let required_mask = local(required.iter().fold(0, |m, t| m | (1 << t.0)));
        let deps: Vec<u32> = tools.iter().map(|&t| local(reg.deps_mask(t))).collect();
        let req_before: Vec<u32> = tools
            .iter()
            .map(|t| match required.iter().position(|r| r == t) {
                Some(k) => local(required[..k].iter().fold(0, |m, r| m | (1 << r.0))),
                None => 0,
            })
            .collect();
        let fillers: Vec<ToolId> = (0..reg.len() as u8)
            .map(ToolId)
            .filter(|t| reg.deps_mask(*t) == 0 && !tools.contains(t))
            .take(2)
            .collect();
        Ok(Self {
            tools,
            fillers: if fillers.len() == 2 {
                fillers
            } else {
                Vec::new()
            },
            required: required_mask,
            deps,
            req_before,
            memo: HashMap::default(),
        })
    }

    /// The relevant tools, in the solver's local order.
    pub fn tools(&self) -> &[ToolId] {
        &self.tools
    }

    /// Two tools outside the relevant set without prerequisites; a [`FILLER`] action calls
    /// whichever of them was not called last (empty when the registry has fewer than two).
    pub fn fillers(&self) -> &[ToolId] {
        &self.fillers
    }

    /// Converts a registry-wide bitmask to a local one (tools outside the relevant set dropped).
    pub fn to_local(&self, global: u32) -> u32 {
        self.tools
            .iter()
            .enumerate()
            .filter(|(_, t)| global & (1 << t.0) != 0)
            .fold(0, |m, (i, _)| m | (1 << i))
    }

    /// Local index of a tool, if relevant.
    pub fn local_index(&self, t: ToolId) -> Option<u8> {
        self.tools.iter().position(|&x| x == t).map(|i| i as u8)
    }

    /// The initial state with a full turn budget.
    pub fn initial(&self) -> State {
        State {
            succ: 0,
            stale: 0,
            window: 0,
            calls: 0,
            consec: 0,
            last: None,
            streak: 0,
            turns_left: MAX_TURNS,
        }
    }

    fn key(s: &State) -> u64 {
        (s.succ as u64)
            | (s.stale as u64) << 16
            | ((s.window & 0b111) as u64) << 32
            | (s.calls.min(3) as u64) << 35
            | (s.consec as u64) << 37
            | (s.last.unwrap_or(NONE) as u64) << 41
            | (s.streak as u64) << 46
            | (s.turns_left as u64) << 50
    }

    /// The tools worth calling in `s`: pending required tools plus, transitively, the
    /// unsucceeded prerequisites of tools worth calling. Re-running a succeeded tool is never
    /// better than a filler call (same or lower odds, and a failure would make it stale).
    fn callable(&self, succ: u32) -> u32 {
        let mut c = self.required & !succ;
        loop {
            let mut deps = 0;
            for i in 0..self.tools.len() {
                if c & (1 << i) != 0 {
                    deps |= self.deps[i];
                }
            }
            let next = c | (deps & !succ);
            if next == c {
                return c;
            }
            c = next;
        }
    }

    /// Drops state facts that cannot influence the future: statuses of tools that neither are
    /// required nor feed a callable tool, and the last-call streak once that tool cannot be
    /// called again. States equal after this have equal values.
    fn canonical(&self, s: State) -> (State, u32) {
        let callable = self.callable(s.succ);
        let mut feeds = 0;
        for i in 0..self.tools.len() {
            if callable & (1 << i) != 0 {
                feeds |= self.deps[i];
            }
        }
        let succ = s.succ & (self.required | feeds);
        let stale = s.stale & succ & feeds;
        let (last, streak) = match s.last {
            Some(a) if callable & (1 << a) != 0 => (Some(a), s.streak),
            _ => (None, 0),
        };
        (
            State {
                succ,
                stale,
                calls: s.calls.min(HISTORY_WINDOW),
                window: s.window & 0b111,
                last,
                streak,
                ..s
            },
            callable,
        )
    }

    /// Probability of full success from `s` under optimal play, and the optimal action.
    pub fn value(&mut self, s: State) -> (f64, Option<Action>) {
        if s.succ & self.required == self.required {
            return (if s.turns_left >= 1 { 1.0 } else { 0.0 }, None);
        }
        // Each pending required tool needs a call (the last one may carry the completion signal).
        let pending = self.required & !s.succ;
        if pending.count_ones() > s.turns_left {
            return (0.0, None);
        }
        let (s, callable) = self.canonical(s);
        let key = Self::key(&s);
        if let Some(&(v, a)) = self.memo.get(&key) {
            return (v, decode(a));
        }
        let mut best = 0.0f64;
        let mut best_a = NONE;
        for a in 0..self.tools.len() as u8 {
            let bit = 1u32 << a;
            if callable & bit == 0 {
                continue;
            }
            let is_required = self.required & bit != 0;
            let streak = if s.last == Some(a) { s.streak + 1 } else { 1 };
            if streak >= LOOP_LIMIT {
                continue; // the protocol ends the episode as a loop
            }
            let p = self.p_call(&s, a);
            let vs = if is_required && self.req_before[a as usize] & !s.succ != 0 {
                0.0 // success now would break the task's order
            } else {
                self.value(s.after(Some(a), true)).0
            };
            let vf = if s.consec + 1 >= MAX_CONSECUTIVE_FAILURES {
                0.0
            } else {
                self.value(s.after(Some(a), false)).0
            };
            let v = p * vs + (1.0 - p) * vf;
            if v > best + 1e-12 {
                best = v;
                best_a = a;
            }
            // Calling the last pending tool and declaring completion in the same turn wins
            // exactly p; it beats the separate completion turn only when no turn would be left.
            if pending == bit && self.req_before[a as usize] & !s.succ == 0 && p > best + 1e-12 {
                best = p;
                best_a = a | COMPLETE;
            }
        }
        // A filler call only moves the history window (and spends a turn); it can pay when
        // recent failures weigh on the calls still to come.
        if !self.fillers.is_empty() && pending.count_ones() < s.turns_left {
            let p = success_probability(0, 0, s.nh());
            let vs = self.value(s.after(None, true)).0;
            let vf = if s.consec + 1 >= MAX_CONSECUTIVE_FAILURES {
                0.0
            } else {
                self.value(s.after(None, false)).0
            };
            let v = p * vs + (1.0 - p) * vf;
            if v > best + 1e-12 {
                best = v;
                best_a = FILLER;
            }
        }
        self.memo.insert(key, (best, best_a));
        (best, decode(best_a))
    }

    /// Success probability of calling local tool `a` (or [`FILLER`]) in state `s`.
    pub fn p_call(&self, s: &State, a: u8) -> f64 {
        if a == FILLER {
            return success_probability(0, 0, s.nh());
        }
        let d = self.deps[a as usize];
        success_probability(
            (d & !s.succ).count_ones(),
            (d & s.succ & s.stale).count_ones(),
            s.nh(),
        )
    }

    /// The registry tool an action calls: a relevant tool, or for [`FILLER`] the filler that
    /// was not called last.
    pub fn action_tool(&self, a: u8, last_called: Option<ToolId>) -> ToolId {
        if a == FILLER {
            if last_called == Some(self.fillers[0]) {
                self.fillers[1]
            } else {
                self.fillers[0]
            }
        } else {
            self.tools[a as usize]
        }
    }

    /// Solves from the initial state and extracts the optimal workflow.
    pub fn solve(&mut self, reg: &Registry) -> Solution {
        let mut s = self.initial();
        let (p_full, _) = self.value(s);
        let mut workflow = Vec::new();
        let mut last_called = None;
        while let (v, Some(Action { tool: a, complete })) = self.value(s) {
            let local = (a != FILLER).then_some(a);
            let p = self.p_call(&s, a);
            let tool = self.action_tool(a, last_called);
            let fail = s.after(local, false);
            let on_failure = if fail.consec < MAX_CONSECUTIVE_FAILURES {
                self.value(fail)
                    .1
                    .map(|b| reg.tool(self.action_tool(b.tool, Some(tool))).name.clone())
            } else {
                None
            };
            workflow.push(WorkflowStep {
                tool: reg.tool(tool).name.clone(),
                required: local.is_some_and(|a| self.required & (1 << a) != 0),
                p_success: p,
                on_failure,
                value: v,
                with_completion: complete,
            });
            if complete {
                break;
            }
            last_called = Some(tool);
            s = s.after(local, true);
        }
        Solution {
            workflow,
            p_full_success: p_full,
            states: self.memo.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(reg: &Registry, names: &[&str]) -> Vec<ToolId> {
        names.iter().map(|n| reg.id(n).unwrap()).collect()
    }

    #[test]
    fn single_tool_without_deps_is_at_least_three_free_tries() {
        // One tool, no deps: Nh only counts once three calls exist, so the first three tries
        // each succeed with 0.8; fillers may buy further tries past the loop limit.
        let reg = Registry::generate();
        let mut s = Solver::new(&reg, &ids(&reg, &["file_operations_reader"])).unwrap();
        let sol = s.solve(&reg);
        let three = 1.0 - 0.2f64.powi(3);
        assert!(
            sol.p_full_success >= three - 1e-12 && sol.p_full_success < 1.0,
            "{}",
            sol.p_full_success
        );
        assert_eq!(sol.workflow.len(), 1);
        assert!((sol.workflow[0].p_success - 0.8).abs() < 1e-12);
    }

    #[test]
    fn two_independent_tools_closed_form() {
        // reader and fetcher (no deps): with many turns the value is
        // P(both succeed within the loop limit each); checked by enumerating failure counts.
        let reg = Registry::generate();
        let mut s = Solver::new(
            &reg,
            &ids(&reg, &["file_operations_reader", "network_fetcher"]),
        )
        .unwrap();
        let v = s.solve(&reg).p_full_success;
        // Lower bound: the "call each until success, at most 3 tries" policy.
        let mut lb = 0.0;
        for f1 in 0..3 {
            for f2 in 0..3 {
                let mut p = 1.0;
                let mut h = 0;
                for _ in 0..f1 {
                    p *= 1.0 - 0.8 * 0.9f64.powi(h);
                    h += 1;
                }
                p *= 0.8 * 0.9f64.powi(h);
                for _ in 0..f2 {
                    p *= 1.0 - 0.8 * 0.9f64.powi(h);
                    h += 1;
                }
                p *= 0.8 * 0.9f64.powi(h);
                lb += p;
            }
        }
        assert!(v >= lb - 1e-12 && v <= 1.0, "{v} vs {lb}");
    }

    #[test]
    fn calling_an_unrequired_prerequisite_is_chosen_when_it_pays() {
        // transformer needs parser and reader; with only transformer required the optimal
        // policy still calls its prerequisites first (0.8 vs 0.2 per try).
        let reg = Registry::generate();
        let mut s = Solver::new(&reg, &ids(&reg, &["data_processing_transformer"])).unwrap();
        let sol = s.solve(&reg);
        let tools: Vec<&str> = sol.workflow.iter().map(|w| w.tool.as_str()).collect();
        assert_eq!(
            tools,
            [
                "file_operations_reader",
                "data_processing_parser",
                "data_processing_transformer"
            ]
        );
        assert!(!sol.workflow[0].required && sol.workflow[2].required);
        assert!(sol.p_full_success > 0.6 && sol.p_full_success < 1.0);
    }

    #[test]
    fn value_is_monotone_in_turns() {
        let reg = Registry::generate();
        let req = ids(
            &reg,
            &[
                "file_operations_reader",
                "data_processing_parser",
                "data_processing_transformer",
                "data_processing_aggregator",
                "file_operations_writer",
            ],
        );
        let mut s = Solver::new(&reg, &req).unwrap();
        let mut prev = 0.0;
        for t in 0..=10 {
            let v = s
                .value(State {
                    turns_left: t,
                    ..s.initial()
                })
                .0;
            assert!(v >= prev - 1e-15);
            prev = v;
        }
        assert_eq!(
            s.value(State {
                turns_left: 4,
                ..s.initial()
            })
            .0,
            0.0,
            "5 calls need 5 turns"
        );
        assert!(
            s.value(State {
                turns_left: 5,
                ..s.initial()
            })
            .0 > 0.0
        );
    }

    #[test]
    fn last_turn_combines_the_last_call_with_the_completion_signal() {
        let reg = Registry::generate();
        let req = ids(&reg, &["file_operations_reader", "network_fetcher"]);
        let mut s = Solver::new(&reg, &req).unwrap();
        // reader done, fetcher pending, two failures so far, one turn left
        let st = State {
            succ: 1,
            stale: 0,
            window: 0b110,
            calls: 3,
            consec: 0,
            last: Some(0),
            streak: 1,
            turns_left: 1,
        };
        let (v, a) = s.value(st);
        assert!((v - 0.8 * 0.81).abs() < 1e-12, "{v}");
        assert_eq!(
            a,
            Some(Action {
                tool: 1,
                complete: true
            })
        );
        // with two turns left: call, then complete on success or retry-and-complete on failure
        let (v2, a2) = s.value(State {
            turns_left: 2,
            ..st
        });
        // a failure pushes the oldest failure out of the window: Nh stays 2
        let p = 0.8 * 0.81;
        assert!((v2 - (p + (1.0 - p) * p)).abs() < 1e-12, "{v2}");
        assert_eq!(
            a2,
            Some(Action {
                tool: 1,
                complete: false
            })
        );
    }
}
