//! Scheduling does not change results: the same seeded QuestBench (atomic and composite) and
//! executed Intent2Tx samples, answered by a real OpenAI-compatible HTTP server replaying the
//! reference agent's answers, stored once with chain samples holding their chain while the model
//! answers (the old scheduling: one chain, one sample at a time) and once split (model calls in
//! flight together, chains leased for execution only, composites keeping theirs between rounds)
//! — and every stored sample, event and artefact is the same, timings aside.

use std::collections::BTreeMap;
use std::time::Duration;

use crucible_catalog::catalog::loader;
use crucible_llm::Loopback;
use crucible_run::{self as run, ChainScheduling, RunContext, RunSpec};
use crucible_store::Store;
use serde_json::Value;

/// Drops what measures time (`…_ms` fields, stage timings), recursively.
fn untimed(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                // `state_diff`: the chain inspector's evidence records storage that follows the
                // block timestamp (an AMM's `blockTimestampLast` and price accumulators), and
                // Intent2Tx blocks carry the wall clock; balances, logs and scores are compared.
                .filter(|(k, _)| !k.ends_with("_ms") && k != "stages" && k != "state_diff")
                .map(|(k, v)| (k, untimed(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(untimed).collect()),
        other => other,
    }
}

fn untimed_text(s: &str) -> Value {
    untimed(serde_json::from_str(s).unwrap_or(Value::String(s.to_string())))
}

type Stored = BTreeMap<(String, String, i64), Value>;

/// Every stored sample of a run with its events and artefacts, timings and run ids removed.
async fn stored(store: &Store, run_id: &str) -> Stored {
    let mut out = BTreeMap::new();
    for (id, s) in store.samples(run_id).await.unwrap() {
        let mut row = serde_json::to_value(&s).unwrap();
        for k in ["run_id", "latency_ms", "finished_at"] {
            row.as_object_mut().unwrap().remove(k);
        }
        for k in ["details", "metrics"] {
            let text = row[k].as_str().unwrap_or_default().to_string();
            row[k] = untimed_text(&text);
        }
        let events: Vec<Value> = store
            .events(id)
            .await
            .unwrap()
            .iter()
            .map(|e| untimed_text(e))
            .collect();
        let artefacts: Vec<Value> = store
            .artefacts(id)
            .await
            .unwrap()
            .iter()
            .map(|(k, v)| serde_json::json!([k, untimed_text(v)]))
            .collect();
        out.insert(
            (s.benchmark.clone(), s.instance.clone(), s.round),
            serde_json::json!({"row": untimed(row), "events": events, "artefacts": artefacts}),
        );
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn split_and_held_scheduling_store_the_same_seeded_samples() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.path().to_path_buf();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let ctx = RunContext::new(config.clone(), store.clone(), loader());

    // Three atomic and three composite QuestBench tasks, six executed Intent2Tx instances
    // (both prompt types), two rounds: the reference agent's conversations first.
    let mut base = RunSpec::new(
        vec!["questbench".into(), "intent2tx".into()],
        vec!["builtin:reference".into()],
    );
    base.limit = Some(6);
    base.rounds = 2;
    base.seed = 11;
    base.cache = false;
    crucible_catalog::catalog::select_demo_quest(&config, &mut base, 3).unwrap();
    let reference = run::start(&ctx, base.clone()).await.unwrap();
    let (script, calls) = crucible_bench::throughput::script_of(&store, &reference.run_id)
        .await
        .unwrap();
    assert!(
        calls.iter().any(|n| *n > 2),
        "no multi-round episode in the selection: {calls:?}"
    );

    let mut runs = Vec::new();
    for (scheduling, concurrency, workers) in [
        (ChainScheduling::Held, 1, 1),
        (ChainScheduling::Split, 8, 2),
    ] {
        // A fresh server per run, so its counters are the run's.
        let server = Loopback::start_scripted(Duration::from_millis(40), script.clone())
            .await
            .unwrap();
        let mut s = base.clone();
        s.models = vec!["openai-compatible:loopback".into()];
        s.base_url = Some(server.base_url());
        s.chain_scheduling = scheduling;
        s.concurrency = concurrency;
        s.chain_workers = workers;
        let report = run::start(&ctx, s).await.unwrap();
        assert_eq!(report.status, "finished", "{scheduling:?}");
        assert_eq!(
            server.scripted(),
            server.requests(),
            "{scheduling:?}: a call was not answered with the recorded answer, so the \
             conversation differed from the reference's"
        );
        runs.push((report.run_id, server.max_in_flight()));
    }
    let (held_id, held_parallel) = &runs[0];
    let (split_id, split_parallel) = &runs[1];
    assert_eq!(*held_parallel, 1, "the held run made calls in parallel");
    assert!(
        *split_parallel > 2,
        "the split run never had more than {split_parallel} model calls in flight"
    );

    let held = stored(&store, held_id).await;
    let split = stored(&store, split_id).await;
    assert_eq!(held.len(), reference.samples as usize);
    assert_eq!(
        held.keys().collect::<Vec<_>>(),
        split.keys().collect::<Vec<_>>()
    );
    for (k, h) in &held {
        assert_eq!(
            h, &split[k],
            "sample {k:?} differs between held and split scheduling"
        );
    }
    // The replayed answers are right, so the samples really executed and passed.
    let passed = held.values().filter(|v| v["row"]["passed"] == true).count();
    assert_eq!(passed, held.len(), "a replayed reference answer failed");
    let composites = held
        .values()
        .filter(|v| v["row"]["k_act"].as_i64().unwrap_or(0) > 1)
        .count();
    assert!(
        composites >= 3,
        "only {composites} multi-round composite samples"
    );
}

/// Every `Progress::Load` of a run of `spec`.
async fn loads(spec: RunSpec) -> Vec<(usize, usize, Option<run::ChainLoad>, run::Limit)> {
    let dir = tempfile::tempdir().unwrap();
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.path().to_path_buf();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let mut ctx = RunContext::new(config, store, loader());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    ctx.progress = Some(tx);
    let report = run::start(&ctx, spec).await.unwrap();
    assert_eq!(report.status, "finished");
    drop(ctx);
    let mut out = Vec::new();
    while let Some(p) = rx.recv().await {
        if let run::Progress::Load {
            calls_in_flight,
            concurrency,
            chain,
            limit,
        } = p
        {
            out.push((calls_in_flight, concurrency, chain, limit));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_load_names_the_provider_or_the_chain_as_the_limit() {
    // A slow provider and nothing on a chain: model calls in flight, the provider limits.
    let server = Loopback::start(Duration::from_millis(400)).await.unwrap();
    let mut s = RunSpec::new(
        vec!["intent2tx".into()],
        vec!["openai-compatible:slow".into()],
    );
    s.base_url = Some(server.base_url());
    s.set_option("intent2tx", "execute", false);
    s.cache = false;
    s.limit = Some(16);
    s.prompt_types = vec!["direct".into()];
    s.concurrency = 8;
    let seen = loads(s).await;
    assert!(
        seen.iter().any(|(calls, conc, chain, limit)| *calls >= 4
            && *conc == 8
            && chain.is_none()
            && *limit == run::Limit::Provider),
        "{seen:?}"
    );

    // Built-in agents on QuestBench: no model to wait for, eight samples for two chains.
    let mut s = RunSpec::new(vec!["questbench".into()], vec!["builtin:reference".into()]);
    s.limit = Some(8);
    s.rounds = 2;
    s.concurrency = 8;
    s.chain_workers = 2;
    let seen = loads(s).await;
    assert!(
        seen.iter().any(|(calls, _, chain, limit)| *calls == 0
            && chain.is_some_and(|c| c.workers.size == 2 && c.nodes.size == 2)
            && *limit == run::Limit::Chain),
        "{seen:?}"
    );
}
