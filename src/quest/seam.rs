//! QuestBench atomic tasks behind the run seam ([`crate::run::Benchmark`]). Built-in agents:
//! `reference` answers with the task's reference solution; `known-wrong` answers with one of its
//! known-wrong solutions (chosen by the seed).

use serde_json::json;

use super::atomic::{as_answer, prompt, Harness};
use super::task::{Kind, Task};
use crate::run::{
    serde_name, Agent, Benchmark, BoxFuture, Event, FixedAgent, InstanceMeta, Message, Role,
    RunError, SampleRecord,
};

/// QuestBench over a loaded catalogue and a booted harness.
#[derive(Debug)]
pub struct QuestBench {
    tasks: Vec<Task>,
    harness: Harness,
}

impl QuestBench {
    /// A benchmark over `tasks` (composite tasks are listed nowhere until their protocol exists).
    pub fn new(tasks: Vec<Task>, harness: Harness) -> Self {
        Self {
            tasks: tasks
                .into_iter()
                .filter(|t| t.spec.kind == Kind::Atomic)
                .collect(),
            harness,
        }
    }

    fn task(&self, id: &str) -> Result<&Task, RunError> {
        self.tasks
            .iter()
            .find(|t| t.id() == id)
            .ok_or_else(|| RunError::UnknownInstance(id.to_string()))
    }
}

/// The built-in agents of EVM-QuestBench.
pub const AGENTS: [&str; 2] = ["reference", "known-wrong"];

impl Benchmark for QuestBench {
    fn name(&self) -> &'static str {
        "questbench"
    }

    fn instances(&self) -> Vec<String> {
        self.tasks.iter().map(|t| t.id().to_string()).collect()
    }

    fn meta(&self, instance: &str) -> Result<InstanceMeta, RunError> {
        let t = &self.task(instance)?.spec;
        Ok(InstanceMeta {
            task: instance.to_string(),
            prompt_type: String::new(),
            kind: serde_name(&t.kind),
            category: serde_name(&t.category),
            subcategory: serde_name(&t.subcategory),
            difficulty: serde_name(&t.difficulty),
        })
    }

    fn builtin_agents(&self) -> Vec<&'static str> {
        AGENTS.to_vec()
    }

    fn builtin_agent(
        &self,
        name: &str,
        instance: &str,
        seed: u64,
    ) -> Result<Box<dyn Agent + '_>, RunError> {
        let task = self.task(instance)?;
        let bench = |e: super::QuestError| RunError::Benchmark(e.to_string());
        let (name, code) = match name {
            "reference" => ("reference", task.reference_source().map_err(bench)?),
            "known-wrong" => {
                let w = &task.spec.solutions.wrong;
                let pick = &w[(seed % w.len() as u64) as usize];
                (
                    "known-wrong",
                    task.read_relative(&pick.file).map_err(bench)?,
                )
            }
            other => {
                return Err(RunError::UnknownAgent {
                    name: other.to_string(),
                    available: AGENTS.join(", "),
                })
            }
        };
        let inst = self.harness.instance(task, seed).map_err(bench)?;
        Ok(Box::new(FixedAgent::new(
            name,
            as_answer(&inst.render_solution(&code)),
        )))
    }

    fn run<'a>(
        &'a self,
        instance: &'a str,
        agent: &'a mut dyn Agent,
        seed: u64,
        events: &'a mut (dyn FnMut(Event) + Send),
    ) -> BoxFuture<'a, Result<SampleRecord, RunError>> {
        Box::pin(async move {
            let bench = |e: super::QuestError| RunError::Benchmark(e.to_string());
            let task = self.task(instance)?;
            let inst = self.harness.instance(task, seed).map_err(bench)?;
            events(Event::SampleStarted {
                benchmark: self.name().into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
            });
            let mut transcript = vec![Message::new(
                Role::User,
                prompt(task, &inst, self.harness.manifest()),
            )];
            events(Event::Turn {
                message: transcript[0].clone(),
            });
            let (answer, agent_error) = match agent.respond(&transcript).await {
                Ok(a) => (a, None),
                Err(e) => (String::new(), Some(e.to_string())),
            };
            let reply = Message::new(Role::Assistant, answer);
            events(Event::Turn {
                message: reply.clone(),
            });
            let verdict = self
                .harness
                .run_answer(task, &inst, &reply.content)
                .await
                .map_err(bench)?;
            transcript.push(reply);
            if let Some(tx) = &verdict.tx {
                events(Event::Note {
                    kind: "tx".into(),
                    detail: tx.clone(),
                });
            }
            let score = f64::from(verdict.score) / 100.0;
            events(Event::SampleFinished {
                outcome: verdict.outcome.as_str().into(),
                score,
            });
            Ok(SampleRecord {
                benchmark: self.name().into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
                outcome: verdict.outcome.as_str().into(),
                score,
                passed: verdict.passed,
                transcript,
                details: json!({
                    "verdict": verdict,
                    "params": inst.params_json(),
                    "template_index": inst.template_index,
                    "agent_error": agent_error,
                }),
                metrics: [
                    ("score_100".to_string(), f64::from(verdict.score)),
                    ("rounds".to_string(), 1.0),
                ]
                .into(),
                k_act: None,
                k_opt: None,
            })
        })
    }
}
