//! Intent2Tx behind the run seam ([`crucible_core::Benchmark`]): the field metrics of one answer
//! per instance and, with an [`Executor`] attached, Exec/StateEq on the eth universe. An instance
//! is `<instance id>#direct` or `<instance id>#retrieval`.

use std::collections::BTreeMap;

use serde_json::json;

use super::agents::BuiltinAgent;
use super::book::AddressBook;
use super::execute::{prediction_calls, Executor};
use super::metrics::score_text;
use super::parse::parse_prediction;
use super::retrieve::{build_prompt, Retriever, Setting};
use super::schema::Instance;
use crucible_core::{
    Agent, BenchError, Benchmark, BoxFuture, Event, FixedAgent, InstanceMeta, Message, Outcome,
    Role, SampleRecord,
};

/// Intent2Tx as a [`Benchmark`] over a dataset, with a disjoint retrieval pool.
#[derive(Debug)]
pub struct IntentBench {
    instances: BTreeMap<String, Instance>,
    order: Vec<String>,
    book: AddressBook,
    retriever: Retriever,
    /// One chain per benchmark; executions take turns on it (each from the base snapshot).
    executor: Option<tokio::sync::Mutex<Executor>>,
}

impl IntentBench {
    /// With execution-based evaluation (Exec/StateEq) on `executor`'s chain.
    pub fn with_executor(mut self, executor: Executor) -> Self {
        self.executor = Some(tokio::sync::Mutex::new(executor));
        self
    }

    /// A benchmark over `dataset`, retrieving demonstrations from `pool`.
    pub fn new(dataset: Vec<Instance>, pool: Vec<Instance>, book: AddressBook) -> Self {
        let order = dataset.iter().map(|i| i.id.clone()).collect();
        let retriever = Retriever::new(pool, &book);
        Self {
            instances: dataset.into_iter().map(|i| (i.id.clone(), i)).collect(),
            order,
            book,
            retriever,
            executor: None,
        }
    }

    fn lookup(&self, instance: &str) -> Result<(&Instance, Setting), BenchError> {
        let (id, setting) = instance.rsplit_once('#').ok_or_else(|| {
            BenchError::UnknownInstance(format!(
                "{instance} (expected <id>#direct or <id>#retrieval)"
            ))
        })?;
        let setting = match setting {
            "direct" => Setting::Direct,
            "retrieval" => Setting::Retrieval,
            other => {
                return Err(BenchError::UnknownInstance(format!(
                    "{instance}: unknown setting {other:?}"
                )))
            }
        };
        let inst = self
            .instances
            .get(id)
            .ok_or_else(|| BenchError::UnknownInstance(instance.to_string()))?;
        Ok((inst, setting))
    }
}

impl Benchmark for IntentBench {
    fn name(&self) -> &'static str {
        "intent2tx"
    }

    fn instances(&self) -> Vec<String> {
        self.order
            .iter()
            .flat_map(|id| [format!("{id}#direct"), format!("{id}#retrieval")])
            .collect()
    }

    fn meta(&self, instance: &str) -> Result<InstanceMeta, BenchError> {
        let (inst, setting) = self.lookup(instance)?;
        Ok(InstanceMeta {
            task: inst.id.clone(),
            prompt_type: match setting {
                Setting::Direct => "direct",
                Setting::Retrieval => "retrieval",
            }
            .into(),
            kind: if inst.ground_truth.is_multi() {
                "multi"
            } else {
                "single"
            }
            .into(),
            category: inst.metadata.category.clone(),
            subcategory: String::new(),
            difficulty: String::new(),
        })
    }

    fn builtin_agents(&self) -> Vec<&'static str> {
        BuiltinAgent::ALL.iter().map(|a| a.name()).collect()
    }

    fn builtin_agent(
        &self,
        name: &str,
        instance: &str,
        _seed: u64,
    ) -> Result<Box<dyn Agent + '_>, BenchError> {
        let kind = BuiltinAgent::from_name(name).ok_or_else(|| BenchError::UnknownAgent {
            name: name.to_string(),
            available: self.builtin_agents().join(", "),
        })?;
        let (inst, _) = self.lookup(instance)?;
        Ok(Box::new(FixedAgent::new(
            kind.name(),
            kind.answer(inst, &self.book),
        )))
    }

    fn run<'a>(
        &'a self,
        instance: &'a str,
        agent: &'a mut dyn Agent,
        seed: u64,
        events: &'a mut (dyn FnMut(Event) + Send),
    ) -> BoxFuture<'a, Result<SampleRecord, BenchError>> {
        Box::pin(async move {
            let (inst, setting) = self.lookup(instance)?;
            events(Event::SampleStarted {
                benchmark: self.name().into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
            });
            let prompt = build_prompt(setting, inst, &self.book, Some(&self.retriever));
            let mut transcript = vec![
                Message::new(Role::System, prompt.system),
                Message::new(Role::User, prompt.user),
            ];
            for m in &transcript {
                events(Event::Turn { message: m.clone() });
            }
            let (answer, agent_error) = match agent.respond(&transcript).await {
                Ok(a) => (a, None),
                Err(e) => (String::new(), Some(e.to_string())),
            };
            let reply = Message::new(Role::Assistant, answer);
            events(Event::Turn {
                message: reply.clone(),
            });
            let scores = score_text(inst, &reply.content);
            let execution = match &self.executor {
                Some(ex) => {
                    let parsed = parse_prediction(&reply.content, inst.ground_truth.is_multi());
                    let report = ex
                        .lock()
                        .await
                        .evaluate(inst, prediction_calls(&parsed))
                        .await
                        .map_err(|e| e.into_bench(&inst.id))?;
                    for step in &report.steps {
                        events(Event::Note {
                            kind: "tx".into(),
                            detail: serde_json::to_value(step).unwrap_or_default(),
                        });
                    }
                    Some(report)
                }
                None => None,
            };
            transcript.push(reply);
            let outcome = if scores.fmt == 0.0 {
                Outcome::FormatError
            } else if scores.pass == 1.0 {
                Outcome::Pass
            } else {
                Outcome::Fail
            };
            events(Event::SampleFinished {
                outcome,
                score: scores.final_score,
            });
            let mut metrics: std::collections::BTreeMap<String, f64> = [
                ("format", scores.fmt),
                ("logic", scores.logic),
                ("param", scores.param),
                ("pass", scores.pass),
                ("final", scores.final_score),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
            if let Some(r) = &execution {
                metrics.insert("exec".into(), f64::from(u8::from(r.exec)));
                metrics.insert("state_eq".into(), f64::from(u8::from(r.state_eq)));
                metrics.insert("truth_exec".into(), f64::from(u8::from(r.truth_executes)));
            }
            Ok(SampleRecord {
                benchmark: self.name().into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
                outcome,
                score: scores.final_score,
                passed: scores.pass == 1.0,
                transcript,
                details: json!({
                    "scores": scores,
                    "execution": execution,
                    "demonstrations": prompt.demonstrations,
                    "agent_error": agent_error,
                }),
                metrics,
                k_act: None,
                k_opt: None,
                paper: None,
            })
        })
    }
}
