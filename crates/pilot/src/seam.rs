//! PILOT-Bench behind the run seam ([`crucible_core::Benchmark`]). An instance is a task under one
//! prompt type, written `<task id>#<prompt type>`; the sample's seed picks the simulator stream,
//! so every agent sees the same faults for the same (seed, task).

use serde_json::json;

use super::adherence::Adherence;
use super::agents::{self, EpisodeRun, Role as PilotRole};
use super::details::{Details, SimDetails};
use super::eval::Outcome;
use super::native::{drive, finish_transcript, registry_tools, Dialogue, ToolProtocol};
use super::prompt::PromptType;
use super::sim::Simulator;
use super::suite::Engine;
use super::PilotError;
use std::sync::Arc;

use crucible_core::{
    serde_name, Agent, AgentError, AgentRequest, AgentTurn, BenchError, Benchmark, BoxFuture,
    Event, InstanceMeta, Message, PromptSet, Role, SampleRecord,
};

const PROMPT_TYPES: [PromptType; 4] = [
    PromptType::Baseline,
    PromptType::Cot,
    PromptType::Optimal,
    PromptType::Flawed,
];

/// PILOT-Bench as a [`Benchmark`].
#[derive(Debug)]
pub struct PilotBench {
    engine: Arc<Engine>,
    prompt_set: PromptSet,
    tool_protocol: ToolProtocol,
}

impl PilotBench {
    /// Wraps an engine.
    pub fn new(engine: Engine) -> Self {
        Self::shared(Arc::new(engine))
    }

    /// Over an engine other benchmarks share (a run's catalogue builds one per prompt set).
    pub fn shared(engine: Arc<Engine>) -> Self {
        Self {
            engine,
            prompt_set: PromptSet::default(),
            tool_protocol: ToolProtocol::Text,
        }
    }

    /// Offers the tools through `protocol` (default: the paper's text protocol).
    pub fn with_tool_protocol(mut self, protocol: ToolProtocol) -> Self {
        self.tool_protocol = protocol;
        self
    }

    /// Asks in `set`'s wording (default: the paper's); every sample records it.
    pub fn with_prompt_set(mut self, set: PromptSet) -> Self {
        self.prompt_set = set;
        self
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }
}

/// Splits `<task id>#<prompt type>`.
pub fn parse_instance(instance: &str) -> Result<(&str, PromptType), BenchError> {
    let (task, prompt) = instance.rsplit_once('#').ok_or_else(|| {
        BenchError::UnknownInstance(format!("{instance} (expected <task id>#<prompt type>)"))
    })?;
    let prompt = PromptType::parse(prompt)
        .map_err(|e| BenchError::UnknownInstance(format!("{instance}: {e}")))?;
    Ok((task, prompt))
}

pub(crate) fn to_run(m: &agents::Message) -> Message {
    let role = match m.role {
        PilotRole::User => Role::User,
        PilotRole::Assistant => Role::Assistant,
    };
    Message::new(role, m.text.clone())
}

pub(crate) fn to_pilot(m: &Message) -> agents::Message {
    agents::Message {
        role: if m.role == Role::Assistant {
            PilotRole::Assistant
        } else {
            PilotRole::User
        },
        text: m.content.clone(),
    }
}

/// PILOT-Bench has no chain or sandbox: every failure to run a sample is its content's (an
/// unknown task, a registry or task file that cannot be used), never worth a retry.
pub(crate) fn pilot_err(e: PilotError) -> BenchError {
    match e {
        PilotError::UnknownTask(id) => BenchError::UnknownInstance(id),
        PilotError::Io { ref path, .. } => BenchError::Task {
            task: String::from("pilot"),
            file: Some(path.clone()),
            field: None,
            message: e.to_string(),
        },
        other => BenchError::task("pilot", other.to_string()),
    }
}

/// A PILOT built-in agent behind the general [`Agent`] trait.
pub(crate) struct Builtin<'e> {
    pub(crate) name: &'static str,
    pub(crate) inner: Box<dyn agents::Agent + Send + 'e>,
}

impl Agent for Builtin<'_> {
    fn name(&self) -> &str {
        self.name
    }
    fn respond<'a>(
        &'a mut self,
        request: AgentRequest<'a>,
    ) -> BoxFuture<'a, Result<AgentTurn, AgentError>> {
        let conv: Vec<agents::Message> = request.messages.iter().map(to_pilot).collect();
        let out = self
            .inner
            .respond(&conv)
            .map(AgentTurn::text)
            .ok_or(AgentError::Exhausted);
        Box::pin(async move { out })
    }
}

impl Benchmark for PilotBench {
    fn name(&self) -> &'static str {
        "pilot"
    }

    fn instances(&self) -> Vec<String> {
        self.engine
            .lib
            .tasks
            .iter()
            .flat_map(|t| {
                PROMPT_TYPES
                    .iter()
                    .map(move |p| format!("{}#{}", t.task.instance_id, p.as_str()))
            })
            .collect()
    }

    fn meta(&self, instance: &str) -> Result<InstanceMeta, BenchError> {
        let (task_id, prompt_type) = parse_instance(instance)?;
        let pos = self.engine.lib.position(task_id).map_err(pilot_err)?;
        let task = &self.engine.lib.tasks[pos].task;
        let (category, subcategory) = if prompt_type == PromptType::Flawed {
            match self.engine.render(task_id).map_err(pilot_err)?.flaw {
                Some(f) => (serde_name(&f.category), serde_name(&f.method)),
                None => (String::new(), String::new()),
            }
        } else {
            (String::new(), String::new())
        };
        Ok(InstanceMeta {
            task: task_id.to_string(),
            prompt_type: prompt_type.as_str().into(),
            kind: serde_name(&task.task_type),
            category,
            subcategory,
            difficulty: serde_name(&task.complexity),
        })
    }

    fn builtin_agents(&self) -> Vec<&'static str> {
        agents::AgentKind::ALL.iter().map(|k| k.as_str()).collect()
    }

    fn builtin_agent(
        &self,
        name: &str,
        instance: &str,
        seed: u64,
    ) -> Result<Box<dyn Agent + '_>, BenchError> {
        let kind = agents::AgentKind::parse(name).map_err(|_| BenchError::UnknownAgent {
            name: name.to_string(),
            available: self.builtin_agents().join(", "),
        })?;
        let (task, _) = parse_instance(instance)?;
        let inner = self.engine.agent(kind, task, seed, 0).map_err(pilot_err)?;
        Ok(Box::new(Builtin {
            name: kind.as_str(),
            inner,
        }))
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
            let pos = self.engine.lib.position(task_id).map_err(pilot_err)?;
            let rendered = self.engine.render(task_id).map_err(pilot_err)?;
            let task = &self.engine.lib.tasks[pos];
            events(Event::SampleStarted {
                benchmark: self.name().into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
            });
            let mut sim = Simulator::new(&self.engine.lib.registry, seed, pos as u64, 0);
            let prompt = rendered.prompt(self.prompt_set, prompt_type);
            let mut run = EpisodeRun::new(
                &self.engine.lib.registry,
                &self.engine.index,
                task,
                prompt,
                &mut sim,
            );
            let tools = match self.tool_protocol {
                ToolProtocol::Native => registry_tools(&self.engine.lib.registry),
                ToolProtocol::Text => Vec::new(),
            };
            let mut dialogue = Dialogue::new(self.tool_protocol, tools, prompt);
            let (agent_error, seen) = drive(&mut run, agent, &mut dialogue, events).await;
            let episode = run.finish();
            let transcript = finish_transcript(&dialogue, &episode.messages, seen, events);
            for c in &episode.calls {
                events(Event::Note {
                    kind: "tool_call".into(),
                    detail: serde_json::to_value(c).unwrap_or_default(),
                });
            }
            let ev = &episode.evaluation;
            // Plan adherence against the optimal plan and, when the prompt handed one over, the
            // flawed plan (a flawed prompt whose task drew no flaw carries the optimal plan).
            let flawed = (prompt_type == PromptType::Flawed && rendered.flaw.is_some())
                .then_some(&rendered.flawed_plan);
            let adherence = Adherence::measure(&episode.calls, &rendered.optimal_plan, flawed);
            let score = match ev.outcome {
                Outcome::FullSuccess => 1.0,
                Outcome::PartialSuccess => 0.5,
                Outcome::Failure => 0.0,
            };
            let outcome = crucible_core::Outcome::from(ev.outcome);
            events(Event::SampleFinished { outcome, score });
            // A public-release task: its description-difficulty variant (a report dimension),
            // its own id and per-task difficulty level, and how its tools sit in the registry.
            let release = task.task.variant.as_ref().zip(task.task.release.as_ref());
            let details = Details::Simulated(SimDetails {
                evaluation: ev.clone(),
                calls: episode.calls.clone(),
                prompt_type: prompt_type.as_str().into(),
                prompt_set: self.prompt_set.as_str().into(),
                tool_protocol: self.tool_protocol.as_str().into(),
                agent_error: agent_error.clone(),
                adherence: Some(adherence.clone()),
                variant: release.map(|(variant, _)| variant.clone()),
                release: release.map(|(_, release)| {
                    json!({
                        "instance_id": release.instance_id,
                        "task_type": release.task_type,
                        "difficulty_level": release.difficulty_level,
                        "file": release.file,
                        "quirks": crate::release::quirks(&self.engine.lib.registry, &task.required),
                    })
                }),
            })
            .to_value();
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
                    ("output_ok", f64::from(u8::from(ev.output_ok))),
                    (
                        "completion_signal",
                        f64::from(u8::from(ev.completion_signal)),
                    ),
                    ("turns", f64::from(ev.turns)),
                ]
                .into_iter()
                .chain(adherence.metrics())
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
                k_act: None,
                k_opt: None,
                paper: None,
                prompt_set: self.prompt_set,
                agent_error,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::TaskLibrary;
    use crucible_core::run_builtin;

    #[tokio::test]
    async fn same_seed_same_instance_same_score_and_the_prompt_set_is_used() {
        let engine = Arc::new(Engine::new(TaskLibrary::generate(1)));
        let instance = format!("{}#optimal", engine.lib.tasks[321].task.instance_id);
        for set in PromptSet::ALL {
            let bench = PilotBench::shared(engine.clone()).with_prompt_set(set);
            let mut runs = Vec::new();
            for _ in 0..2 {
                let rec = run_builtin(&bench, "follows-plan", &instance, 17, &mut |_| {})
                    .await
                    .unwrap();
                runs.push(rec);
            }
            let (a, b) = (&runs[0], &runs[1]);
            assert_eq!(a.prompt_set, set);
            assert_eq!((a.score, &a.outcome), (b.score, &b.outcome));
            assert_eq!(a.details, b.details);
            assert_eq!(a.transcript, b.transcript);
            let (task, pt) = parse_instance(&instance).unwrap();
            let want = engine.render(task).unwrap();
            assert_eq!(a.transcript[0].content, want.prompt(set, pt));
            assert_eq!(a.details["prompt_set"], set.as_str());
        }
    }

    /// The details the seam writes read back through the typed [`Details`] and serialise again
    /// to the same JSON, carrying the agent's error as the record does.
    #[tokio::test]
    async fn seam_details_round_trip_through_the_typed_details() {
        let engine = Arc::new(Engine::new(TaskLibrary::generate(1)));
        let bench = PilotBench::shared(engine.clone());
        for t in engine.lib.tasks.iter().step_by(211).take(5) {
            for pt in ["optimal", "flawed", "baseline"] {
                let instance = format!("{}#{pt}", t.task.instance_id);
                let rec = run_builtin(&bench, "follows-plan", &instance, 3, &mut |_| {})
                    .await
                    .unwrap();
                let typed = Details::from_stored(&rec.details).expect("the seam's details read");
                assert_eq!(typed.to_value().to_string(), rec.details.to_string());
                assert_eq!(typed.agent_error(), rec.agent_error.as_deref());
                let p = typed.trace().pilot.expect("pilot section");
                assert_eq!(
                    p.calls.len(),
                    rec.details["calls"].as_array().unwrap().len()
                );
            }
        }
    }

    #[tokio::test]
    async fn plan_adherence_is_stored_with_each_sample() {
        let engine = Arc::new(Engine::new(TaskLibrary::generate(1)));
        let bench = PilotBench::shared(engine.clone());
        let (mut followed, mut measurable, mut deviating_full) = (0, 0, 0);
        let mut optimal_full = 0;
        for t in engine.lib.tasks.iter().step_by(97).take(40) {
            let id = &t.task.instance_id;
            let rendered = engine.render(id).unwrap();
            for pt in ["optimal", "flawed", "baseline"] {
                let instance = format!("{id}#{pt}");
                let rec = run_builtin(&bench, "follows-plan", &instance, 3, &mut |_| {})
                    .await
                    .unwrap();
                let a: Adherence =
                    serde_json::from_value(rec.details["adherence"].clone()).unwrap();
                assert_eq!(a.optimal, rendered.optimal_plan.tools());
                assert_eq!(rec.metrics["plan_distance_optimal"], a.distance_optimal);
                let with_flaw = pt == "flawed" && rendered.flaw.is_some();
                assert_eq!(a.flawed.is_some(), with_flaw, "{instance}");
                assert_eq!(rec.metrics.contains_key("plan_distance_flawed"), with_flaw);
                if let Some(f) = a.followed_flaw {
                    measurable += 1;
                    followed += usize::from(f);
                    assert_eq!(rec.metrics["followed_flaw"], f64::from(u8::from(f)));
                }
                let deviates = crate::adherence::deviates_from_given_plan(
                    pt,
                    a.distance_optimal,
                    a.distance_flawed.unwrap_or(f64::NAN),
                    a.flaw_distance.unwrap_or(f64::NAN),
                );
                if pt == "baseline" {
                    assert_eq!(deviates, None);
                }
                if rec.passed && pt == "optimal" {
                    optimal_full += 1;
                }
                if rec.passed && deviates == Some(true) {
                    deviating_full += 1;
                }
            }
        }
        assert!(optimal_full > 10, "{optimal_full}");
        // Its retries are the plan's own advice: a plan-follower's success is never queued.
        assert_eq!(deviating_full, 0);
        // The agent executes the plan it is handed: a tool-changing flaw is followed nearly
        // always (its searches can recover a removed step, so not always).
        assert!(
            measurable > 10 && followed * 10 >= measurable * 8,
            "{followed} of {measurable}"
        );
    }
}
