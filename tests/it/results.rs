//! The results explorer over a store written by the real `store` module (a `crucible demo` run of
//! built-in agents): the report it serves is byte-for-byte `crucible report --json`, comparisons
//! are `crucible compare --json`, exports are the CLI's files, sample listings page correctly, a
//! 10 MB answer is clipped with the whole text still reachable, and bad input gets named errors.

use crucible_core::Scoring;
use std::path::Path;

use crucible_store::{NewSample, Store};
use crucible_views::results::{self, Explorer, ResultsError, SampleFilter, CLIP_BYTES};
use crucible_views::trace::SampleView;
use serde_json::Value;

fn crucible(data: &Path, args: &[&str]) -> Value {
    serde_json::from_str(&crucible_text(data, args)).unwrap_or(Value::Null)
}

/// The command's stdout (it must succeed).
fn crucible_text(data: &Path, args: &[&str]) -> String {
    crate::support::crucible_ok(data, args)
}

/// The first differing line of two texts, for a readable failure.
fn first_diff(a: &str, b: &str) -> Option<(usize, String, String)> {
    a.lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| (i + 1, x.to_string(), y.to_string()))
}

fn config(data: &Path) -> crucible_core::Config {
    crucible_core::Config {
        data_dir: data.to_path_buf(),
        ..crucible_core::Config::test()
    }
}

fn filter(runs: &[&str]) -> SampleFilter {
    SampleFilter {
        runs: runs.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

/// A demo run plus a QuestBench + PILOT run of two of its agents with another seed (PILOT's
/// simulated faults then differ), in a fresh data dir.
async fn demo_store() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crucible.db");
    let dbs = db.to_str().unwrap();
    crucible(
        dir.path(),
        &[
            "demo", "--limit", "2", "--rounds", "1", "--db", dbs, "--json",
        ],
    );
    crucible(
        dir.path(),
        &[
            "run",
            "--bench",
            "questbench",
            "--bench",
            "pilot",
            "--model",
            "builtin:reference",
            "--model",
            "builtin:follows-plan",
            "--limit",
            "2",
            "--rounds",
            "1",
            "--seed",
            "5",
            "--db",
            dbs,
            "--json",
        ],
    );
    let ex = Explorer::open(&db).await.unwrap();
    let runs = ex.runs().await.unwrap();
    assert_eq!(runs.len(), 2, "{runs:?}");
    // Newest first: the second run (other seed, two of the demo's models), then the demo.
    let (only, demo) = (runs[0].run_id.clone(), runs[1].run_id.clone());
    assert_eq!(runs[0].benchmarks, ["pilot", "questbench"]);
    assert_eq!(
        runs[0].models,
        ["builtin:follows-plan", "builtin:reference"]
    );
    assert_eq!(runs[1].benchmarks, ["intent2tx", "pilot", "questbench"]);
    assert!(runs[1].samples > 0 && runs[1].passed < runs[1].samples);
    (dir, demo, only)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_explorer_serves_what_the_cli_prints_over_a_real_demo_store() {
    let (dir, demo, only) = demo_store().await;
    let db = dir.path().join("crucible.db");
    let dbs = db.to_str().unwrap();
    let ex = Explorer::open(&db).await.unwrap();
    let cfg = config(dir.path());

    // Leaderboards: the UI's report is the CLI's JSON, for one run and for both.
    for runs in [vec![demo.as_str()], vec![demo.as_str(), only.as_str()]] {
        let mut args = vec!["report", "--db", dbs, "--json"];
        for r in &runs {
            args.extend(["--run", r]);
        }
        let cli = crucible_text(dir.path(), &args);
        let ui = ex.report(&cfg, &filter(&runs), false).await.unwrap();
        let ui = serde_json::to_string_pretty(&ui).unwrap() + "\n";
        assert!(
            ui == cli,
            "report of {runs:?}: first difference {:?}",
            first_diff(&ui, &cli)
        );
        let cli: Value = serde_json::from_str(&cli).unwrap();
        assert!(cli["questbench"]["leaderboard"]
            .as_array()
            .is_some_and(|l| !l.is_empty()));
    }
    // The cached path gives the same report.
    let a = ex.loaded(&cfg, &filter(&[&demo]), false).await.unwrap();
    let b = ex.loaded(&cfg, &filter(&[&demo]), false).await.unwrap();
    assert!(
        std::sync::Arc::ptr_eq(&a, &b),
        "second ask is served from the cache"
    );

    // A category filter narrows the leaderboard to that category's samples.
    let all = ex
        .samples(
            &SampleFilter {
                benchmark: Some("questbench".into()),
                ..filter(&[&demo])
            },
            0,
            500,
        )
        .await
        .unwrap();
    let cat = all.rows[0].category.clone();
    let f = SampleFilter {
        benchmark: Some("questbench".into()),
        category: Some(cat.clone()),
        ..filter(&[&demo])
    };
    let narrowed = ex.report(&cfg, &f, true).await.unwrap();
    let in_cat = all.rows.iter().filter(|r| r.category == cat).count();
    assert_eq!(narrowed.samples, in_cat);
    assert!(narrowed.intent2tx.is_none() && narrowed.pilot.is_none());

    // Comparison: the CLI's JSON plus disagreements that really differ.
    let cli = crucible_text(
        dir.path(),
        &["compare", "--db", dbs, &demo, &only, "--json"],
    );
    let cmp = ex.compare(&demo, &only, 0, Scoring::Paper).await.unwrap();
    let ui = serde_json::to_string_pretty(&crucible_views::results::RunsCompareJson {
        compare: cmp.compare.clone(),
        verdicts: cmp.verdicts.clone(),
    })
    .unwrap()
        + "\n";
    assert!(
        ui == cli,
        "compare: first difference {:?}",
        first_diff(&ui, &cli)
    );
    assert!(!cmp.categories.is_empty());
    assert!(
        cmp.disagreements_total > 0,
        "another seed, other simulated faults"
    );
    assert_eq!(cmp.disagreements.len(), cmp.disagreements_total as usize);
    for d in &cmp.disagreements {
        assert!(d.passed_a != d.passed_b || d.score_a != d.score_b, "{d:?}");
        assert_eq!(d.model_a, d.model_b, "the runs share their models");
    }

    // Exports write the CLI's files, byte for byte.
    let cli_charts = dir.path().join("cli-charts");
    let cli_tables = dir.path().join("cli-tables");
    crucible(
        dir.path(),
        &[
            "report",
            "--db",
            dbs,
            "--run",
            &demo,
            "--charts",
            cli_charts.to_str().unwrap(),
        ],
    );
    crucible(
        dir.path(),
        &[
            "report",
            "--db",
            dbs,
            "--run",
            &demo,
            "--format",
            "latex",
            "--out",
            cli_tables.to_str().unwrap(),
        ],
    );
    let loaded = ex.loaded(&cfg, &filter(&[&demo]), false).await.unwrap();
    let ui = dir.path().join("ui-exports");
    let charts = results::charts(&loaded.report).unwrap();
    assert!(!charts.is_empty());
    let name = &charts[0].name;
    for fmt in ["svg", "png"] {
        let written = results::export(&loaded.report, &loaded.dataset, name, fmt, &ui).unwrap();
        assert_eq!(written, [ui.join(format!("{name}.{fmt}"))]);
        let cli_file = cli_charts.join(format!("{name}.{fmt}"));
        assert_eq!(
            std::fs::read(&written[0]).unwrap(),
            std::fs::read(&cli_file).unwrap(),
            "{fmt}"
        );
    }
    assert_eq!(
        charts[0].svg,
        std::fs::read_to_string(cli_charts.join(format!("{name}.svg"))).unwrap()
    );
    let written = results::export(&loaded.report, &loaded.dataset, "", "latex", &ui).unwrap();
    assert!(!written.is_empty());
    for p in &written {
        let cli_file = cli_tables.join(p.file_name().unwrap());
        assert_eq!(
            std::fs::read(p).unwrap(),
            std::fs::read(&cli_file).unwrap(),
            "{}",
            p.display()
        );
    }
    let e = results::export(&loaded.report, &loaded.dataset, name, "gif", &ui).unwrap_err();
    assert!(e.to_string().contains("\"gif\""), "{e}");
    let e = results::export(&loaded.report, &loaded.dataset, "pie", "svg", &ui).unwrap_err();
    assert!(e.to_string().contains("\"pie\""), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn samples_page_traces_show_checks_and_huge_answers_are_clipped() {
    let (dir, demo, only) = demo_store().await;
    let db = dir.path().join("crucible.db");
    let ex = Explorer::open(&db).await.unwrap();

    // Pages of 3 add up to the whole listing, in id order, with the right total.
    let f = filter(&[&demo]);
    let whole = ex.samples(&f, 0, 500).await.unwrap();
    let mut paged = Vec::new();
    let mut off = 0;
    loop {
        let p = ex.samples(&f, off, 3).await.unwrap();
        assert_eq!(p.total, whole.total);
        if p.rows.is_empty() {
            break;
        }
        off += p.rows.len() as u32;
        paged.extend(p.rows);
    }
    assert_eq!(paged, whole.rows);
    assert!(whole.rows.windows(2).all(|w| w[0].id < w[1].id));
    let failed = ex
        .samples(
            &SampleFilter {
                passed: Some(false),
                ..f.clone()
            },
            0,
            500,
        )
        .await
        .unwrap();
    assert!(failed.total > 0 && failed.rows.iter().all(|r| !r.passed));
    let e = ex.samples(&f, 0, 0).await.unwrap_err();
    assert!(e.to_string().contains("limit"), "{e}");

    // Search (every word, any field, any case), a score range and any column's order.
    let task = whole.rows[whole.rows.len() / 2].task.clone();
    let word = task.split('_').next().unwrap().to_uppercase();
    let found = ex
        .samples(
            &SampleFilter {
                search: Some(format!("  {word}  ")),
                ..f.clone()
            },
            0,
            500,
        )
        .await
        .unwrap();
    assert!(found.total > 0 && found.total < whole.total, "{word}");
    let lower = word.to_lowercase();
    assert!(found.rows.iter().all(
        |r| [&r.task, &r.instance, &r.model, &r.outcome, &r.category]
            .iter()
            .any(|x| x.to_lowercase().contains(&lower))
    ));
    let none = ex
        .samples(
            &SampleFilter {
                search: Some(format!("{word} no-such-word-anywhere")),
                ..f.clone()
            },
            0,
            500,
        )
        .await
        .unwrap();
    assert_eq!(none.total, 0, "every word must match");
    let mid = ex
        .samples(
            &SampleFilter {
                score_min: Some(0.25),
                score_max: Some(0.75),
                ..f.clone()
            },
            0,
            500,
        )
        .await
        .unwrap();
    assert!(mid.rows.iter().all(|r| (0.25..=0.75).contains(&r.score)));
    assert_eq!(
        mid.total as usize,
        whole
            .rows
            .iter()
            .filter(|r| (0.25..=0.75).contains(&r.score))
            .count()
    );
    let by_score = ex
        .samples(
            &SampleFilter {
                sort: Some("-score".into()),
                ..f.clone()
            },
            0,
            500,
        )
        .await
        .unwrap();
    assert_eq!(by_score.total, whole.total);
    assert!(by_score
        .rows
        .windows(2)
        .all(|w| w[0].score > w[1].score || (w[0].score == w[1].score && w[0].id < w[1].id)));
    let by_model_page = ex
        .samples(
            &SampleFilter {
                sort: Some("model".into()),
                ..f.clone()
            },
            5,
            7,
        )
        .await
        .unwrap();
    let by_model_all = ex
        .samples(
            &SampleFilter {
                sort: Some("model".into()),
                ..f.clone()
            },
            0,
            500,
        )
        .await
        .unwrap();
    assert_eq!(
        by_model_page.rows,
        by_model_all.rows[5..12],
        "pages follow the order"
    );
    for (bad, says) in [
        (
            SampleFilter {
                sort: Some("price".into()),
                ..f.clone()
            },
            "\"price\"",
        ),
        (
            SampleFilter {
                score_min: Some(0.9),
                score_max: Some(0.1),
                ..f.clone()
            },
            "lowest score is above",
        ),
    ] {
        let e = ex.samples(&bad, 0, 10).await.unwrap_err();
        assert!(e.to_string().contains(says), "{e}");
    }

    // A failed QuestBench sample's trace has its checks with expected/actual and pass flags.
    let qb_failed = ex
        .samples(
            &SampleFilter {
                benchmark: Some("questbench".into()),
                passed: Some(false),
                ..f.clone()
            },
            0,
            50,
        )
        .await
        .unwrap();
    let s = &qb_failed.rows[0];
    let t = ex.sample(s.id).await.unwrap();
    assert_eq!(t.summary, *s);
    assert!(!t.prompt.text.is_empty() && !t.prompt.truncated);
    assert!(!t.events.is_empty());
    let details = t.details.to_string();
    assert!(
        details.contains("expected") && details.contains("actual"),
        "{details}"
    );

    // The typed reading the app sends with every trace: the real stored details of every
    // benchmark parse into their views.
    let mut seen = std::collections::BTreeSet::new();
    let decoder = crucible_views::txview::Decoder::load(&crucible_core::Config::test());
    let mut decoded = 0;
    for row in &whole.rows {
        let t = ex.sample(row.id).await.unwrap();
        let v = SampleView::decoded(t.clone(), &decoder).view;
        match (row.benchmark.as_str(), row.kind.as_str()) {
            ("questbench", kind) => {
                assert!(!v.checks.is_empty(), "{row:?}");
                // The reference agent's transactions target the universe's contracts: each is
                // named and its calldata decoded (a plain transfer has none to decode).
                if row.model == "reference (offline test agent)" {
                    for tx in &v.transactions {
                        assert!(tx.undecoded.is_none(), "{row:?}: {tx:?}");
                        if tx.function.is_some() {
                            assert!(tx.to.contains(" (0x"), "a known contract by name: {tx:?}");
                            decoded += 1;
                        }
                    }
                }
                assert!(v.intent.is_none() && v.pilot.is_none());
                assert!(
                    v.address_names.values().any(|n| n == "agent"),
                    "the sender is named in every QuestBench trace: {row:?} {:?}",
                    v.address_names
                );
                if kind == "composite" {
                    let c = v.composite.as_ref().expect("composite rounds");
                    assert!(!c.rounds.is_empty(), "{row:?}");
                    assert_eq!(Some(c.k_act), t.k_act, "{row:?}");
                } else {
                    assert!(v.composite.is_none());
                }
                if !row.passed {
                    assert!(v.checks.iter().any(|c| !c.passed), "{row:?}");
                }
            }
            ("intent2tx", _) => {
                let i = v.intent.as_ref().expect("intent steps");
                assert!(!i.steps.is_empty(), "{row:?}");
            }
            ("pilot", _) => {
                let p = v.pilot.as_ref().expect("pilot criteria");
                assert!(p.covered <= p.required && p.turns > 0, "{p:?}");
                assert_eq!(p.outcome, row.outcome, "{row:?}");
            }
            other => panic!("unexpected benchmark {other:?}"),
        }
        seen.insert(format!("{} {}", row.benchmark, row.kind));
    }
    assert!(decoded > 0, "no reference transaction was decoded");
    assert!(
        seen.contains("questbench composite")
            && seen.iter().any(|s| s.starts_with("intent2tx"))
            && seen.iter().any(|s| s.starts_with("pilot")),
        "{seen:?}"
    );

    // A 10 MB answer: clipped in the trace, whole on demand, whole in "copy as JSON".
    let store = Store::open(&db).await.unwrap();
    let mut row = store.samples(&only).await.unwrap()[0].1.clone();
    row.instance = format!("{}-huge", row.instance);
    row.raw_answer = "é".repeat(5 * 1024 * 1024) + "END";
    let id = store
        .insert_sample(&NewSample {
            row: row.clone(),
            events: vec![],
            artefacts: vec![],
        })
        .await
        .unwrap();
    store.close().await;
    let t = ex.sample(id).await.unwrap();
    assert!(t.raw_answer.truncated);
    assert!(t.raw_answer.text.len() <= CLIP_BYTES);
    assert_eq!(t.raw_answer.total_bytes as usize, row.raw_answer.len());
    let full = ex.sample_text(id, "raw_answer").await.unwrap();
    assert_eq!(full, row.raw_answer);
    let j: Value = serde_json::from_str(&ex.sample_json(id).await.unwrap()).unwrap();
    assert_eq!(
        j["sample"]["raw_answer"].as_str().unwrap().len(),
        row.raw_answer.len()
    );

    // Bad input: named errors, no panics.
    assert!(matches!(
        ex.sample(987_654).await,
        Err(ResultsError::UnknownSample(987_654))
    ));
    let e = ex
        .sample_text(id, "password")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"password\""), "{e}");
    let cfg = config(dir.path());
    let e = ex
        .report(&cfg, &filter(&["run-nope"]), true)
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("run-nope"), "{e}");
    let e = ex
        .report(
            &cfg,
            &SampleFilter {
                benchmark: Some("swebench".into()),
                ..f.clone()
            },
            true,
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("swebench"), "{e}");
    let e = ex
        .compare(&demo, &demo, 0, Scoring::Paper)
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("two different runs"), "{e}");
    let missing = dir.path().join("nope.db");
    let e = Explorer::open(&missing).await.unwrap_err().to_string();
    assert!(e.contains("nope.db"), "{e}");
}

/// A stored sample of `model` as the scheduler writes a provider model's: its details count the
/// model calls, the answers cut at the token limit and the calls that had no price.
fn called_sample(instance: &str, model: &str, calls: (u64, u64, u64), cost: f64) -> NewSample {
    let (made, cut, unpriced) = calls;
    let details = serde_json::json!({"model_calls": made, "truncated_calls": cut,
        "truncated": cut > 0, "unpriced_calls": unpriced});
    NewSample {
        row: crucible_store::SampleRow {
            run_id: "run-calls".into(),
            benchmark: "questbench".into(),
            model: model.into(),
            instance: instance.into(),
            task: instance.into(),
            prompt_type: String::new(),
            round: 0,
            seed: 1,
            kind: "atomic".into(),
            category: "basic_transactions".into(),
            subcategory: "native_transfer".into(),
            difficulty: "easy".into(),
            outcome: if cut > 0 {
                crucible_core::Outcome::Other
            } else {
                crucible_core::Outcome::Exact
            },
            score: if cut > 0 { 0.0 } else { 1.0 },
            passed: cut == 0,
            metrics: "{}".into(),
            details: details.to_string(),
            prompt: "Send 1 BNB".into(),
            raw_answer: "```ts\nexport default 1\n```".into(),
            k_act: None,
            k_opt: None,
            tokens_in: 10,
            tokens_out: 20,
            cost_usd: cost,
            latency_ms: 5,
            error: None,
            finished_at: "2026-01-01T00:00:01.000Z".into(),
            score_paper: Some(if cut > 0 { 0.0 } else { 1.0 }),
            passed_paper: Some(cut == 0),
            prompt_set: "paper".into(),
        },
        events: vec![],
        artefacts: vec![],
    }
}

/// A run of a priced model with one answer in four cut at the token limit, and of a model with
/// no price, in a fresh data dir.
async fn calls_store() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crucible.db");
    let store = Store::open(&db).await.unwrap();
    let (gpt, house) = ("openai:gpt-5.1", "openai-compatible:house");
    store
        .create_run(&crucible_store::NewRun {
            id: "run-calls".into(),
            created_at: "2026-01-01T00:00:00.000Z".into(),
            seed: 1,
            spec: "{}".into(),
            versions: "{}".into(),
            planned: 6,
            models: vec![(gpt.into(), "{}".into()), (house.into(), "{}".into())],
            notes: Default::default(),
        })
        .await
        .unwrap();
    store
        .insert_samples(&[
            called_sample("a1", gpt, (2, 1, 0), 0.25),
            called_sample("a2", gpt, (1, 0, 0), 0.25),
            called_sample("a3", gpt, (1, 0, 0), 0.25),
            called_sample("a4", gpt, (1, 0, 0), 0.25),
            called_sample("a1", house, (1, 0, 1), 0.0),
            called_sample("a2", house, (3, 2, 3), 0.0),
        ])
        .await
        .unwrap();
    store.close().await;
    (dir, db)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_list_truncated_lists_only_samples_cut_at_the_token_limit() {
    let (dir, db) = calls_store().await;
    let dbs = db.to_str().unwrap();
    let listed = |extra: &[&str]| {
        let mut args = vec!["results", "list", "--db", dbs, "--json"];
        args.extend_from_slice(extra);
        let v = crucible(dir.path(), &args);
        let mut rows: Vec<(String, String, bool)> = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap().to_string();
                (s("model"), s("instance"), r["truncated"].as_bool().unwrap())
            })
            .collect();
        rows.sort();
        (v["total"].as_u64().unwrap(), rows)
    };
    let (total, rows) = listed(&["--truncated"]);
    assert_eq!(total, 2);
    assert_eq!(
        rows,
        [
            ("openai-compatible:house".into(), "a2".into(), true),
            ("openai:gpt-5.1".into(), "a1".into(), true),
        ]
    );
    let (total, rows) = listed(&["--not-truncated"]);
    assert_eq!(total, 4);
    assert!(rows.iter().all(|r| !r.2), "{rows:?}");
    let (total, _) = listed(&["--truncated", "--model", "openai:gpt-5.1"]);
    assert_eq!(total, 1);
    assert_eq!(listed(&[]).0, 6);
    // The text listing marks the cut ones.
    let text = crucible_text(dir.path(), &["results", "list", "--db", dbs, "--truncated"]);
    assert_eq!(text.matches("cut at the token limit").count(), 2, "{text}");
    assert!(text.contains("2 of 2 matching samples"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_gives_each_models_truncation_rate_and_an_unpriced_model_is_never_0() {
    let (dir, db) = calls_store().await;
    let dbs = db.to_str().unwrap();
    let args = [
        "report",
        "--db",
        dbs,
        "--bench",
        "questbench",
        "--no-ceiling",
    ];
    let v = crucible(dir.path(), &[&args[..], &["--json"]].concat());
    let cost: Vec<&Value> = v["cost"].as_array().unwrap().iter().collect();
    let row = |m: &str| *cost.iter().find(|r| r["model"] == m).unwrap();
    let (gpt, house) = (row("openai:gpt-5.1"), row("openai-compatible:house"));
    assert_eq!(
        (
            &gpt["samples"],
            &gpt["truncated_samples"],
            &gpt["truncated_pct"]
        ),
        (&Value::from(4), &Value::from(1), &Value::from(25.0))
    );
    assert_eq!(
        (&gpt["model_calls"], &gpt["truncated_calls"]),
        (&Value::from(5), &Value::from(1))
    );
    assert_eq!(gpt["cost"]["unpriced_calls"], 0);
    assert_eq!(gpt["cost"]["known_usd"], 1.0);
    assert_eq!(
        (&house["truncated_samples"], &house["truncated_pct"]),
        (&Value::from(1), &Value::from(50.0))
    );
    assert_eq!(house["cost"]["unpriced_calls"], 4);
    assert_eq!(
        house["frontier"], false,
        "an unknown cost is on no frontier"
    );
    // The text report: the rate per model, and "unpriced" where the cost is unknown.
    let text = crucible_text(dir.path(), &args);
    let (_, table) = text
        .split_once("Score, cost and truncation per model")
        .unwrap_or_else(|| panic!("no truncation table in:\n{text}"));
    let line = |m: &str| {
        table
            .lines()
            .find(|l| l.contains(m) && l.contains('%'))
            .unwrap_or_else(|| panic!("no line of {m} in:\n{text}"))
            .to_string()
    };
    let (g, h) = (line("openai:gpt-5.1"), line("openai-compatible:house"));
    assert!(
        g.contains("$1.00") && g.contains("1/4") && g.contains("25.0%"),
        "{g}"
    );
    assert!(h.contains("unpriced") && h.contains("50.0%"), "{h}");
    assert!(
        !h.contains('$'),
        "an unpriced model's cost is never a dollar figure: {h}"
    );
    // `runs show` says the same per model, and the run's cost is unknown, not $1.
    let show = crucible(
        dir.path(),
        &["runs", "show", "run-calls", "--db", dbs, "--json"],
    );
    assert_eq!(show["cost"]["usd"], Value::Null);
    assert_eq!(show["cost"]["label"], "≥ $1.00 + unpriced");
    assert_eq!(
        show["cost"]["unpriced_models"],
        serde_json::json!(["openai-compatible:house"])
    );
    let usage = show["usage"].as_array().unwrap();
    assert_eq!(usage[1]["model"], "openai:gpt-5.1");
    assert_eq!(usage[1]["truncated_pct"], 25.0);
    assert_eq!(usage[0]["cost_label"], "unpriced");
}
