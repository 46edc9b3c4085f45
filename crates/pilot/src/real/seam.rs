//! The real-tool set behind the run seam. Its name is `pilot`: its samples sit beside the
//! simulated set's in every PILOT table, their task ids' `@real-tools` suffix keeping them a
//! task set of their own. An instance is `<task id>#<prompt type>`; the sample's seed picks the
//! proxy's fault stream, so every agent meets the same faults for the same (seed, task).

use std::sync::Arc;

use crucible_core::{
    serde_name, Agent, BenchError, Benchmark, BoxFuture, Event, InstanceMeta, PromptSet,
    SampleRecord, ToolSpec,
};
use crucible_mcp::{confine, Installation};

use super::agents::PlanRunner;
use super::episode::{Catalog, FaultMode, RealRun};
use super::prompt::render;
use super::state;
use super::task::RealToolSet;
use crate::adherence::Adherence;
use crate::details::{Details, Flaw, RealDetails, REAL_TOOLS};
use crate::eval::{CallRecord, Outcome};
use crate::native::{
    drive, finish_transcript, native_name, protocol_tools, Dialogue, ToolProtocol,
};
use crate::prompt::PromptType;
use crate::seam::{parse_instance, pilot_err, Builtin};
use crate::sim::episode_rng;

/// The pack name of the built-in real-tool set.
pub const PACK: &str = "pilot-real-tools";

/// The built-in agents of the real-tool set.
pub const AGENTS: [&str; 3] = ["reference", "follows-plan", "no-retry"];

/// The real-tool set as a [`Benchmark`].
#[derive(Debug)]
pub struct RealToolBench {
    set: Arc<RealToolSet>,
    install: Installation,
    faults: FaultMode,
    tool_protocol: ToolProtocol,
    pack: String,
    catalog: tokio::sync::OnceCell<Arc<Catalog>>,
}

impl RealToolBench {
    /// Over a loaded set and the servers' installation; faults follow PILOT's law.
    pub fn new(set: Arc<RealToolSet>, install: Installation) -> Self {
        Self {
            set,
            install,
            faults: FaultMode::Law,
            tool_protocol: ToolProtocol::Text,
            pack: PACK.to_string(),
            catalog: tokio::sync::OnceCell::new(),
        }
    }

    /// Injects faults by `mode`.
    pub fn with_faults(mut self, mode: FaultMode) -> Self {
        self.faults = mode;
        self
    }

    /// Offers the tools through `protocol` (default: the text protocol).
    pub fn with_tool_protocol(mut self, protocol: ToolProtocol) -> Self {
        self.tool_protocol = protocol;
        self
    }

    /// Records `name` as the pack the samples came from.
    pub fn with_pack(mut self, name: &str) -> Self {
        self.pack = name.to_string();
        self
    }

    /// The task set.
    pub fn set(&self) -> &RealToolSet {
        &self.set
    }

    /// The servers' tools (listed once, on first use).
    pub async fn catalog(&self) -> Result<Arc<Catalog>, BenchError> {
        self.catalog
            .get_or_try_init(|| async {
                Catalog::list(&self.install)
                    .await
                    .map(Arc::new)
                    .map_err(|e| BenchError::task("pilot", e.to_string()))
            })
            .await
            .cloned()
    }
}

impl Benchmark for RealToolBench {
    fn name(&self) -> &'static str {
        "pilot"
    }

    fn instances(&self) -> Vec<String> {
        self.set
            .tasks
            .iter()
            .flat_map(|t| {
                PromptType::ALL
                    .iter()
                    .map(move |p| format!("{}#{}", t.id, p.as_str()))
            })
            .collect()
    }

    fn meta(&self, instance: &str) -> Result<InstanceMeta, BenchError> {
        let (task_id, prompt_type) = parse_instance(instance)?;
        let task = self.set.task(task_id).map_err(pilot_err)?;
        let (category, subcategory) = match prompt_type {
            PromptType::Flawed => {
                let f = &task.flawed_plans[0];
                (serde_name(&f.category), serde_name(&f.method))
            }
            _ => (String::new(), String::new()),
        };
        Ok(InstanceMeta {
            task: task_id.to_string(),
            prompt_type: prompt_type.as_str().into(),
            kind: task.task_type.clone(),
            category,
            subcategory,
            difficulty: serde_name(&task.complexity),
        })
    }

    fn builtin_agents(&self) -> Vec<&'static str> {
        AGENTS.to_vec()
    }

    fn builtin_agent(
        &self,
        name: &str,
        instance: &str,
        _seed: u64,
    ) -> Result<Box<dyn Agent + '_>, BenchError> {
        let (task_id, _) = parse_instance(instance)?;
        let task = self.set.task(task_id).map_err(pilot_err)?;
        let runner = match name {
            "reference" => PlanRunner::reference(&task.optimal_plan),
            "follows-plan" => PlanRunner::follows_plan(),
            "no-retry" => PlanRunner::no_retry(),
            _ => {
                return Err(BenchError::UnknownAgent {
                    name: name.to_string(),
                    available: AGENTS.join(", "),
                })
            }
        };
        Ok(Box::new(Builtin {
            name: runner.name(),
            inner: Box::new(runner),
        }))
    }

    fn expected_calls(&self, instance: &str) -> u32 {
        parse_instance(instance)
            .ok()
            .and_then(|(t, _)| self.set.task(t).ok())
            .map_or(1, |t| t.optimal_plan.len() as u32 + 1)
    }

    fn run<'a>(
        &'a self,
        instance: &'a str,
        agent: &'a mut dyn Agent,
        seed: u64,
        events: &'a mut (dyn FnMut(Event) + Send),
    ) -> BoxFuture<'a, Result<SampleRecord, BenchError>> {
        Box::pin(async move {
            let (task_id, prompt_type) = parse_instance(instance)?;
            let pos = self.set.position(task_id).map_err(pilot_err)?;
            let task = &self.set.tasks[pos];
            let catalog = self.catalog().await?;
            events(Event::SampleStarted {
                benchmark: self.name().into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
            });
            let dir = tempfile::Builder::new()
                .prefix("crucible-episode-")
                .tempdir()
                .map_err(|e| BenchError::infrastructure_msg(format!("episode folder: {e}")))?;
            state::set_up(&self.install, dir.path(), task)
                .await
                .map_err(|e| BenchError::task(task_id, format!("setting up the episode: {e}")))?;
            confine::prepare_episode_dir(dir.path())
                .map_err(|e| BenchError::infrastructure_msg(format!("episode folder: {e}")))?;
            let prompt = render(task, prompt_type);
            let mut run = RealRun::new(
                task,
                &self.install,
                &catalog,
                dir.path(),
                &prompt,
                self.faults,
                episode_rng(seed, pos as u64, 0),
            );
            let tools = match self.tool_protocol {
                ToolProtocol::Native => protocol_tools()
                    .into_iter()
                    .chain(catalog.tools.iter().map(|t| ToolSpec {
                        name: native_name(&t.name),
                        description: t.description.clone(),
                        parameters: t.input_schema.clone(),
                    }))
                    .collect(),
                ToolProtocol::Text => Vec::new(),
            };
            let mut dialogue = Dialogue::new(self.tool_protocol, tools, &prompt);
            let (agent_error, seen) = drive(&mut run, agent, &mut dialogue, events).await;
            let episode = run.finish().await;
            let transcript = finish_transcript(&dialogue, &episode.messages, seen, events);
            for c in &episode.calls {
                events(Event::Note {
                    kind: "tool_call".into(),
                    detail: serde_json::to_value(c).unwrap_or_default(),
                });
            }
            let ev = &episode.evaluation;
            let score = match ev.outcome {
                Outcome::FullSuccess => 1.0,
                Outcome::PartialSuccess => 0.5,
                Outcome::Failure => 0.0,
            };
            let outcome = crucible_core::Outcome::from(ev.outcome);
            events(Event::SampleFinished { outcome, score });
            let flaw = (prompt_type == PromptType::Flawed).then(|| &task.flawed_plans[0]);
            let records: Vec<CallRecord> = episode
                .calls
                .iter()
                .map(|c| CallRecord {
                    tool: c.tool.clone(),
                    success: c.success,
                    error: c.error.clone(),
                    turn: c.turn,
                    p: c.p,
                })
                .collect();
            let tools = |plan: &[super::task::Step]| plan.iter().map(|s| s.tool.clone()).collect();
            let adherence = Adherence::of_tools(
                &records,
                tools(&task.optimal_plan),
                flaw.map(|f| tools(&f.plan)),
            );
            let details = Details::Real(RealDetails {
                task_set: REAL_TOOLS.into(),
                pack: self.pack.clone(),
                faults: self.faults.as_str().into(),
                tool_protocol: self.tool_protocol.as_str().into(),
                servers: catalog.versions.clone(),
                evaluation: ev.clone(),
                calls: episode.calls.clone(),
                prompt_type: prompt_type.as_str().into(),
                prompt_set: PromptSet::Paper.as_str().into(),
                agent_error: agent_error.clone(),
                adherence: Some(adherence.clone()),
                flaw: flaw.map(|f| Flaw {
                    category: f.category,
                    method: f.method,
                    description: f.description.clone(),
                }),
            })
            .to_value();
            let injected = episode.calls.iter().filter(|c| c.injected).count();
            Ok(SampleRecord {
                benchmark: self.name().into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
                passed: ev.outcome == Outcome::FullSuccess,
                outcome,
                score,
                transcript,
                details,
                metrics: [
                    ("coverage", ev.coverage),
                    ("sequence_ok", f64::from(u8::from(ev.sequence_ok))),
                    (
                        "completion_signal",
                        f64::from(u8::from(ev.completion_signal)),
                    ),
                    ("turns", f64::from(ev.turns)),
                    (
                        "checks_passed",
                        ev.checks_passed as f64 / ev.checks.len().max(1) as f64,
                    ),
                    ("calls", episode.calls.len() as f64),
                    ("injected_faults", injected as f64),
                ]
                .into_iter()
                .chain(adherence.metrics())
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
                k_act: None,
                k_opt: None,
                paper: None,
                prompt_set: PromptSet::Paper,
                agent_error,
            })
        })
    }
}
