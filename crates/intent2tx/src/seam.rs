//! Intent2Tx behind the run seam ([`crucible_core::Benchmark`]): the field metrics of one answer
//! per instance and, with an [`Executor`] attached, Exec/StateEq on the eth universe. An instance
//! is `<instance id>#direct` or `<instance id>#retrieval`. The field metrics use the paper's
//! comparisons unless the benchmark is built [`with_metric_mode`](IntentBench::with_metric_mode).
//! Prompts are the [`PromptSet`]'s (default: the paper's) and the retrieval setting's
//! demonstrations come from the [`RetrievalMode`] (default: the paper's).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::agents::BuiltinAgent;
use super::book::AddressBook;
use super::details::Details;
use super::execute::{prediction_calls, Executor};
use super::metrics::{score_text_with, MetricMode};
use super::parse::parse_prediction;
use super::retrieve::{build_prompt_with, RetrievalMode, Retriever, Setting};
use super::schema::Instance;
use super::IntentError;
use crucible_chain::pool::{ChainWorkers, NodePool};

/// Booted Intent2Tx executors, lent to one execution at a time (see [`crucible_chain::pool`]).
pub type ExecutorPool = NodePool<Executor, IntentError>;
use crucible_core::{
    Agent, AgentRequest, BenchError, Benchmark, BoxFuture, Event, FixedAgent, InstanceMeta,
    Message, Outcome, PromptSet, Role, SampleRecord,
};

/// Intent2Tx as a [`Benchmark`] over a dataset, with a disjoint retrieval pool.
#[derive(Debug)]
pub struct IntentBench {
    instances: BTreeMap<String, Instance>,
    order: Vec<String>,
    book: AddressBook,
    retriever: Retriever,
    /// Executors (each on its own chain), lent to one execution at a time (each execution starts
    /// from the base snapshot, so which one runs it does not matter).
    executor: Option<Arc<ExecutorPool>>,
    /// The run's chain workers: an execution takes one (none while the model answers).
    workers: Option<Arc<ChainWorkers>>,
    metric_mode: MetricMode,
    prompt_set: PromptSet,
    retrieval: RetrievalMode,
    /// The executor runs the offline universe (not a fork): instances calling a contract it does
    /// not hold are not executed, and say why.
    offline: bool,
}

impl IntentBench {
    /// With execution-based evaluation (Exec/StateEq) on `executor`'s chain.
    pub fn with_executor(mut self, executor: Executor) -> Self {
        self.executor = Some(Arc::new(NodePool::single(executor)));
        self
    }

    /// With execution-based evaluation on executors lent from `pool`, each execution taking one
    /// of `workers`: the model is asked before any executor is taken.
    pub fn with_executors(mut self, pool: Arc<ExecutorPool>, workers: Arc<ChainWorkers>) -> Self {
        self.executor = Some(pool);
        self.workers = Some(workers);
        self
    }

    /// The executor forks a real chain: every contract an instance calls is expected there, so
    /// no instance is set aside as "not in the offline universe".
    pub fn on_fork(mut self) -> Self {
        self.offline = false;
        self
    }

    /// Why `id` will not be executed on the offline universe (a called contract it does not
    /// hold), when execution is on and it will not; `None` otherwise.
    pub fn not_executable(&self, id: &str) -> Option<String> {
        if self.executor.is_none() || !self.offline {
            return None;
        }
        crate::selftest::offline_reason(self.instances.get(id)?, &self.book)
    }

    /// Asks in `set`'s wording (default: the paper's); every sample records it.
    pub fn with_prompt_set(mut self, set: PromptSet) -> Self {
        self.prompt_set = set;
        self
    }

    /// Chooses the retrieval setting's demonstrations by `mode` (default: the paper's, Jaccard
    /// over the ground-truth pairs). Every retrieval sample records it in `details.retrieval`.
    pub fn with_retrieval(mut self, mode: RetrievalMode) -> Self {
        self.retrieval = mode;
        self
    }

    /// How the retrieval setting chooses demonstrations.
    pub fn retrieval(&self) -> RetrievalMode {
        self.retrieval
    }

    /// The prompt wording.
    pub fn prompt_set(&self) -> PromptSet {
        self.prompt_set
    }

    /// With the field metrics computed under `mode`. The default, [`MetricMode::Paper`], is
    /// what [`new`](Self::new) gives; [`MetricMode::ReferenceCode`] scores as the repository's
    /// scorer did for the paper's published tables (docs/intent2tx.md lists the differences).
    /// Only the scores change: prompts, answers and execution (Exec/StateEq, which always reads
    /// the answer tolerantly) are the same. A record scored under a non-default mode says so in
    /// `details.metrics_mode`.
    pub fn with_metric_mode(mut self, mode: MetricMode) -> Self {
        self.metric_mode = mode;
        self
    }

    /// The mode the field metrics are computed under.
    pub fn metric_mode(&self) -> MetricMode {
        self.metric_mode
    }

    /// A benchmark over `dataset`, retrieving demonstrations from `pool`, scored with the paper's
    /// comparisons ([`MetricMode::Paper`]; see [`with_metric_mode`](Self::with_metric_mode)).
    pub fn new(dataset: Vec<Instance>, pool: Vec<Instance>, book: AddressBook) -> Self {
        let order = dataset.iter().map(|i| i.id.clone()).collect();
        let retriever = Retriever::new(pool, &book);
        Self {
            instances: dataset.into_iter().map(|i| (i.id.clone(), i)).collect(),
            order,
            book,
            retriever,
            executor: None,
            workers: None,
            metric_mode: MetricMode::default(),
            prompt_set: PromptSet::default(),
            retrieval: RetrievalMode::default(),
            offline: true,
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
            let prompt = build_prompt_with(
                self.prompt_set,
                self.retrieval,
                setting,
                inst,
                &self.book,
                Some(&self.retriever),
            );
            let mut transcript = vec![
                Message::new(Role::System, prompt.system),
                Message::new(Role::User, prompt.user),
            ];
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
            let scores = score_text_with(inst, &reply.content, self.metric_mode);
            let not_executable = self
                .offline
                .then(|| crate::selftest::offline_reason(inst, &self.book))
                .flatten();
            let execution = match &self.executor {
                Some(_) if not_executable.is_some() => None,
                Some(pool) => {
                    let parsed = parse_prediction(&reply.content, inst.ground_truth.is_multi());
                    let mut ex = pool
                        .lease(|| {
                            IntentError::from(crucible_chain::ChainError::NodeExited {
                                status: "discarded after an infrastructure failure".into(),
                                log: String::new(),
                            })
                        })
                        .await
                        .map_err(|e| e.into_bench(&inst.id))?;
                    let ran = {
                        let _busy = match &self.workers {
                            Some(w) => Some(w.enter().await),
                            None => None,
                        };
                        ex.evaluate(inst, prediction_calls(&parsed)).await
                    };
                    let report = match ran {
                        Ok(r) => r,
                        Err(e) => {
                            if matches!(&e, IntentError::Chain(c)
                                if c.kind() == crucible_core::ErrorKind::Infrastructure)
                            {
                                ex.discard();
                            }
                            return Err(e.into_bench(&inst.id));
                        }
                    };
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
            let answer_text = &transcript[transcript.len() - 1].content;
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
            // Both metric modes, so a report can read either (`report --intent-metrics`);
            // `metrics_refcode` says which one the plain keys hold.
            for mode in [MetricMode::Paper, MetricMode::ReferenceCode] {
                let s = if mode == self.metric_mode {
                    scores.clone()
                } else {
                    score_text_with(inst, answer_text, mode)
                };
                let prefix = match mode {
                    MetricMode::Paper => "paper",
                    MetricMode::ReferenceCode => "refcode",
                };
                for (k, v) in [
                    ("format", s.fmt),
                    ("logic", s.logic),
                    ("param", s.param),
                    ("pass", s.pass),
                    ("final", s.final_score),
                ] {
                    metrics.insert(format!("{prefix}_{k}"), v);
                }
            }
            if self.metric_mode == MetricMode::ReferenceCode {
                metrics.insert("metrics_refcode".into(), 1.0);
            }
            if let Some(r) = &execution {
                metrics.insert("exec".into(), f64::from(u8::from(r.exec)));
                metrics.insert("state_eq".into(), f64::from(u8::from(r.state_eq)));
                metrics.insert("truth_exec".into(), f64::from(u8::from(r.truth_executes)));
            }
            let details = Details {
                scores: scores.clone(),
                execution,
                demonstrations: prompt.demonstrations,
                agent_error: agent_error.clone(),
                // Kept so a reviewer sees expected beside answered values in the trace.
                ground_truth: serde_json::to_value(&inst.ground_truth).unwrap_or_default(),
                not_executable: not_executable.filter(|_| self.executor.is_some()),
                retrieval: (setting == Setting::Retrieval).then_some(self.retrieval),
                // Default records stay as they were; another mode is named where the scores are.
                metrics_mode: (self.metric_mode != MetricMode::Paper).then_some(self.metric_mode),
            }
            .to_value();
            Ok(SampleRecord {
                benchmark: self.name().into(),
                instance: instance.into(),
                agent: agent.name().into(),
                seed,
                outcome,
                score: scores.final_score,
                passed: scores.pass == 1.0,
                transcript,
                details,
                metrics,
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
    use crate::schema::{Call, Metadata, Param, Truth};
    use serde_json::json;

    fn bench() -> IntentBench {
        let truth = Call {
            contract: "USDC".into(),
            contract_address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48".into(),
            function: "transfer".into(),
            params: vec![(
                "to".into(),
                Param::new(
                    "address",
                    json!("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
                ),
            )],
            value: json!(0),
        };
        let inst = Instance {
            id: "t".into(),
            intent: "send".into(),
            ground_truth: Truth::Single(truth),
            metadata: Metadata::default(),
        };
        IntentBench::new(vec![inst], vec![], AddressBook::builtin())
    }

    async fn run(bench: &IntentBench, answer: &str) -> SampleRecord {
        let mut agent = FixedAgent::new("fixed", answer);
        bench
            .run("t#direct", &mut agent, 1, &mut |_| {})
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn prompt_set_and_retrieval_mode_reach_the_record() {
        let b = bench();
        assert_eq!(b.prompt_set(), PromptSet::Paper);
        assert_eq!(b.retrieval(), RetrievalMode::Paper);
        let mut agent = FixedAgent::new("fixed", "{}");
        let rec = b
            .run("t#retrieval", &mut agent, 1, &mut |_| {})
            .await
            .unwrap();
        assert_eq!(rec.details["retrieval"], "paper");
        assert_eq!(rec.prompt_set, PromptSet::Paper);
        assert!(rec.transcript[0]
            .content
            .contains("| **Celer_cBridge_V2** |"));
        assert!(rec.transcript[1]
            .content
            .starts_with("Now, please process the following intent:"));
        let b = bench()
            .with_prompt_set(PromptSet::Assisted)
            .with_retrieval(RetrievalMode::HeldOutCategory);
        let rec = b
            .run("t#retrieval", &mut agent, 1, &mut |_| {})
            .await
            .unwrap();
        assert_eq!(rec.details["retrieval"], "held-out-category");
        assert_eq!(rec.prompt_set, PromptSet::Assisted);
        assert!(rec.transcript[0].content.contains("Address book:"));
        let direct = b.run("t#direct", &mut agent, 1, &mut |_| {}).await.unwrap();
        assert!(direct.details.get("retrieval").is_none());
    }

    /// The details the seam writes read back through the typed [`Details`] and serialise again
    /// to the same JSON, and carry the agent's error as the record does.
    #[tokio::test]
    async fn seam_details_round_trip_through_the_typed_details() {
        let b = bench().with_metric_mode(MetricMode::ReferenceCode);
        let mut agent = FixedAgent::new("fixed", "{}");
        for instance in ["t#retrieval", "t#direct"] {
            let rec = b.run(instance, &mut agent, 1, &mut |_| {}).await.unwrap();
            let typed = Details::from_stored(&rec.details).expect("the seam's details read");
            assert_eq!(typed.to_value().to_string(), rec.details.to_string());
            assert_eq!(typed.agent_error, rec.agent_error);
            assert!(typed.trace(Some("{}")).intent.is_some());
        }
    }

    /// `"value": "0.0"` for a truth of 0 is right by the paper's definition and wrong by the
    /// reference code's string comparison; the default stays the paper's and its record is
    /// unchanged (no `metrics_mode`).
    #[tokio::test]
    async fn the_metric_mode_reaches_the_sample_record() {
        let answer = r#"{"contract": "USDC", "contract_address": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
            "function": "transfer", "params": {"to": {"type": "address", "val": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}},
            "value": "0.0"}"#;
        let b = bench();
        assert_eq!(b.metric_mode(), MetricMode::Paper);
        let paper = run(&b, answer).await;
        assert!(paper.passed);
        assert_eq!(paper.metrics["param"], 1.0);
        assert!(paper.details.get("metrics_mode").is_none());

        let b = bench().with_metric_mode(MetricMode::ReferenceCode);
        let reference = run(&b, answer).await;
        assert!(!reference.passed);
        assert_eq!(reference.outcome, Outcome::Fail);
        // {to: 1, value_eth: 0.4 + 0.3 (type) + 0 (value)} / 2
        assert!((reference.metrics["param"] - 0.85).abs() < 1e-12);
        assert_eq!(reference.details["metrics_mode"], "reference-code");
    }
}
