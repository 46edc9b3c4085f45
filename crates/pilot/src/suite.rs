//! The PILOT-Bench engine as the CLI and (later) the run seam use it: a loaded task library with
//! its search index and a cache of exact solvers, rendering of a task's prompts and flaw,
//! single episodes (built-in agent or replayed answers), the whole-suite tables, and the bench
//! figures.
//!
//! Logic is seeded and clock-free; only [`bench`] reads a monotonic clock, to measure.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::agents::{
    run_episode, Agent, AgentKind, Episode, FollowsPlanAgent, RandomAgent, ReferenceAgent,
    ReplayAgent,
};
use super::eval::Outcome;
use super::flaw::{assign, optimal_plan, FlawCategory};
use super::prompt::{render, render_paper, PromptType, Rendered};
use super::protocol::SearchIndex;
use super::registry::ToolId;
use super::sim::Simulator;
use super::solve::{Solution, Solver};
use super::task::{ResolvedTask, TaskLibrary, TaskType};
use super::{mix_seed, PilotError};
use crucible_core::PromptSet;

/// A loaded library ready to render prompts and run episodes.
#[derive(Debug)]
pub struct Engine {
    /// Registry and tasks.
    pub lib: TaskLibrary,
    /// Tool-search index.
    pub index: SearchIndex,
    solvers: Mutex<HashMap<Vec<ToolId>, Arc<Mutex<Solver>>>>,
    solutions: Mutex<HashMap<Vec<ToolId>, Arc<Solution>>>,
    prompt_set: PromptSet,
}

impl Engine {
    /// Wraps a library.
    pub fn new(lib: TaskLibrary) -> Self {
        let index = SearchIndex::new(&lib.registry);
        Self {
            lib,
            index,
            solvers: Mutex::default(),
            solutions: Mutex::default(),
            prompt_set: PromptSet::default(),
        }
    }

    /// Words the prompts of [`Engine::episode`], [`Engine::try_answers`] and [`Engine::suite`]
    /// in `set` (default: the paper's).
    pub fn with_prompt_set(mut self, set: PromptSet) -> Self {
        self.prompt_set = set;
        self
    }

    /// The prompt set episodes run under.
    pub fn prompt_set(&self) -> PromptSet {
        self.prompt_set
    }

    /// The shared solver of a task's required tool set.
    pub fn solver(&self, task: &ResolvedTask) -> Result<Arc<Mutex<Solver>>, PilotError> {
        let mut map = self.solvers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = map.get(&task.required) {
            return Ok(s.clone());
        }
        let s = Arc::new(Mutex::new(Solver::new(&self.lib.registry, &task.required)?));
        map.insert(task.required.clone(), s.clone());
        Ok(s)
    }

    /// The exact solution of a task (cached per required tool set).
    /// The exact optimal full-success probability (the success ceiling) of each of `tasks` the
    /// library knows; unknown or unsolvable ids are left out.
    pub fn ceilings<'t>(
        &self,
        tasks: impl IntoIterator<Item = &'t str>,
    ) -> std::collections::HashMap<String, f64> {
        let mut out = std::collections::HashMap::new();
        for t in tasks {
            let Ok(task) = self.lib.get(t).cloned() else {
                continue;
            };
            if let Ok(sol) = self.solution(&task) {
                out.insert(t.to_string(), sol.p_full_success);
            }
        }
        out
    }

    /// The exact optimal solution of `task` (solved once, then remembered).
    pub fn solution(&self, task: &ResolvedTask) -> Result<Arc<Solution>, PilotError> {
        if let Some(s) = self
            .solutions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&task.required)
        {
            return Ok(s.clone());
        }
        let solver = self.solver(task)?;
        let sol = Arc::new(
            solver
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .solve(&self.lib.registry),
        );
        tracing::debug!(target: "pilot::solve", task = %task.task.instance_id, p_full_success = sol.p_full_success, states = sol.states, "solved");
        self.solutions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(task.required.clone(), sol.clone());
        Ok(sol)
    }

    /// The four prompts in both sets, the plans and the flaw of a task. The flaw depends only
    /// on the library's seed and the task, never on the run seed.
    pub fn render(&self, task_id: &str) -> Result<Rendered, PilotError> {
        let pos = self.lib.position(task_id)?;
        let task = &self.lib.tasks[pos];
        let sol = self.solution(task)?;
        let optimal = optimal_plan(&self.lib.registry, task, &sol);
        let (flawed, flaw) = match assign(
            &self.lib.registry,
            task,
            &optimal,
            task.task.metadata.seed,
            pos as u64,
        ) {
            Some((p, f)) => (p, Some(f)),
            None => (optimal.clone(), None),
        };
        Ok(Rendered {
            prompts: render(task, &optimal, &flawed),
            paper: render_paper(task, &optimal, &flawed),
            flaw,
            optimal_plan: optimal,
            flawed_plan: flawed,
        })
    }

    /// Runs one episode of a task with an agent, on the (seed, task, episode) stream.
    pub fn episode(
        &self,
        task_id: &str,
        prompt_type: PromptType,
        agent: &mut dyn Agent,
        seed: u64,
        episode: u64,
    ) -> Result<Episode, PilotError> {
        let pos = self.lib.position(task_id)?;
        let rendered = self.render(task_id)?;
        let prompt = rendered.prompt(self.prompt_set, prompt_type);
        Ok(self.episode_with(pos, prompt, agent, seed, episode))
    }

    fn episode_with(
        &self,
        pos: usize,
        prompt: &str,
        agent: &mut dyn Agent,
        seed: u64,
        episode: u64,
    ) -> Episode {
        let task = &self.lib.tasks[pos];
        let mut sim = Simulator::new(&self.lib.registry, seed, pos as u64, episode);
        run_episode(
            &self.lib.registry,
            &self.index,
            task,
            prompt,
            agent,
            &mut sim,
        )
    }

    /// Builds a built-in agent for a task.
    pub fn agent(
        &self,
        kind: AgentKind,
        task_id: &str,
        seed: u64,
        episode: u64,
    ) -> Result<Box<dyn Agent + Send + '_>, PilotError> {
        let pos = self.lib.position(task_id)?;
        let task = &self.lib.tasks[pos];
        Ok(match kind {
            AgentKind::Reference => Box::new(ReferenceAgent::new(
                &self.lib.registry,
                task,
                self.solver(task)?,
            )),
            AgentKind::FollowsPlan => Box::new(FollowsPlanAgent::new(2)),
            AgentKind::NoRetry => Box::new(FollowsPlanAgent::new(0)),
            AgentKind::Random => Box::new(RandomAgent::new(
                &self.lib.registry,
                mix_seed(seed ^ 0xA9E7, (pos as u64) << 20 | episode),
            )),
        })
    }

    /// Replays an answer file's turns on a task.
    pub fn try_answers(
        &self,
        task_id: &str,
        prompt_type: PromptType,
        seed: u64,
        turns: Vec<String>,
    ) -> Result<Episode, PilotError> {
        let mut agent = ReplayAgent::new(turns);
        self.episode(task_id, prompt_type, &mut agent, seed, 0)
    }

    /// Runs every task under every prompt type with a built-in agent (episode 0 of each task's
    /// stream, so all prompt types and agents face the same faults) and tabulates outcomes.
    pub fn suite(&self, kind: AgentKind, seed: u64) -> Result<SuiteReport, PilotError> {
        let mut by_prompt: BTreeMap<PromptType, Tally> = BTreeMap::new();
        let mut by_flaw: BTreeMap<FlawCategory, (Tally, Tally)> = BTreeMap::new();
        let mut by_type: BTreeMap<(TaskType, PromptType), Tally> = BTreeMap::new();
        let mut ceiling = 0.0;
        for pos in 0..self.lib.tasks.len() {
            let id = self.lib.tasks[pos].task.instance_id.clone();
            let rendered = self.render(&id)?;
            ceiling += self.solution(&self.lib.tasks[pos])?.p_full_success;
            let mut outcomes = BTreeMap::new();
            for pt in PromptType::ALL {
                let mut agent = self.agent(kind, &id, seed, 0)?;
                let prompt = rendered.prompt(self.prompt_set, pt);
                let ep = self.episode_with(pos, prompt, agent.as_mut(), seed, 0);
                let o = ep.evaluation.outcome;
                outcomes.insert(pt, o);
                by_prompt.entry(pt).or_default().add(o);
                by_type
                    .entry((self.lib.tasks[pos].task.task_type, pt))
                    .or_default()
                    .add(o);
            }
            if let Some(f) = &rendered.flaw {
                let e = by_flaw.entry(f.category).or_default();
                e.0.add(outcomes[&PromptType::Optimal]);
                e.1.add(outcomes[&PromptType::Flawed]);
            }
        }
        let n = self.lib.tasks.len();
        Ok(SuiteReport {
            agent: kind.as_str().into(),
            seed,
            tasks: n,
            episodes: n * PromptType::ALL.len(),
            mean_ceiling: ceiling / n as f64,
            by_prompt: by_prompt
                .into_iter()
                .map(|(p, t)| t.row(p.as_str().into(), None))
                .collect(),
            by_flaw_category: by_flaw
                .into_iter()
                .map(|(c, (opt, fl))| FlawRow {
                    category: serde_json::to_value(c)
                        .expect("json")
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                    tasks: fl.n,
                    optimal_full: opt.pct(opt.full),
                    flawed_full: fl.pct(fl.full),
                    delta_pp: fl.pct(fl.full) - opt.pct(opt.full),
                })
                .collect(),
            by_task_type: by_type
                .into_iter()
                .map(|((ty, p), t)| {
                    t.row(
                        p.as_str().into(),
                        Some((ty.as_str().into(), ty.release_name().into())),
                    )
                })
                .collect(),
        })
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    n: usize,
    full: usize,
    partial: usize,
    failure: usize,
}

impl Tally {
    fn add(&mut self, o: Outcome) {
        self.n += 1;
        match o {
            Outcome::FullSuccess => self.full += 1,
            Outcome::PartialSuccess => self.partial += 1,
            Outcome::Failure => self.failure += 1,
        }
    }
    fn pct(&self, k: usize) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            (1000.0 * k as f64 / self.n as f64).round() / 10.0
        }
    }
    fn row(&self, prompt: String, ty: Option<(String, String)>) -> OutcomeRow {
        let (task_type, category) = ty.unzip();
        OutcomeRow {
            prompt,
            task_type,
            category,
            n: self.n,
            full: self.pct(self.full),
            partial: self.pct(self.partial),
            failure: self.pct(self.failure),
        }
    }
}

/// Full / partial / failure percentages for one slice.
#[derive(Debug, Clone, Serialize)]
pub struct OutcomeRow {
    /// Prompt type.
    pub prompt: String,
    /// Task type (paper name), for per-type rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// Task category (release name), for per-type rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Episodes.
    pub n: usize,
    /// Full success, %.
    pub full: f64,
    /// Partial success, %.
    pub partial: f64,
    /// Failure, %.
    pub failure: f64,
}

/// Optimal vs flawed full-success rate for the tasks carrying one flaw category.
#[derive(Debug, Clone, Serialize)]
pub struct FlawRow {
    /// Flaw category.
    pub category: String,
    /// Tasks whose flawed prompt carries it.
    pub tasks: usize,
    /// Full success with the optimal prompt, %.
    pub optimal_full: f64,
    /// Full success with the flawed prompt, %.
    pub flawed_full: f64,
    /// flawed − optimal, percentage points.
    pub delta_pp: f64,
}

/// The paper's tables in form, for one built-in agent.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteReport {
    /// Agent name.
    pub agent: String,
    /// Run seed.
    pub seed: u64,
    /// Tasks.
    pub tasks: usize,
    /// Episodes (tasks × 4 prompts).
    pub episodes: usize,
    /// Mean exact ceiling (optimal full-success probability) over tasks.
    pub mean_ceiling: f64,
    /// Table 2/3: per prompt type.
    pub by_prompt: Vec<OutcomeRow>,
    /// Figure 3a: per flaw category.
    pub by_flaw_category: Vec<FlawRow>,
    /// Figure 3b / Table 13: per task type and prompt type.
    pub by_task_type: Vec<OutcomeRow>,
}

/// Figures printed by `crucible bench pilot`.
#[derive(Debug, Clone, Serialize)]
pub struct BenchFigures {
    /// Simulated tool calls per second on one core.
    pub simulator_calls_per_sec: f64,
    /// Calls in the simulator measurement.
    pub simulator_calls: u64,
    /// Seconds to run all tasks × 4 prompts with the follows-plan agent (prompts rendered, solver
    /// cache cold at start).
    pub suite_seconds: f64,
    /// Episodes in the suite measurement.
    pub suite_episodes: usize,
    /// Median milliseconds of a cold exact solve (fresh solver) over sampled tasks.
    pub solve_median_ms: f64,
    /// 95th percentile of the same.
    pub solve_p95_ms: f64,
    /// Largest number of decision states of a sampled solve.
    pub solve_max_states: usize,
    /// Tasks sampled for the solve measurement.
    pub solve_tasks: usize,
    /// The suite's tables (follows-plan agent).
    pub suite: SuiteReport,
}

/// Measures the simulator, the whole suite and the exact solver.
pub fn bench(lib: TaskLibrary, seed: u64) -> Result<BenchFigures, PilotError> {
    use rand::{Rng, SeedableRng};
    use std::time::Instant;
    let reg = lib.registry.clone();
    // Simulator: episodes of 10 calls over each task's tools.
    let tools: Vec<Vec<ToolId>> = lib.tasks.iter().map(|t| t.required.clone()).collect();
    let mut pick = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let picks: Vec<u8> = (0..1024).map(|_| pick.random::<u8>()).collect();
    let calls_target = 5_000_000u64;
    let start = Instant::now();
    let mut calls = 0u64;
    let mut successes = 0u64;
    let mut e = 0u64;
    while calls < calls_target {
        let ts = &tools[(e as usize) % tools.len()];
        let mut sim = Simulator::new(&reg, seed, e % tools.len() as u64, e);
        for k in 0..10 {
            let t = ts[picks[(calls as usize + k) % picks.len()] as usize % ts.len()];
            successes += sim.call(t).success as u64;
        }
        calls += 10;
        e += 1;
    }
    let sim_secs = start.elapsed().as_secs_f64();
    std::hint::black_box(successes);
    // Exact solve, cold, on every 10th task.
    let mut times = Vec::new();
    let mut max_states = 0;
    for t in lib.tasks.iter().step_by(10) {
        let start = Instant::now();
        let sol = Solver::new(&reg, &t.required)?.solve(&reg);
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        max_states = max_states.max(sol.states);
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let p95 = times[(times.len() * 95 / 100).min(times.len() - 1)];
    // Whole suite.
    let engine = Engine::new(lib);
    let start = Instant::now();
    let suite = engine.suite(AgentKind::FollowsPlan, seed)?;
    let suite_secs = start.elapsed().as_secs_f64();
    Ok(BenchFigures {
        simulator_calls_per_sec: calls as f64 / sim_secs,
        simulator_calls: calls,
        suite_seconds: suite_secs,
        suite_episodes: suite.episodes,
        solve_median_ms: median,
        solve_p95_ms: p95,
        solve_max_states: max_states,
        solve_tasks: times.len(),
        suite,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Outcome;

    /// The optimal policy played through the protocol by the reference agent reaches full
    /// success with the exact DP probability: Monte-Carlo estimate within its 99.9 % interval.
    #[test]
    fn monte_carlo_of_reference_agent_matches_exact_value() {
        let engine = Engine::new(TaskLibrary::generate(1));
        let z = crate::sim::normal_quantile_upper(0.0005);
        // one task per type
        for ty in TaskType::ALL {
            let pos = engine
                .lib
                .tasks
                .iter()
                .position(|t| t.task.task_type == ty)
                .unwrap();
            let task = &engine.lib.tasks[pos];
            let id = task.task.instance_id.clone();
            let exact = engine.solution(task).unwrap().p_full_success;
            let rendered = engine.render(&id).unwrap();
            let n = 2000u64;
            let mut full = 0u64;
            for ep in 0..n {
                let mut agent = engine.agent(AgentKind::Reference, &id, 3, ep).unwrap();
                let e = engine.episode_with(
                    pos,
                    rendered.prompts.get(PromptType::Optimal),
                    agent.as_mut(),
                    3,
                    ep,
                );
                full += (e.evaluation.outcome == Outcome::FullSuccess) as u64;
            }
            let (lo, hi) = crate::sim::wilson(full, n, z);
            assert!(
                lo <= exact && exact <= hi,
                "{id}: exact {exact:.4}, MC {full}/{n} in [{lo:.4}, {hi:.4}]"
            );
        }
    }

    /// Built-in agents read plans and task lines back from the prompt; they must play the
    /// same episode whichever set worded it, and the reference agent keeps reaching full success.
    #[test]
    fn builtin_agents_play_the_same_episodes_under_both_prompt_sets() {
        let engine = Engine::new(TaskLibrary::generate(1));
        let mut reference_full = 0;
        for pos in (0..engine.lib.tasks.len()).step_by(211) {
            let id = engine.lib.tasks[pos].task.instance_id.clone();
            let rendered = engine.render(&id).unwrap();
            for pt in PromptType::ALL {
                for kind in AgentKind::ALL {
                    let play = |set| {
                        let mut agent = engine.agent(kind, &id, 5, 0).unwrap();
                        engine.episode_with(pos, rendered.prompt(set, pt), agent.as_mut(), 5, 0)
                    };
                    let (paper, assisted) = (play(PromptSet::Paper), play(PromptSet::Assisted));
                    assert_eq!(paper.calls, assisted.calls, "{id} {pt:?} {kind:?}");
                    assert_eq!(
                        paper.evaluation.outcome, assisted.evaluation.outcome,
                        "{id} {pt:?} {kind:?}"
                    );
                    if kind == AgentKind::Reference
                        && paper.evaluation.outcome == Outcome::FullSuccess
                    {
                        reference_full += 1;
                    }
                }
            }
        }
        assert!(reference_full > 40, "{reference_full}");
    }

    #[test]
    fn engine_episodes_use_the_engines_prompt_set() {
        let id = |e: &Engine| e.lib.tasks[7].task.instance_id.clone();
        for set in [PromptSet::Paper, PromptSet::Assisted] {
            let engine = Engine::new(TaskLibrary::generate(1)).with_prompt_set(set);
            let task = id(&engine);
            let mut a = engine.agent(AgentKind::FollowsPlan, &task, 1, 0).unwrap();
            let ep = engine
                .episode(&task, PromptType::Optimal, a.as_mut(), 1, 0)
                .unwrap();
            let want = engine.render(&task).unwrap();
            assert_eq!(ep.messages[0].text, want.prompt(set, PromptType::Optimal));
        }
        assert_eq!(
            Engine::new(TaskLibrary::generate(1)).prompt_set(),
            PromptSet::Paper
        );
    }

    #[test]
    fn follows_plan_executes_the_optimal_plan_and_reference_beats_random() {
        let engine = Engine::new(TaskLibrary::generate(1));
        let id = engine.lib.tasks[0].task.instance_id.clone();
        let plan = engine.render(&id).unwrap().optimal_plan.tools();
        let mut a = engine.agent(AgentKind::FollowsPlan, &id, 1, 0).unwrap();
        let ep = engine
            .episode(&id, PromptType::Optimal, a.as_mut(), 1, 0)
            .unwrap();
        // The first calls follow the plan in order (retries repeat a step, never skip ahead).
        let mut k = 0;
        for c in &ep.calls {
            if c.tool != plan[k] {
                k += 1;
            }
            assert_eq!(c.tool, plan[k]);
        }
        let score = |kind| {
            (0..200u64)
                .filter(|&e| {
                    let mut a = engine.agent(kind, &id, 2, e).unwrap();
                    engine
                        .episode(&id, PromptType::Optimal, a.as_mut(), 2, e)
                        .unwrap()
                        .evaluation
                        .outcome
                        == Outcome::FullSuccess
                })
                .count()
        };
        assert!(score(AgentKind::Reference) > score(AgentKind::Random));
    }

    #[test]
    fn same_seed_same_episode_and_replay_reproduces_it() {
        let engine = Engine::new(TaskLibrary::generate(1));
        let id = engine.lib.tasks[42].task.instance_id.clone();
        let run = || {
            let mut a = engine.agent(AgentKind::FollowsPlan, &id, 9, 0).unwrap();
            engine
                .episode(&id, PromptType::Flawed, a.as_mut(), 9, 0)
                .unwrap()
        };
        let (a, b) = (run(), run());
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
        let turns: Vec<String> = a
            .messages
            .iter()
            .filter(|m| m.role == crate::agents::Role::Assistant)
            .map(|m| m.text.clone())
            .collect();
        let c = engine
            .try_answers(&id, PromptType::Flawed, 9, turns)
            .unwrap();
        assert_eq!(c.calls, a.calls);
        assert_eq!(c.evaluation, a.evaluation);
    }

    #[test]
    fn every_flaw_method_occurs_in_the_default_library() {
        let engine = Engine::new(TaskLibrary::generate(crate::DEFAULT_SEED));
        let mut seen = std::collections::BTreeMap::new();
        for t in engine.lib.tasks.iter().step_by(3) {
            let r = engine.render(&t.task.instance_id).unwrap();
            let f = r.flaw.expect("every task has a flaw");
            // every task is solvable: positive ceiling, and the workflow covers the required tools
            let sol = engine.solution(t).unwrap();
            assert!(
                sol.p_full_success > 0.1,
                "{}: ceiling {}",
                t.task.instance_id,
                sol.p_full_success
            );
            assert!(t
                .task
                .required_tools
                .iter()
                .all(|n| sol.workflow.iter().any(|w| &w.tool == n)));
            assert_eq!(f.edit.after, r.flawed_plan.tools());
            *seen.entry(f.method).or_insert(0usize) += 1;
        }
        for m in crate::flaw::FlawMethod::ALL {
            assert!(
                seen.get(&m).copied().unwrap_or(0) >= 20,
                "{m:?} occurs {:?} times",
                seen.get(&m)
            );
        }
    }

    #[test]
    fn loop_and_consecutive_failures_terminate_as_failure() {
        let engine = Engine::new(TaskLibrary::generate(1));
        let id = engine.lib.tasks[0].task.instance_id.clone();
        let tool = engine.lib.tasks[0].task.required_tools[0].clone();
        let e = engine
            .try_answers(
                &id,
                PromptType::Baseline,
                1,
                vec![format!("<tool_call>{tool}</tool_call>"); 6],
            )
            .unwrap();
        assert_eq!(e.evaluation.termination, crate::eval::Termination::Loop);
        assert_eq!(e.evaluation.outcome, Outcome::Failure);
        assert_eq!(e.calls.len(), 3);
        let e = engine
            .try_answers(
                &id,
                PromptType::Baseline,
                1,
                [
                    "<tool_call>nope_a</tool_call>",
                    "<tool_call>nope_b</tool_call>",
                ]
                .iter()
                .cycle()
                .take(8)
                .map(|s| s.to_string())
                .collect(),
            )
            .unwrap();
        assert_eq!(
            e.evaluation.termination,
            crate::eval::Termination::ConsecutiveFailures
        );
        assert_eq!(e.calls.len(), 5);
        let e = engine
            .try_answers(&id, PromptType::Baseline, 1, vec!["hello".into()])
            .unwrap();
        assert!(e.messages.last().unwrap().text.contains("Format reminder"));
    }
}
