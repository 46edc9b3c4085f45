//! The run seam: PILOT-Bench and Intent2Tx driven through `run::Benchmark` with built-in and
//! scripted agents, the same results as the benchmarks' own drivers, and failures recorded as
//! samples rather than errors.

use std::path::Path;

use crucible_core::BenchError;
use crucible_core::{
    run_builtin, Agent, AgentError, AgentRequest, AgentTurn, Benchmark, BoxFuture, Event, Message,
    Role, ScriptedAgent,
};
use crucible_intent2tx::seam::IntentBench;
use crucible_intent2tx::{import::load_clean, AddressBook};
use crucible_pilot::agents::AgentKind;
use crucible_pilot::seam::PilotBench;
use crucible_pilot::suite::Engine;
use crucible_pilot::task::TaskLibrary;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn pilot() -> PilotBench {
    PilotBench::new(Engine::new(
        TaskLibrary::load(&root().join("tasks/pilot")).unwrap(),
    ))
}

fn intent() -> IntentBench {
    let data = load_clean(&root().join("tasks/intent2tx/default/instances.jsonl")).unwrap();
    let pool = load_clean(&root().join("tasks/intent2tx/pool/instances.jsonl")).unwrap();
    IntentBench::new(data, pool, AddressBook::builtin())
}

#[tokio::test]
async fn pilot_through_the_seam_matches_the_engine_episode_for_episode() {
    let bench = pilot();
    assert_eq!(bench.instances().len(), 5_040 * 4);
    for instance in bench.instances().iter().step_by(997).take(12) {
        let (task, prompt) = crucible_pilot::seam::parse_instance(instance).unwrap();
        for kind in AgentKind::ALL {
            let mut events = Vec::new();
            let rec = run_builtin(&bench, kind.as_str(), instance, 11, &mut |e| events.push(e))
                .await
                .unwrap();
            let mut direct = bench.engine().agent(kind, task, 11, 0).unwrap();
            let ep = bench
                .engine()
                .episode(task, prompt, direct.as_mut(), 11, 0)
                .unwrap();
            let outcome = serde_json::to_value(ep.evaluation.outcome).unwrap();
            assert_eq!(
                rec.outcome,
                outcome.as_str().unwrap(),
                "{instance} {kind:?}"
            );
            assert_eq!(
                rec.details["calls"],
                serde_json::to_value(&ep.calls).unwrap(),
                "{instance} {kind:?}"
            );
            assert_eq!(rec.transcript.len(), ep.messages.len());
            let turns: Vec<&Message> = events
                .iter()
                .filter_map(|e| match e {
                    Event::Turn { message } => Some(message),
                    _ => None,
                })
                .collect();
            assert_eq!(
                turns.len(),
                rec.transcript.len(),
                "every message is streamed once"
            );
            assert!(matches!(events.last(), Some(Event::SampleFinished { .. })));
        }
    }
}

#[tokio::test]
async fn a_scripted_pilot_answer_is_scored_and_bad_names_are_clear_errors() {
    let bench = pilot();
    let instance = &bench.instances()[2]; // optimal prompt of the first task
    assert!(instance.ends_with("#optimal"));
    let mut agent = ScriptedAgent::new("scripted", ["I will just say: task completed".to_string()]);
    let rec = bench
        .run(instance, &mut agent, 1, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(rec.outcome, "failure");
    assert_eq!(rec.details["evaluation"]["completion_signal"], true);
    assert_eq!(rec.details["evaluation"]["covered"], 0);
    let err = run_builtin(&bench, "oracle", instance, 1, &mut |_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(err, BenchError::UnknownAgent { .. }) && err.to_string().contains("reference"),
        "{err}"
    );
    let err = run_builtin(&bench, "reference", "nope#optimal", 1, &mut |_| {})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
    let err = run_builtin(
        &bench,
        "reference",
        "basic_file_processing_0001#sideways",
        1,
        &mut |_| {},
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("sideways"), "{err}");
}

#[tokio::test]
async fn intent_reference_scores_one_everywhere_and_faults_score_less() {
    let bench = intent();
    let data = load_clean(&root().join("tasks/intent2tx/default/instances.jsonl")).unwrap();
    let direct: Vec<String> = bench
        .instances()
        .into_iter()
        .filter(|i| i.ends_with("#direct"))
        .collect();
    assert!(direct.len() >= 300);
    for instance in &direct {
        let rec = run_builtin(&bench, "reference", instance, 0, &mut |_| {})
            .await
            .unwrap();
        assert_eq!(rec.score, 1.0, "{instance}");
        assert!(rec.passed && rec.outcome == "pass");
        // The trace can show expected beside answered values: the truth is stored with the sample.
        let id = instance.trim_end_matches("#direct");
        let truth = &data.iter().find(|i| i.id == id).unwrap().ground_truth;
        assert_eq!(
            rec.details["ground_truth"],
            serde_json::to_value(truth).unwrap(),
            "{instance}"
        );
    }
    let mut lowered = 0;
    for instance in direct.iter().take(40) {
        let rec = run_builtin(&bench, "wrong-contract", instance, 0, &mut |_| {})
            .await
            .unwrap();
        if rec.score < 1.0 {
            lowered += 1;
        }
    }
    assert_eq!(
        lowered, 40,
        "the wrong-contract fault changes every instance's logic score"
    );
}

struct Failing;
impl Agent for Failing {
    fn name(&self) -> &str {
        "failing"
    }
    fn respond<'a>(
        &'a mut self,
        _: AgentRequest<'a>,
    ) -> BoxFuture<'a, Result<AgentTurn, AgentError>> {
        Box::pin(async {
            Err(AgentError::Provider {
                message: "HTTP 500 after 5 attempts".into(),
                retryable: false,
            })
        })
    }
}

#[tokio::test]
async fn a_provider_failure_or_garbage_is_a_recorded_sample_not_a_crash() {
    let bench = intent();
    let instance = bench.instances()[1].clone();
    assert!(instance.ends_with("#retrieval"));
    let rec = bench
        .run(&instance, &mut Failing, 0, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(rec.outcome, "format_error");
    assert_eq!(rec.score, 0.0);
    assert!(rec.details["agent_error"]
        .as_str()
        .unwrap()
        .contains("HTTP 500"));
    assert!(
        !rec.details["demonstrations"].as_array().unwrap().is_empty(),
        "retrieval shows demonstrations"
    );
    let mut garbage = ScriptedAgent::new(
        "garbage",
        ["```json\n{\"contract\": [1,2,\n```\u{0}\u{ffff}".to_string()],
    );
    let rec = bench
        .run(&instance, &mut garbage, 0, &mut |_| {})
        .await
        .unwrap();
    assert!(rec.score < 0.5);
    assert_eq!(rec.transcript.last().unwrap().role, Role::Assistant);
    let rec = bench
        .run(&bench.instances()[0], &mut Failing, 0, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(
        rec.transcript.len(),
        3,
        "system, user, and the (empty) assistant answer"
    );
}

#[tokio::test]
async fn intent_samples_carry_exec_and_state_eq_when_an_executor_is_attached() {
    let executor = crucible_intent2tx::execute::Executor::boot(
        &crate::support::config(),
        AddressBook::builtin(),
    )
    .await
    .unwrap();
    let bench = intent().with_executor(executor);
    let direct: Vec<String> = bench
        .instances()
        .into_iter()
        .filter(|i| i.ends_with("#direct"))
        .take(25)
        .collect();
    let mut reversed_differs = 0;
    for instance in &direct {
        let mut txs = 0;
        let rec = run_builtin(&bench, "reference", instance, 0, &mut |e| {
            if matches!(e, Event::Note { kind, .. } if kind == "tx") {
                txs += 1;
            }
        })
        .await
        .unwrap();
        let ex = &rec.details["execution"];
        assert_eq!(ex["truth_executes"], true, "{instance}");
        assert_eq!(ex["exec"], true, "{instance}");
        assert_eq!(ex["state_eq"], true, "{instance}: {ex}");
        assert!(txs >= 1, "the executed steps are streamed");
        let rec = run_builtin(&bench, "logic-reversal", instance, 0, &mut |_| {})
            .await
            .unwrap();
        if rec.details["execution"]["state_eq"] == false {
            reversed_differs += 1;
        }
    }
    assert!(
        reversed_differs >= 10,
        "logic reversal changes effects: {reversed_differs}/25"
    );
}
