//! The store contract's tests (docs/store.md), run on both backends: each body below is
//! generic over [`RunStore`] and runs once on a fresh SQLite file and once on a fresh database
//! of a throwaway PostgreSQL server ([`crate::LocalServer`]). Backend-only behaviour (SQLite's
//! mirror reads, damage recovery, read-only handles) is tested beside each backend.

use serde_json::Value;

use crate::{
    NewOverride, NewReplay, NewRun, NewSample, ReplayKind, RunStore, SampleRow, StoreError,
};
use crucible_core::{Outcome, RunStatus};

/// A sample row with the given identity (test data).
pub(crate) fn row(run: &str, instance: &str, round: i64) -> SampleRow {
    SampleRow {
        run_id: run.into(),
        benchmark: "pilot".into(),
        model: "builtin:reference".into(),
        instance: instance.into(),
        task: instance.split('#').next().unwrap_or_default().into(),
        prompt_type: "optimal".into(),
        round,
        seed: -5,
        kind: "k".into(),
        category: String::new(),
        subcategory: String::new(),
        difficulty: "easy".into(),
        outcome: Outcome::FullSuccess,
        score: 1.0,
        passed: true,
        metrics: "{\"turns\":3}".into(),
        details: "{}".into(),
        prompt: "p".into(),
        raw_answer: "a".into(),
        k_act: None,
        k_opt: Some(2),
        tokens_in: 1,
        tokens_out: 2,
        cost_usd: 0.5,
        latency_ms: 7,
        error: None,
        finished_at: "2026-01-01T00:00:00Z".into(),
        score_paper: None,
        passed_paper: None,
        prompt_set: "paper".into(),
    }
}

pub(crate) fn new_run(id: &str, created: &str) -> NewRun {
    NewRun {
        id: id.into(),
        created_at: created.into(),
        seed: u64::MAX,
        spec: "{}".into(),
        versions: "{}".into(),
        planned: 3,
        models: vec![("builtin:reference".into(), "{}".into())],
        notes: Default::default(),
    }
}

pub(crate) async fn every_query_runs_against_a_migrated_database<S: RunStore>(store: S) {
    store
        .create_run(&new_run("run-a", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    store
        .create_run(&new_run("run-b", "2026-01-02T00:00:00Z"))
        .await
        .unwrap();
    let s = NewSample {
        row: row("run-a", "t1#optimal", 0),
        events: vec!["{\"event\":\"turn\"}".into(), "{}".into()],
        artefacts: vec![("tx".into(), "{\"to\":\"0x1\"}".into())],
    };
    let id = store.insert_sample(&s).await.unwrap();
    let mut failed = row("run-a", "t2#optimal", 0);
    failed.outcome = Outcome::AgentError;
    failed.passed = false;
    store
        .insert_samples(&[NewSample {
            row: failed,
            events: vec![],
            artefacts: vec![],
        }])
        .await
        .unwrap();
    // Committing the same sample again (a racing resume) keeps the first result and transcript.
    let mut again = s.clone();
    again.row.score = 0.0;
    again.events = vec!["{\"event\":\"other\"}".into()];
    assert_eq!(store.insert_sample(&again).await.unwrap(), id, "same row");
    assert_eq!(store.events(id).await.unwrap(), s.events);
    let long = NewSample {
        row: row("run-b", "t9#cot", 0),
        events: (0..1_203).map(|i| format!("{{\"i\":{i}}}")).collect(),
        artefacts: (0..501)
            .map(|i| ("tx".to_string(), i.to_string()))
            .collect(),
    };
    let long_id = store.insert_sample(&long).await.unwrap();
    assert_eq!(
        store.events(long_id).await.unwrap(),
        long.events,
        "in order, across chunks"
    );
    assert_eq!(store.artefacts(long_id).await.unwrap(), long.artefacts);
    assert_eq!(store.artefacts(id).await.unwrap(), s.artefacts);
    let samples = store.samples("run-a").await.unwrap();
    assert_eq!(samples.len(), 2);
    assert_eq!(samples[0].1, s.row, "a row reads back unchanged");
    assert_eq!(store.done("run-a").await.unwrap().len(), 2);
    store.log("run-a", "{\"x\":1}").await.unwrap();
    store.log("run-a", "{\"x\":2}").await.unwrap();
    assert_eq!(store.run_log("run-a").await.unwrap().len(), 2);
    store
        .set_status("run-a", RunStatus::Finished, Some("2026-01-01T01:00:00Z"))
        .await
        .unwrap();
    let r = store.run("run-a").await.unwrap();
    assert_eq!((r.status.as_str(), r.seed as u64), ("finished", u64::MAX));
    let list = store.runs().await.unwrap();
    assert_eq!(list[0].run_id, "run-b", "newest first");
    assert_eq!(
        (list[1].finished, list[1].failed, list[1].passed),
        (2, 1, 1)
    );
    assert_eq!(store.models("run-a").await.unwrap().len(), 1);
    let e = store.run("nope").await.unwrap_err();
    assert!(e.to_string().contains("\"nope\""), "{e}");
    let e = store
        .set_status("nope", RunStatus::Failed, None)
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::UnknownRun(_)));
}

pub(crate) async fn bulk_inserts_span_statements_and_keep_every_field<S: RunStore>(store: S) {
    store
        .create_run(&new_run("run-a", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    let mut batch: Vec<NewSample> = (0..450)
        .map(|i| NewSample {
            row: row("run-a", &format!("t{i:03}#cot"), 0),
            events: vec![],
            artefacts: vec![],
        })
        .collect();
    batch[7].events = vec!["{}".into()];
    store.insert_samples(&batch).await.unwrap();
    let stored = store.samples("run-a").await.unwrap();
    assert_eq!(stored.len(), 450);
    for ((_, got), want) in stored.iter().zip(&batch) {
        assert_eq!(got, &want.row);
    }
    assert_eq!(store.events(stored[7].0).await.unwrap().len(), 1);
}

pub(crate) async fn a_run_has_one_lease_holder_until_it_expires_or_is_released<S: RunStore>(
    store: S,
) {
    let who = |name: &str, pid: u32| crate::LeaseHolder {
        name: name.into(),
        pid,
        host: "h".into(),
    };
    store
        .create_run(&new_run("r1", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    store
        .acquire_lease("r1", &who("proc A", 1), "ta", 60)
        .await
        .unwrap();
    // The holder may take it again; another is refused, and told who holds it.
    store
        .acquire_lease("r1", &who("proc A", 1), "ta", 60)
        .await
        .unwrap();
    match store.acquire_lease("r1", &who("proc B", 2), "tb", 60).await {
        Err(StoreError::Leased {
            holder,
            expires_in_s,
            ..
        }) => {
            assert_eq!(holder, "proc A");
            assert!(expires_in_s > 50, "{expires_in_s}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        store.lease_holder("r1").await.unwrap(),
        Some(who("proc A", 1))
    );
    // Released: B takes it, and A's renewal now says it lost the lease.
    store.release_lease("r1", "ta").await.unwrap();
    store
        .acquire_lease("r1", &who("proc B", 2), "tb", 1)
        .await
        .unwrap();
    assert!(matches!(
        store.renew_lease("r1", "ta", 60).await,
        Err(StoreError::LeaseLost(_))
    ));
    // B stops renewing: after its second, C may take the run over.
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert_eq!(store.lease_holder("r1").await.unwrap(), None);
    store
        .acquire_lease("r1", &who("proc C", 3), "tc", 60)
        .await
        .unwrap();
    // Breaking names the holder: a stale view of who held it breaks nothing.
    assert!(!store.break_lease("r1", &who("proc B", 2)).await.unwrap());
    assert!(store.break_lease("r1", &who("proc C", 3)).await.unwrap());
    store
        .acquire_lease("r1", &who("proc D", 4), "td", 60)
        .await
        .unwrap();
    // Not deleted from under its holder; released, deleting the run leaves no lease behind.
    assert!(matches!(
        store.delete_run("r1").await,
        Err(StoreError::Leased { .. })
    ));
    store.release_lease("r1", "td").await.unwrap();
    store.delete_run("r1").await.unwrap();
    assert_eq!(store.lease_holder("r1").await.unwrap(), None);
}

pub(crate) async fn every_read_of_reports_and_views_runs_against_a_migrated_database<
    S: RunStore,
>(
    store: S,
) -> i64 {
    use crate::TextColumn;
    store
        .create_run(&new_run("run-a", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    store
        .create_run(&new_run("run-b", "2026-01-02T00:00:00Z"))
        .await
        .unwrap();
    let mut a = row("run-a", "t1#optimal", 0);
    a.prompt = "é".repeat(10);
    a.raw_answer = "answer".into();
    let id_a = store
        .insert_sample(&NewSample {
            row: a.clone(),
            events: vec!["{}".into()],
            artefacts: vec![],
        })
        .await
        .unwrap();
    let mut b = row("run-a", "t1#optimal", 0);
    b.model = "builtin:other".into();
    b.score = 0.0;
    b.passed = false;
    let mut odd = row("run-a", "t2#optimal", 0);
    odd.benchmark = "swebench".into();
    store
        .insert_samples(&[
            NewSample {
                row: b,
                events: vec![],
                artefacts: vec![],
            },
            NewSample {
                row: odd,
                events: vec![],
                artefacts: vec![],
            },
        ])
        .await
        .unwrap();

    let heads = store.run_heads().await.unwrap();
    assert_eq!(heads[0].id, "run-b", "newest first");
    assert_eq!(
        store.newest_run_id().await.unwrap().as_deref(),
        Some("run-b")
    );
    assert_eq!(store.run_ids().await.unwrap(), ["run-a", "run-b"]);
    assert_eq!(
        store.model_names("run-a").await.unwrap(),
        ["builtin:reference"]
    );
    assert!(store.model_names("run-nope").await.unwrap().is_empty());

    let mut seen = Vec::new();
    store
        .report_rows("run-a", |_, r| {
            seen.push((r.benchmark.to_string(), r.model.to_string(), r.passed))
        })
        .await
        .unwrap();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0], ("pilot".into(), "builtin:reference".into(), true));
    let mut ids = Vec::new();
    store
        .report_rows("run-a", |id, _| ids.push(id))
        .await
        .unwrap();
    let max = *ids.iter().max().unwrap();
    assert_eq!(ids[0], id_a, "id order is insert order");
    let briefs = store.sample_briefs(&[max, id_a]).await.unwrap();
    assert_eq!(briefs.iter().map(|b| b.id).collect::<Vec<_>>(), [id_a, max]);
    assert!(store.sample_briefs(&[]).await.unwrap().is_empty());
    let d = store.sample_detail(id_a, 3).await.unwrap().unwrap();
    assert_eq!(
        (d.prompt.as_str(), d.prompt_bytes),
        ("ééé", 20),
        "characters, bytes"
    );
    assert_eq!((d.raw_answer.as_str(), d.answer_bytes), ("ans", 6));
    assert_eq!(d.summary.instance, "t1#optimal");
    assert!(store.sample_detail(987_654, 3).await.unwrap().is_none());
    assert_eq!(
        store.sample_text(id_a, TextColumn::Prompt).await.unwrap(),
        Some(a.prompt.clone())
    );
    let rec = store.sample_record(id_a).await.unwrap().unwrap();
    assert_eq!(rec["id"], id_a);
    assert_eq!(rec["metrics"], "{\"turns\":3}", "texts are not parsed");
    assert_eq!(rec["k_act"], Value::Null);
    assert_eq!(rec["score"], 1.0);
    assert_eq!(rec["passed"], 1, "a verdict as 0/1 on both backends");
    assert_eq!(
        rec.keys().nth(1).map(String::as_str),
        Some("run_id"),
        "table order"
    );
    let s = store.stored_sample(id_a).await.unwrap().unwrap();
    assert_eq!((s.seed, s.passed, s.k_act), (-5, true, None));
    let ans = store.answer(id_a).await.unwrap().unwrap();
    assert_eq!(
        (ans.benchmark.as_str(), ans.raw_answer.as_str()),
        ("pilot", "answer")
    );
    let pairs = store
        .model_pairs("run-a", "builtin:reference", "builtin:other")
        .await
        .unwrap();
    assert_eq!(pairs.len(), 1);
    assert_eq!(
        (pairs[0].id_a, pairs[0].passed_a, pairs[0].passed_b),
        (id_a, true, false)
    );
    id_a
}

pub(crate) async fn overrides_keep_the_scorers_verdict_and_go_with_their_run<S: RunStore>(
    store: S,
) {
    for id in ["run-a", "run-b"] {
        store
            .create_run(&NewRun {
                id: id.into(),
                created_at: "2026-01-01T00:00:00Z".into(),
                seed: 1,
                spec: "{}".into(),
                versions: r#"{"crucible":"9.8.7"}"#.into(),
                planned: 1,
                models: vec![],
                notes: Default::default(),
            })
            .await
            .unwrap();
    }
    let mut failed = row("run-a", "t1#optimal", 0);
    failed.score = 0.25;
    failed.passed = false;
    let a = store
        .insert_sample(&NewSample {
            row: failed,
            events: vec![],
            artefacts: vec![],
        })
        .await
        .unwrap();
    let b = store
        .insert_sample(&NewSample {
            row: row("run-b", "t1#optimal", 0),
            events: vec![],
            artefacts: vec![],
        })
        .await
        .unwrap();
    let first = NewOverride::try_new(
        a,
        true,
        None,
        "the balance check read the wrong token",
        "Ada",
    )
    .unwrap();
    let o = store
        .add_override(&first, "2026-02-01T00:00:00Z")
        .await
        .unwrap();
    assert_eq!(
        (o.sample_id, o.run_id.as_str(), o.passed, o.score),
        (a, "run-a", true, 1.0)
    );
    assert_eq!(
        (
            o.original_passed,
            o.original_score,
            o.scorer_version.as_str()
        ),
        (false, 0.25, "9.8.7")
    );
    assert_eq!(o.reviewer, "Ada");
    // A second opinion is kept too; the sample's own row never changes.
    let second = NewOverride::try_new(a, false, Some(0.1), "on reflection, no", "Bo").unwrap();
    store
        .add_override(&second, "2026-02-02T00:00:00Z")
        .await
        .unwrap();
    let other = NewOverride::try_new(b, false, None, "wrong", "Bo").unwrap();
    store
        .add_override(&other, "2026-02-03T00:00:00Z")
        .await
        .unwrap();
    let of_a = store.overrides(Some("run-a")).await.unwrap();
    assert_eq!(of_a.len(), 2);
    assert_eq!(
        (of_a[1].passed, of_a[1].score, of_a[1].original_score),
        (false, 0.1, 0.25)
    );
    assert_eq!(store.overrides(None).await.unwrap().len(), 3);
    let (_, stored) = store.samples("run-a").await.unwrap().remove(0);
    assert_eq!((stored.score, stored.passed), (0.25, false));
    // A confirmation copies the scorer's verdict and is marked as such.
    let yes = NewOverride::try_confirm(b, "", "Cy").unwrap();
    let c = store
        .add_override(&yes, "2026-02-03T01:00:00Z")
        .await
        .unwrap();
    assert_eq!(
        (c.kind.as_str(), c.passed, c.score, c.note.as_str()),
        ("confirm", true, 1.0, "")
    );
    assert_eq!(o.kind, "override");
    // An unknown sample is named, and nothing is written.
    let ghost = NewOverride::try_new(a + 100, true, None, "n", "Ada").unwrap();
    let e = store
        .add_override(&ghost, "2026-02-04T00:00:00Z")
        .await
        .unwrap_err();
    assert!(
        matches!(e, StoreError::UnknownSample(id) if id == a + 100),
        "{e}"
    );
    assert_eq!(store.overrides(None).await.unwrap().len(), 4);
    // Deleting a run deletes its overrides and no other's.
    store.delete_run("run-a").await.unwrap();
    let left = store.overrides(None).await.unwrap();
    assert_eq!((left.len(), left[0].run_id.as_str()), (2, "run-b"));
}

pub(crate) async fn replays_are_kept_per_sample_and_go_with_their_run<S: RunStore>(store: S) {
    store
        .create_run(&NewRun {
            id: "run-a".into(),
            created_at: "2026-01-01T00:00:00Z".into(),
            seed: 1,
            spec: "{}".into(),
            versions: "{}".into(),
            planned: 1,
            models: vec![],
            notes: Default::default(),
        })
        .await
        .unwrap();
    let id = store
        .insert_sample(&NewSample {
            row: row("run-a", "t1#optimal", 0),
            events: vec![],
            artefacts: vec![],
        })
        .await
        .unwrap();
    let replay = |sample_id, agrees| NewReplay {
        sample_id,
        mode: ReplayKind::Reexecute,
        agrees,
        fresh_outcome: Outcome::Revert,
        fresh_score: f64::NAN,
        differences: serde_json::json!([{"field": "outcome", "stored": "exact", "fresh": "revert"}]),
    };
    let r = store
        .add_replay(&replay(id, false), "2026-02-01T00:00:00Z")
        .await
        .unwrap();
    assert_eq!(
        (r.sample_id, r.run_id.as_str(), r.agrees),
        (id, "run-a", false)
    );
    assert_eq!(
        r.fresh_score, 0.0,
        "a score that is not a number is stored as 0"
    );
    assert_eq!(r.differences[0]["fresh"], "revert");
    store
        .add_replay(&replay(id, true), "2026-02-02T00:00:00Z")
        .await
        .unwrap();
    let all = store.replays(Some("run-a")).await.unwrap();
    assert_eq!(
        all.iter().map(|r| r.agrees).collect::<Vec<_>>(),
        [false, true]
    );
    // An unknown sample stores nothing and says which.
    let e = store
        .add_replay(&replay(id + 99, true), "2026-02-03T00:00:00Z")
        .await
        .unwrap_err();
    assert!(
        matches!(e, StoreError::UnknownSample(n) if n == id + 99),
        "{e}"
    );
    assert_eq!(store.replays(None).await.unwrap().len(), 2);
    store.delete_run("run-a").await.unwrap();
    assert!(store.replays(None).await.unwrap().is_empty());
}

/// The explorer's mirror reads (both backends keep sample ids in the order samples become
/// visible).
pub(crate) async fn the_explorers_mirror_reads_follow_the_store(store: crate::AnyStore) {
    let id_a =
        every_read_of_reports_and_views_runs_against_a_migrated_database(store.clone()).await;
    assert_eq!(store.run_id_set().await.unwrap().len(), 2);
    let mut after = Vec::new();
    store
        .report_rows_after(id_a, |id, run, r| {
            after.push((id, run.to_string(), r.score))
        })
        .await
        .unwrap();
    assert_eq!(after.len(), 2);
    assert!(after
        .iter()
        .all(|(id, run, _)| *id > id_a && run == "run-a"));
    let mut by_id = 0;
    store
        .report_rows_with_ids(&[id_a, 987_654], |id, _, r| {
            assert_eq!((id, r.cost_usd, r.k_opt), (id_a, 0.5, Some(2)));
            by_id += 1;
        })
        .await
        .unwrap();
    assert_eq!(by_id, 1);

    let max = store.max_sample_id().await.unwrap();
    assert_eq!(max, after.last().unwrap().0);
    assert_eq!(
        store.count_known_up_to(max).await.unwrap(),
        2,
        "swebench is not counted"
    );
    assert!(store.known_sample_below(None).await.unwrap().is_some());
    assert_eq!(store.known_sample_below(Some(id_a)).await.unwrap(), None);
}

/// A sample's model calls (from its details: calls, answers cut at the token limit, calls with
/// no price) are columns the report rows carry and `model_usage` sums per model; an unpriced
/// call keeps the model's cost unknown instead of adding 0.
pub(crate) async fn truncated_and_unpriced_calls_are_counted_per_model<S: RunStore>(store: S) {
    store
        .create_run(&new_run("run-a", "2026-01-01T00:00:00Z"))
        .await
        .unwrap();
    let sample = |instance: &str, model: &str, details: &str, cost: f64| NewSample {
        row: SampleRow {
            model: model.into(),
            details: details.into(),
            cost_usd: cost,
            ..row("run-a", instance, 0)
        },
        events: vec![],
        artefacts: vec![],
    };
    let cut = r#"{"model_calls": 3, "truncated_calls": 1, "unpriced_calls": 0, "truncated": true}"#;
    let whole = r#"{"model_calls": 2, "truncated_calls": 0, "unpriced_calls": 0}"#;
    let unpriced = r#"{"model_calls": 2, "truncated_calls": 0, "unpriced_calls": 2}"#;
    store
        .insert_samples(&[
            sample("t1#optimal", "openai:gpt-5.1", cut, 0.25),
            sample("t2#optimal", "openai:gpt-5.1", whole, 0.5),
            sample("t1#optimal", "local:house", unpriced, 0.0),
            sample("t2#optimal", "local:house", "not json", 0.0),
        ])
        .await
        .unwrap();
    let mut rows = Vec::new();
    store
        .report_rows("run-a", |_, r| {
            rows.push((
                r.model.to_string(),
                r.model_calls,
                r.truncated_calls,
                r.unpriced_calls,
            ))
        })
        .await
        .unwrap();
    rows.sort();
    assert_eq!(
        rows,
        [
            ("local:house".to_string(), 0, 0, 0),
            ("local:house".to_string(), 2, 0, 2),
            ("openai:gpt-5.1".to_string(), 2, 0, 0),
            ("openai:gpt-5.1".to_string(), 3, 1, 0),
        ]
    );
    // The truncated sample reads back as stored, flag and counts with it.
    let back = store.samples("run-a").await.unwrap();
    let cut_back = back
        .iter()
        .map(|(_, s)| s)
        .find(|s| s.model == "openai:gpt-5.1" && s.instance == "t1#optimal")
        .unwrap();
    assert_eq!(cut_back.details, cut);
    assert_eq!(
        cut_back.calls(),
        crate::SampleCalls {
            model_calls: 3,
            truncated_calls: 1,
            unpriced_calls: 0
        }
    );
    assert_eq!(cut_back.cost().usd(), Some(0.25));
    let usage = store.model_usage("run-a").await.unwrap();
    assert_eq!(usage.len(), 2);
    let (house, gpt) = (&usage[0], &usage[1]);
    assert_eq!(gpt.model, "openai:gpt-5.1");
    assert_eq!(
        (
            gpt.samples,
            gpt.truncated_samples,
            gpt.model_calls,
            gpt.truncated_calls
        ),
        (2, 1, 5, 1)
    );
    assert_eq!(gpt.cost.usd(), Some(0.75));
    assert_eq!((house.cost.usd(), house.unpriced_samples), (None, 1));
    assert_eq!(house.cost.label(), "unpriced");
    assert_eq!(
        crate::ModelUsage::total(&usage).label(),
        "≥ $0.7500 + unpriced"
    );
}

/// Runs one statement as written (no placeholders) on either backend: how a test plants a row
/// no typed writer can produce.
async fn raw(store: &crate::AnyStore, sql: &str) {
    if let Some(s) = store.sqlite() {
        sqlx::query(sql).execute(&s.pool).await.unwrap();
    } else {
        let s = store.lab("a raw statement").unwrap();
        sqlx::query(sql).execute(&s.pool).await.unwrap();
    }
}

/// A run status or sample outcome this version does not know (a newer Crucible's, another tool's,
/// a hand edit) is read as `Unknown` by every read, never an error that fails the listing, and
/// the other rows read as they are; an unknown outcome is neither a pass nor an agent error.
pub(crate) async fn unknown_statuses_and_outcomes_read_as_unknown_not_as_errors(
    store: crate::AnyStore,
) {
    for id in ["run-a", "run-b"] {
        store
            .create_run(&new_run(id, "2026-01-01T00:00:00Z"))
            .await
            .unwrap();
    }
    let mut failed = row("run-a", "t2#cot", 0);
    failed.outcome = Outcome::AgentError;
    failed.passed = false;
    for r in [row("run-a", "t1#cot", 0), failed] {
        store
            .insert_sample(&NewSample {
                row: r,
                events: vec![],
                artefacts: vec![],
            })
            .await
            .unwrap();
    }
    raw(
        &store,
        "UPDATE samples SET outcome = 'from_the_future', passed = false WHERE instance = 't1#cot'",
    )
    .await;
    raw(
        &store,
        "UPDATE runs SET status = 'paused' WHERE id = 'run-a'",
    )
    .await;
    raw(
        &store,
        "UPDATE runs SET status = 'interrupted' WHERE id = 'run-b'",
    )
    .await;

    let run = store.run("run-a").await.unwrap();
    assert_eq!(run.status, RunStatus::Unknown);
    assert_eq!(store.run("run-b").await.unwrap().status, RunStatus::Unknown);
    let listed = store.runs().await.unwrap();
    assert_eq!(listed.len(), 2);
    let a = listed.iter().find(|r| r.run_id == "run-a").unwrap();
    assert_eq!(
        (a.status, a.finished, a.failed, a.passed),
        (RunStatus::Unknown, 2, 1, 0)
    );
    let heads = store.run_heads().await.unwrap();
    assert!(heads.iter().all(|h| h.status == RunStatus::Unknown));

    let samples = store.samples("run-a").await.unwrap();
    let outcomes: Vec<_> = samples.iter().map(|(_, s)| s.outcome).collect();
    assert_eq!(outcomes, [Outcome::Unknown, Outcome::AgentError]);
    let ids: Vec<i64> = samples.iter().map(|(id, _)| *id).collect();
    let mut reported = Vec::new();
    store
        .report_rows("run-a", |_, r| reported.push(r.outcome))
        .await
        .unwrap();
    assert_eq!(reported, [Outcome::Unknown, Outcome::AgentError]);
    let briefs = store.sample_briefs(&ids).await.unwrap();
    assert_eq!(briefs[0].outcome, Outcome::Unknown);
    assert!(store.sample_detail(ids[0], 10).await.unwrap().is_some());
    let stored = store.stored_sample(ids[0]).await.unwrap().unwrap();
    assert_eq!(stored.outcome, Outcome::Unknown);
    // Only agent errors are counted as errors.
    assert_eq!(store.error_reasons("run-a", 5).await.unwrap().len(), 1);
}

/// A fresh PostgreSQL store: a new database on this process's throwaway server.
pub(crate) async fn pg_store() -> crate::PgStore {
    let server = crate::LocalServer::shared()
        .unwrap_or_else(|e| panic!("{e} (bash .ci/setup installs PostgreSQL)"));
    let url = server.fresh_database().await.unwrap();
    crate::PgStore::connect(&url, None).await.unwrap()
}

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    let dir = tempfile::tempdir().unwrap();
                    let store = crate::Store::open(&dir.path().join("c.db")).await.unwrap();
                    let store: crate::AnyStore = store.into();
                    let _ = super::$name(store).await;
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test]
                async fn $name() {
                    let store: crate::AnyStore = super::pg_store().await.into();
                    let _ = super::$name(store).await;
                }
            )*
        }
    };
}

on_both_backends!(
    every_query_runs_against_a_migrated_database,
    bulk_inserts_span_statements_and_keep_every_field,
    every_read_of_reports_and_views_runs_against_a_migrated_database,
    a_run_has_one_lease_holder_until_it_expires_or_is_released,
    overrides_keep_the_scorers_verdict_and_go_with_their_run,
    replays_are_kept_per_sample_and_go_with_their_run,
    the_explorers_mirror_reads_follow_the_store,
    truncated_and_unpriced_calls_are_counted_per_model,
    unknown_statuses_and_outcomes_read_as_unknown_not_as_errors,
);

/// A run pushed from a file to a lab store and pulled back into another file arrives whole: the
/// same row, samples in stored order with transcripts and artefacts, log, overrides, replays.
#[tokio::test]
async fn a_run_copied_to_a_lab_store_and_back_arrives_whole() {
    use crate::{copy_run, Store};
    let dir = tempfile::tempdir().unwrap();
    let local = Store::open(&dir.path().join("a.db")).await.unwrap();
    let mut run = new_run("run-c", "2026-01-01T00:00:00Z");
    run.notes = crate::RunNotes::try_new(Some("lab copy"), Some("note")).unwrap();
    local.create_run(&run).await.unwrap();
    // Stored out of key order, so id order and key order differ.
    for (i, inst) in ["t9#cot", "t1#cot", "t5#cot"].iter().enumerate() {
        local
            .insert_sample(&NewSample {
                row: row("run-c", inst, 0),
                events: vec![format!("{{\"e\":{i}}}")],
                artefacts: vec![("tx".into(), format!("{i}"))],
            })
            .await
            .unwrap();
    }
    local.log("run-c", "{\"started\":1}").await.unwrap();
    let first = local.samples("run-c").await.unwrap()[0].0;
    let o = NewOverride::try_new(first, false, Some(0.5), "half right", "Ada").unwrap();
    local
        .add_override(&o, "2026-02-01T00:00:00Z")
        .await
        .unwrap();
    local
        .set_status("run-c", RunStatus::Finished, Some("2026-01-01T01:00:00Z"))
        .await
        .unwrap();

    let lab = pg_store().await;
    let pushed = copy_run(&local, &lab, "run-c", "lab").await.unwrap();
    assert_eq!((pushed.samples, pushed.overrides), (3, 1));
    let e = copy_run(&local, &lab, "run-c", "the lab store")
        .await
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("the lab store already holds run run-c"),
        "{e}"
    );
    let back = Store::open(&dir.path().join("b.db")).await.unwrap();
    copy_run(&lab, &back, "run-c", "b.db").await.unwrap();
    let (a, b) = (
        local.run("run-c").await.unwrap(),
        back.run("run-c").await.unwrap(),
    );
    assert_eq!(a, b);
    let order = |s: &Store| {
        let s = s.clone();
        async move {
            let mut v = Vec::new();
            s.report_rows("run-c", |_, r| v.push(r.instance.to_string()))
                .await
                .unwrap();
            v
        }
    };
    assert_eq!(order(&local).await, ["t9#cot", "t1#cot", "t5#cot"]);
    assert_eq!(order(&back).await, order(&local).await);
    for ((ia, sa), (ib, sb)) in local
        .samples("run-c")
        .await
        .unwrap()
        .iter()
        .zip(back.samples("run-c").await.unwrap().iter())
    {
        assert_eq!(sa, sb);
        assert_eq!(
            local.events(*ia).await.unwrap(),
            back.events(*ib).await.unwrap()
        );
        assert_eq!(
            local.artefacts(*ia).await.unwrap(),
            back.artefacts(*ib).await.unwrap()
        );
    }
    assert_eq!(back.run_log("run-c").await.unwrap(), ["{\"started\":1}"]);
    let ov = back.overrides(Some("run-c")).await.unwrap();
    assert_eq!(
        (ov[0].score, ov[0].note.as_str(), ov[0].created_at.as_str()),
        (0.5, "half right", "2026-02-01T00:00:00Z")
    );
    // An unknown run is named, and nothing is written.
    let e = copy_run(&local, &lab, "run-nope", "lab").await.unwrap_err();
    assert!(matches!(e, StoreError::UnknownRun(_)), "{e}");
}
