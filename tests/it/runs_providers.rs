//! Runs over saved providers: the names people chose shown everywhere, two providers with their
//! own URLs and keys in one run (and its resume), the CLI mixing saved providers with flags.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::runs::{crucible, json_of, spec, temp_store};
use crucible_catalog::catalog::loader;
use crucible_llm::Loopback;
use crucible_run::{self as run, Progress, RunContext};
use crucible_store::Store;
use serde_json::json;

/// The names the user chose (saved provider · model) are what the runs list, the leaderboards,
/// the samples list and the CLI's report and CSV export show; filtering by that name finds the
/// model's samples; the stored spec names stay what resume and compare read.
async fn names_people_chose_stay(
    config: &crucible_core::Config,
    store: &Store,
    dir: &Path,
    run_id: &str,
    ida: &str,
    idb: &str,
) {
    use crucible_views::results::{Explorer, SampleFilter};
    let (la, lb) = (format!("{ida} · alpha"), format!("{idb} · beta"));
    let listed = crucible_views::console::list_runs(&store.clone().into())
        .await
        .unwrap();
    let item = listed.iter().find(|r| r.run_id == run_id).unwrap();
    assert_eq!(
        item.models,
        ["openai-compatible:alpha", "openai-compatible:beta"]
    );
    assert_eq!(item.model_labels, [la.clone(), lb.clone()]);

    let ex = Explorer::from_store(store.clone());
    let info = ex.runs().await.unwrap();
    let info = info.iter().find(|r| r.run_id == run_id).unwrap();
    assert_eq!(info.model_labels, [la.clone(), lb.clone()]);
    let only = SampleFilter {
        runs: vec![run_id.to_string()],
        ..Default::default()
    };
    let report = serde_json::to_string(&ex.report(config, &only, true).await.unwrap()).unwrap();
    assert!(report.contains(&la) && report.contains(&lb), "{report}");
    assert!(!report.contains("openai-compatible:"), "{report}");
    // The leaderboard's name filters the samples; the rows carry it too.
    let by_label = SampleFilter {
        model: Some(la.clone()),
        ..only.clone()
    };
    let page = ex.samples(&by_label, 0, 100).await.unwrap();
    assert_eq!(page.total, 16);
    assert!(page.rows.iter().all(|r| r.model == la));
    let report = ex.report(config, &by_label, true).await.unwrap();
    let text = serde_json::to_string(&report).unwrap();
    assert!(text.contains(&la) && !text.contains(&lb), "{text}");
    let trace = ex.sample(page.rows[0].id).await.unwrap();
    assert_eq!(trace.summary.model, la);

    // The CLI: report --json and the CSV export.
    let out = dir.join("export");
    let run = Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args([
            "report",
            "--json",
            "--no-ceiling",
            "--run",
            run_id,
            "--format",
            "csv",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--db")
        .arg(dir.join("c.db"))
        .env("CRUCIBLE_DATA_DIR", &config.data_dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains(&la) && !stdout.contains("openai-compatible:"),
        "{stdout}"
    );
    let mut csv = String::new();
    for f in std::fs::read_dir(&out).unwrap() {
        csv.push_str(&std::fs::read_to_string(f.unwrap().path()).unwrap());
    }
    assert!(
        csv.contains(&lb) && !csv.contains("openai-compatible:"),
        "{csv}"
    );
}

/// Writes `<data>/providers.json` with two openai-compatible providers, each with one model and
/// its key in its own env var.
fn two_providers(data: &Path, a: (&str, &str, &str, &str), b: (&str, &str, &str, &str)) {
    let entry = |(id, url, var, model): (&str, &str, &str, &str)| {
        json!({"id": id, "kind": "openai-compatible", "base_url": url, "key_env": var,
               "models": [{"name": model}]})
    };
    std::fs::create_dir_all(data).unwrap();
    std::fs::write(
        data.join("providers.json"),
        serde_json::to_string_pretty(&json!({"version": 1, "providers": [entry(a), entry(b)]}))
            .unwrap(),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_run_mixes_two_saved_providers_with_their_own_urls_and_keys_and_resumes() {
    let a = Loopback::start_with_key(Duration::from_millis(2), Some("key-alpha-1".into()))
        .await
        .unwrap();
    let b = Loopback::start_with_key(Duration::from_millis(2), Some("key-beta-22".into()))
        .await
        .unwrap();
    assert_ne!(a.base_url(), b.base_url());
    let pid = std::process::id();
    let (ida, idb) = (format!("mix-a-{pid}"), format!("mix-b-{pid}"));
    let (va, vb) = (
        format!("CRUCIBLE_IT_MIX_A_{pid}"),
        format!("CRUCIBLE_IT_MIX_B_{pid}"),
    );
    std::env::set_var(&va, "key-alpha-1");
    std::env::set_var(&vb, "key-beta-22");
    let (dir, store) = temp_store().await;
    let mut config = crucible_core::Config::test();
    config.data_dir = dir.path().join("data");
    two_providers(
        &config.data_dir,
        (&ida, &a.base_url(), &va, "alpha"),
        (&idb, &b.base_url(), &vb, "beta"),
    );
    // The form names each model's saved provider; the spec carries id + URL, never a key.
    let form = crucible_views::console::RunRequest {
        benchmarks: vec!["pilot".into()],
        models: vec![
            "openai-compatible:alpha".into(),
            "openai-compatible:beta".into(),
        ],
        base_url: None,
        limit: Some(4),
        rounds: 1,
        seed: 3,
        prompt_types: vec![],
        concurrency: 1,
        chain_workers: None,
        budget_usd: None,
        options: serde_json::from_value(serde_json::json!({"intent2tx": {"execute": false}}))
            .unwrap(),
        categories: vec![],
        difficulties: vec![],
        kinds: vec![],
        model_providers: vec![
            ("openai-compatible:alpha".into(), ida.clone()),
            ("openai-compatible:beta".into(), idb.clone()),
        ],
        prompt_set: Default::default(),
        preset: None,
        packs: Vec::new(),
        fork_url: None,
        fork_block: None,
        name: None,
        note: None,
        model_settings: None,
        ..crucible_views::console::RunRequest::new(Vec::new(), Vec::new())
    };
    let mut s = form.to_spec(&config.data_dir).unwrap();
    s.cache = false;
    assert_eq!(s.endpoints.len(), 2);
    assert_eq!(
        s.endpoints["openai-compatible:alpha"].base_url,
        a.base_url()
    );
    assert_eq!(s.endpoints["openai-compatible:beta"].provider, idb);

    // Interrupted after 3 samples, then resumed by a fresh context (as after a restart).
    let mut ctx = RunContext::new(config.clone(), store.clone(), loader());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    ctx.progress = Some(tx);
    let cancel = ctx.cancel.clone();
    let watcher = tokio::spawn(async move {
        while let Some(p) = rx.recv().await {
            if matches!(p, Progress::SampleFinished { done: 3, .. }) {
                cancel.cancel();
            }
        }
    });
    let first = run::start(&ctx, s).await.unwrap();
    drop(ctx);
    watcher.await.unwrap();
    assert_eq!(first.status, "cancelled", "{first:?}");
    assert!(first.finished < first.samples, "{first:?}");
    let row = store.run(&first.run_id).await.unwrap();
    assert!(row.spec.contains(&ida) && row.spec.contains(&b.base_url()));
    assert!(!row.spec.contains("key-alpha") && !row.spec.contains("key-beta"));

    let ctx = RunContext::new(config.clone(), store.clone(), loader());
    let resumed = run::resume(&ctx, &first.run_id).await.unwrap();
    assert_eq!(resumed.status, "finished");
    assert_eq!(resumed.finished, 2 * 4 * 4);
    let samples = store.samples(&first.run_id).await.unwrap();
    for (_, s) in &samples {
        // A wrong key would be a 401 → agent_error; each server answered its own model.
        assert_ne!(
            s.outcome, "agent_error",
            "{} {}: {:?}",
            s.model, s.instance, s.error
        );
        assert_eq!(s.raw_answer, "ok");
    }
    let per_model = |m: &str| samples.iter().filter(|(_, s)| s.model == m).count();
    assert_eq!(per_model("openai-compatible:alpha"), 16);
    assert_eq!(per_model("openai-compatible:beta"), 16);
    names_people_chose_stay(&config, &store, dir.path(), &first.run_id, &ida, &idb).await;
    assert!(
        a.requests() >= 16 && b.requests() >= 16,
        "{} {}",
        a.requests(),
        b.requests()
    );

    // Keys swapped: each server refuses the other's key; the run stops that model at the first
    // refusal (nothing scored as its answer) and says whose key to fix.
    std::env::set_var(&va, "key-beta-22");
    let mut s2 = spec(&["pilot"], &["openai-compatible:alpha"]);
    s2.limit = Some(1);
    s2.cache = false;
    s2.endpoints = BTreeMap::from([(
        "openai-compatible:alpha".to_string(),
        crucible_run::spec::ModelEndpoint {
            provider: ida.clone(),
            base_url: a.base_url(),
        },
    )]);
    let ctx = RunContext::new(config.clone(), store.clone(), loader());
    let wrong = run::start(&ctx, s2).await.unwrap();
    assert_eq!(wrong.status, "cancelled", "{wrong:?}");
    assert!(store.samples(&wrong.run_id).await.unwrap().is_empty());
    let notes = wrong.notes.join(" ");
    assert!(
        notes.contains(&format!("the key for provider {ida} was refused")) && notes.contains("401"),
        "{notes}"
    );
    std::env::set_var(&va, "key-alpha-1");

    // A provider that is not saved (any more) is refused, naming it: in the form and on resume.
    let mut bad = form.clone();
    bad.model_providers[0].1 = "gone".into();
    let e = bad.to_spec(&config.data_dir).unwrap_err();
    assert_eq!(e.field.form_field(), "models");
    assert!(e.message.contains("\"gone\""), "{}", e.message);
    let mut s3 = spec(&["pilot"], &["openai-compatible:alpha"]);
    s3.endpoints = BTreeMap::from([(
        "openai-compatible:alpha".to_string(),
        crucible_run::spec::ModelEndpoint {
            provider: "gone".into(),
            base_url: a.base_url(),
        },
    )]);
    let e = run::check_models(&s3, Some(&config.data_dir))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("\"gone\"") && e.contains("providers.json"),
        "{e}"
    );
    std::env::remove_var(&va);
    std::env::remove_var(&vb);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_mixes_saved_providers_with_provider_flags_and_names_a_bad_one() {
    let a = Loopback::start_with_key(Duration::from_millis(1), Some("cli-key-a".into()))
        .await
        .unwrap();
    let b = Loopback::start_with_key(Duration::from_millis(1), Some("cli-key-b".into()))
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    two_providers(
        &data,
        ("cli-a", &a.base_url(), "CRUCIBLE_IT_CLI_KEY_A", "alpha"),
        ("cli-b", &b.base_url(), "CRUCIBLE_IT_CLI_KEY_B", "beta"),
    );
    let db = dir.path().join("c.db");
    let run = |providers: &[&str]| {
        let mut c = crucible(&data);
        c.env("CRUCIBLE_IT_CLI_KEY_A", "cli-key-a")
            .env("CRUCIBLE_IT_CLI_KEY_B", "cli-key-b")
            .args(["run", "--bench", "pilot", "--limit", "1", "--no-cache"])
            .args(["--model", "openai-compatible:alpha"])
            .args(["--model", "openai-compatible:beta", "--json", "--db"])
            .arg(&db);
        for p in providers {
            c.args(["--provider", p]);
        }
        c.output().unwrap()
    };
    let out = run(&[
        "openai-compatible:alpha=cli-a",
        "openai-compatible:beta=cli-b",
    ]);
    let v = json_of(&out);
    assert_eq!(
        (
            v["status"].as_str(),
            v["finished"].as_u64(),
            v["failed"].as_u64()
        ),
        (Some("finished"), Some(8), Some(0)),
        "{v}"
    );
    assert!(a.requests() >= 4 && b.requests() >= 4);
    for (bad, needle) in [
        ("openai-compatible:alpha", "MODEL=PROVIDER_ID"),
        ("openai-compatible:alpha=nope", "\"nope\""),
        (
            "openai-compatible:gamma=cli-a",
            "not one of the chosen models",
        ),
    ] {
        let out = run(&[bad]);
        assert!(!out.status.success(), "{bad} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{bad}: {err}");
    }
}
