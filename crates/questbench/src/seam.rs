//! QuestBench atomic and composite tasks behind the run seam ([`crucible_core::Benchmark`]).
//! Built-in agents: `reference` answers with the task's reference solution (composites: its
//! scripted rounds); `known-wrong` answers with one of its known-wrong solutions (chosen by the
//! seed); `faulty-<rate>` (e.g. `faulty-0.2`) answers like `reference` but, with probability
//! `rate` per answer (seeded), makes a characteristic mistake instead: a known-wrong module on
//! atomic tasks; on composites a prose reply without code, a malformed control JSON or a
//! redundant balance query (each costs a round, then the script resumes).

use std::collections::VecDeque;
use std::sync::Arc;

use super::details::{AtomicDetails, CompositeDetails, Details, Options};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::atomic::{as_answer, Harness};
use super::composite;
use super::instance::Instance;
use super::prompt::{Library, NlDifficulty, Prompting};
use super::task::{Kind, Task};
use crucible_chain::pool::{ChainWorkers, Lease, NodePool};
use crucible_chain::{ChainError, Manifest};
use crucible_core::{
    serde_name, Agent, AgentError, AgentRequest, AgentTurn, BenchError, Benchmark, BoxFuture,
    Event, FixedAgent, InstanceMeta, Message, PaperScore, PromptSet, Role, SampleRecord,
    ScriptedAgent,
};

/// Booted QuestBench harnesses, lent to one sample at a time (see [`crucible_chain::pool`]).
pub type HarnessPool = NodePool<Harness, super::QuestError>;

/// QuestBench over a loaded catalogue and its chains: one booted harness, or a pool of them with
/// chain workers shared with the run's other chain benchmarks.
#[derive(Debug)]
pub struct QuestBench {
    tasks: Vec<Task>,
    manifest: Manifest,
    nodes: Arc<HarnessPool>,
    workers: Option<Arc<ChainWorkers>>,
    prompting: Prompting,
    nl_difficulty: NlDifficulty,
}

impl QuestBench {
    /// A benchmark over `tasks` (atomic and composite) on one harness.
    pub fn new(tasks: Vec<Task>, harness: Harness) -> Self {
        let manifest = harness.manifest().clone();
        Self::pooled(tasks, manifest, Arc::new(NodePool::single(harness)), None)
    }

    /// A benchmark over `tasks` on `nodes` (harnesses of the universe `manifest` describes):
    /// an atomic sample leases a harness only to execute and check the model's answer, a
    /// composite episode for the episode; chain work takes one of `workers` (when given).
    pub fn pooled(
        tasks: Vec<Task>,
        manifest: Manifest,
        nodes: Arc<HarnessPool>,
        workers: Option<Arc<ChainWorkers>>,
    ) -> Self {
        Self {
            tasks,
            manifest,
            nodes,
            workers,
            prompting: Prompting::default(),
            nl_difficulty: NlDifficulty::default(),
        }
    }

    /// A harness for one sample.
    async fn lease(&self) -> Result<Lease<'_, Harness, super::QuestError>, super::QuestError> {
        self.nodes
            .lease(|| {
                super::QuestError::from(ChainError::NodeExited {
                    status: "discarded after an infrastructure failure".into(),
                    log: String::new(),
                })
            })
            .await
    }

    /// Asks in `set`'s wording (default: the paper's); every sample records it.
    pub fn with_prompt_set(mut self, set: PromptSet) -> Self {
        self.prompting.set = set;
        self
    }

    /// Tells the model to write its modules with `library` (default: ethers, the paper's; the
    /// reference runner's `--library`). Both libraries resolve in the sandbox; a viem run fails
    /// as infrastructure when viem is not vendored. Recorded in every sample's `details`.
    pub fn with_library(mut self, library: Library) -> Self {
        self.prompting.library = library;
        self
    }

    /// Adds the task description to the prompt as context (the reference runner's
    /// `--naive-mode`; default off, as in the paper). Recorded in every sample's `details`.
    pub fn with_naive(mut self, naive: bool) -> Self {
        self.prompting.naive = naive;
        self
    }

    /// Chooses templates by clarity label (the reference runner's `--nl-difficulty`; default
    /// `random`, the paper's protocol). A task without a template so labelled falls back to any
    /// template, as the runner does; `details.template_label` says what was used.
    pub fn with_nl_difficulty(mut self, nl: NlDifficulty) -> Self {
        self.nl_difficulty = nl;
        self
    }

    /// The prompt wording in force.
    pub fn prompting(&self) -> Prompting {
        self.prompting
    }

    /// The options as recorded in `details`.
    fn options(&self, inst: &super::instance::Instance) -> Options {
        Options {
            prompt_set: self.prompting.set.as_str().into(),
            library: self.prompting.library.as_str().into(),
            naive: self.prompting.naive,
            nl_difficulty: self.nl_difficulty.as_str().into(),
            template_label: inst.template_label,
        }
    }

    fn task(&self, id: &str) -> Result<&Task, BenchError> {
        self.tasks
            .iter()
            .find(|t| t.id() == id)
            .ok_or_else(|| BenchError::UnknownInstance(id.to_string()))
    }
}

/// A task's grouping data (what the task filters and the report group by). A composite's
/// category is its workflow pattern (every composite shares the category `composite_problems`,
/// which its kind already says); the subcategory if it names none.
pub fn task_meta(task: &Task) -> InstanceMeta {
    let t = &task.spec;
    let category = match &t.composite {
        Some(c) if !c.pattern.is_empty() => c.pattern.clone(),
        Some(_) => t.subcategory.clone(),
        None => t.category.clone(),
    };
    InstanceMeta {
        task: task.id().to_string(),
        prompt_type: String::new(),
        kind: serde_name(&t.kind),
        category,
        subcategory: serde_name(&t.subcategory),
        difficulty: serde_name(&t.difficulty),
    }
}

/// Gives the harness back, or drops it when the sample failed as infrastructure (its chain may be
/// in any state; the pool boots a fresh one and the scheduler retries the sample).
fn settle<T>(
    h: Lease<'_, Harness, super::QuestError>,
    r: Result<T, super::QuestError>,
) -> Result<T, super::QuestError> {
    if let Err(e) = &r {
        if e.is_infrastructure() {
            h.discard();
        }
    }
    r
}

/// A 0–100 paper score on the seam's [0, 1] scale, with its pass flag (≥ 60, as the reference
/// runner decides a pass).
fn paper_score(score_100: f64) -> PaperScore {
    PaperScore {
        score: score_100 / 100.0,
        passed: score_100 >= f64::from(super::atomic::PASS_THRESHOLD),
    }
}

/// The built-in agents of EVM-QuestBench.
pub const AGENTS: [&str; 4] = ["reference", "known-wrong", "faulty-0.1", "faulty-0.3"];

/// The built-in exploit agents ([`super::exploits`]), by agent name.
pub const EXPLOIT_AGENTS: [&str; 5] = [
    "exploit-cheat-rpc",
    "exploit-unrelated-tx",
    "exploit-false-error",
    "exploit-echo-expected",
    "exploit-sandbox-probe",
];

/// The fault rate of a `faulty-<rate>` agent name.
pub fn fault_rate(name: &str) -> Option<f64> {
    let r: f64 = name.strip_prefix("faulty-")?.parse().ok()?;
    (0.0..=1.0).contains(&r).then_some(r)
}

/// A seeded RNG for one (task, seed) pair.
fn rng_for(task: &str, seed: u64) -> ChaCha8Rng {
    let mut material = b"crucible/quest/faulty/".to_vec();
    material.extend_from_slice(task.as_bytes());
    material.extend_from_slice(&seed.to_le_bytes());
    ChaCha8Rng::from_seed(alloy::primitives::keccak256(&material).0)
}

/// The reference agent with seeded faults (see the module doc).
#[derive(Debug)]
pub struct FaultyAgent {
    name: String,
    rate: f64,
    rng: ChaCha8Rng,
    /// Composite: the scripted replies still to give (planning first).
    turns: VecDeque<String>,
    /// Atomic: the reference answer and the known-wrong answers.
    atomic: Option<(String, Vec<String>)>,
    planned: bool,
}

const COMPOSITE_FAULTS: [&str; 3] = [
    "I will now perform the next step of the plan as described.",
    "```json\n{\"action\": \"query\", \"query\": \"native_balance\"\n```",
    "```json\n{\"action\": \"query\", \"query\": \"native_balance\"}\n```",
];

impl Agent for FaultyAgent {
    fn name(&self) -> &str {
        &self.name
    }
    fn respond<'a>(
        &'a mut self,
        _: AgentRequest<'a>,
    ) -> BoxFuture<'a, Result<AgentTurn, AgentError>> {
        let fault = self.rng.random::<f64>() < self.rate;
        let out = if let Some((reference, wrong)) = &self.atomic {
            if fault && !wrong.is_empty() {
                Ok(wrong[self.rng.random_range(0..wrong.len())].clone())
            } else {
                Ok(reference.clone())
            }
        } else if fault && self.planned {
            Ok(COMPOSITE_FAULTS[self.rng.random_range(0..COMPOSITE_FAULTS.len())].to_string())
        } else {
            self.planned = true;
            self.turns.pop_front().ok_or(AgentError::Exhausted)
        }
        .map(AgentTurn::text);
        Box::pin(async move { out })
    }
}

impl Benchmark for QuestBench {
    fn name(&self) -> &'static str {
        "questbench"
    }

    fn instances(&self) -> Vec<String> {
        self.tasks.iter().map(|t| t.id().to_string()).collect()
    }

    fn meta(&self, instance: &str) -> Result<InstanceMeta, BenchError> {
        Ok(task_meta(self.task(instance)?))
    }

    fn builtin_agents(&self) -> Vec<&'static str> {
        AGENTS.iter().chain(&EXPLOIT_AGENTS).copied().collect()
    }

    fn builtin_agent(
        &self,
        name: &str,
        instance: &str,
        seed: u64,
    ) -> Result<Box<dyn Agent + '_>, BenchError> {
        let task = self.task(instance)?;
        let bench = |e: super::QuestError| e.into_bench(task);
        let inst = Instance::with_difficulty(task, seed, &self.manifest, self.nl_difficulty)
            .map_err(bench)?;
        let wrong = &task.spec.solutions.wrong;
        let composite = task.spec.kind == Kind::Composite;
        let answer = |rel: &str| -> Result<Vec<String>, BenchError> {
            if composite {
                composite::render_script(task, rel, &inst).map_err(bench)
            } else {
                let code = task.read_relative(rel).map_err(bench)?;
                Ok(vec![as_answer(&inst.render_solution(&code))])
            }
        };
        let scripted = |agent: &str, mut turns: Vec<String>| -> Box<dyn Agent + '_> {
            if composite {
                Box::new(ScriptedAgent::new(agent, turns))
            } else {
                Box::new(FixedAgent::new(agent, turns.remove(0)))
            }
        };
        match name {
            "reference" => Ok(scripted(
                "reference",
                answer(&task.spec.solutions.reference)?,
            )),
            "known-wrong" => {
                let pick = &wrong[(seed % wrong.len() as u64) as usize];
                Ok(scripted("known-wrong", answer(&pick.file)?))
            }
            other if super::exploits::exploit_of(other).is_some() => {
                let exploit = super::exploits::exploit_of(other).unwrap_or_default();
                let prompt = if composite {
                    composite::prompt(task, &inst, &self.manifest)
                } else {
                    super::atomic::prompt(task, &inst, &self.manifest)
                };
                let turns = super::exploits::exploit_replies(exploit, task, &prompt);
                Ok(scripted(other, turns))
            }
            other => {
                let Some(rate) = fault_rate(other) else {
                    return Err(BenchError::UnknownAgent {
                        name: other.to_string(),
                        available: format!(
                            "{}, faulty-<rate in 0..1>, {}",
                            AGENTS.join(", "),
                            super::exploits::EXPLOITS
                                .iter()
                                .map(|(n, _)| format!("exploit-{n}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    });
                };
                let reference = answer(&task.spec.solutions.reference)?;
                let (turns, atomic) = if composite {
                    (reference.into(), None)
                } else {
                    let wrongs = wrong
                        .iter()
                        .map(|w| answer(&w.file).map(|mut v| v.remove(0)))
                        .collect::<Result<Vec<_>, _>>()?;
                    (VecDeque::new(), Some((reference[0].clone(), wrongs)))
                };
                Ok(Box::new(FaultyAgent {
                    name: other.to_string(),
                    rate,
                    rng: rng_for(instance, seed),
                    turns,
                    atomic,
                    planned: false,
                }))
            }
        }
    }

    fn expected_calls(&self, instance: &str) -> u32 {
        // A composite: the planning call and (at best) one call per optimal step.
        self.task(instance)
            .ok()
            .and_then(|t| t.spec.composite.as_ref())
            .map_or(1, |c| 1 + c.optimal_steps)
    }

    fn run<'a>(
        &'a self,
        instance: &'a str,
        agent: &'a mut dyn Agent,
        seed: u64,
        events: &'a mut (dyn FnMut(Event) + Send),
    ) -> BoxFuture<'a, Result<SampleRecord, BenchError>> {
        Box::pin(async move {
            let task = self.task(instance)?;
            let bench = |e: super::QuestError| e.into_bench(task);
            if self.prompting.library == Library::Viem {
                self.lease()
                    .await
                    .map_err(bench)?
                    .require_viem()
                    .map_err(bench)?;
            }
            let inst = Instance::with_difficulty(task, seed, &self.manifest, self.nl_difficulty)
                .map_err(bench)?;
            events(Event::SampleStarted {
                benchmark: self.name().into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
            });
            if task.spec.kind == Kind::Composite {
                let h = self.lease().await.map_err(bench)?;
                let fork_before = h.chain().fork_failures();
                let ran = composite::run_episode_on(
                    &h,
                    self.workers.as_deref(),
                    task,
                    &inst,
                    &self.prompting,
                    agent,
                    events,
                )
                .await
                .and_then(|r| h.check_fork(fork_before).map(|()| r));
                let (verdict, transcript) = settle(h, ran).map_err(bench)?;
                let score = verdict.score / 100.0;
                events(Event::SampleFinished {
                    outcome: verdict.outcome.into(),
                    score,
                });
                return Ok(SampleRecord {
                    benchmark: self.name().into(),
                    instance: instance.into(),
                    agent: agent.name().into(),
                    seed,
                    outcome: verdict.outcome.into(),
                    score,
                    passed: verdict.passed,
                    transcript,
                    details: Details::Composite(CompositeDetails {
                        k_act: verdict.k_act,
                        k_opt: verdict.k_opt,
                        params: inst.params_json(),
                        template_index: inst.template_index,
                        agent_address: inst.agent.to_checksum(None),
                        agent_error: verdict.agent_error.clone(),
                        options: self.options(&inst),
                        verdict: verdict.clone(),
                    })
                    .to_value(),
                    metrics: [
                        ("score_100".to_string(), verdict.score),
                        ("rounds".to_string(), f64::from(verdict.k_act)),
                        (
                            crucible_core::REFUSED_CALLS_METRIC.to_string(),
                            verdict
                                .rounds
                                .iter()
                                .flat_map(|r| &r.refused_calls)
                                .map(|c| c.count as f64)
                                .sum(),
                        ),
                    ]
                    .into(),
                    k_act: Some(verdict.k_act),
                    k_opt: Some(verdict.k_opt),
                    paper: Some(paper_score(verdict.paper_score)),
                    prompt_set: self.prompting.set,
                    agent_error: verdict.agent_error.clone(),
                });
            }
            let mut transcript =
                super::prompt::atomic_messages(task, &inst, &self.manifest, &self.prompting);
            for m in &transcript {
                events(Event::Turn { message: m.clone() });
            }
            let (answer, agent_error) = match agent.respond(AgentRequest::new(&transcript)).await {
                Ok(a) => (a.text, None),
                Err(e) => (String::new(), Some(e.to_string())),
            };
            let reply = Message::new(Role::Assistant, answer);
            events(Event::Turn {
                message: reply.clone(),
            });
            let h = self.lease().await.map_err(bench)?;
            let fork_before = h.chain().fork_failures();
            let ran = {
                let _busy = match &self.workers {
                    Some(w) => Some(w.enter().await),
                    None => None,
                };
                h.run_answer(task, &inst, &reply.content).await
            }
            .and_then(|v| h.check_fork(fork_before).map(|()| v));
            let verdict = settle(h, ran).map_err(bench)?;
            transcript.push(reply);
            if let Some(tx) = &verdict.tx {
                events(Event::Note {
                    kind: "tx".into(),
                    detail: tx.clone(),
                });
            }
            let score = f64::from(verdict.score) / 100.0;
            events(Event::SampleFinished {
                outcome: verdict.outcome.into(),
                score,
            });
            Ok(SampleRecord {
                benchmark: self.name().into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
                outcome: verdict.outcome.into(),
                score,
                passed: verdict.passed,
                transcript,
                details: Details::Atomic(AtomicDetails {
                    k_act: 1,
                    k_opt: 1,
                    verdict: verdict.clone(),
                    params: inst.params_json(),
                    template_index: inst.template_index,
                    agent_address: inst.agent.to_checksum(None),
                    agent_error: agent_error.clone(),
                    options: self.options(&inst),
                })
                .to_value(),
                metrics: [
                    ("score_100".to_string(), f64::from(verdict.score)),
                    ("rounds".to_string(), 1.0),
                    (
                        crucible_core::REFUSED_CALLS_METRIC.to_string(),
                        verdict.refused_calls.iter().map(|c| c.count as f64).sum(),
                    ),
                ]
                .into(),
                k_act: None,
                k_opt: None,
                paper: Some(paper_score(f64::from(verdict.paper_score))),
                prompt_set: self.prompting.set,
                agent_error,
            })
        })
    }
}
