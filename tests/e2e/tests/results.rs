//! E2E tests of the Results page in the real app over a store made by the real CLI: a `crucible
//! demo` run (built-in agents, every benchmark) and a QuestBench-only reference run. Checks the
//! leaderboard against `crucible report --json`, opens a failed composite sample (the demo adds
//! composite tasks) and reads its rounds, revert reason and end-state checks, sees its code
//! highlighted, re-executes it on a fresh snapshot and reads "agrees" with the same revert reason,
//! exports a chart and finds the file, hovers a quadrant point for its model and coordinates,
//! opens Compare on a verdict of two different models, compares the two runs (the CLI's verdict
//! sentences; a matrix cell opens both traces side by side), and compares two models of the demo
//! run (the CLI's verdict: the reference beats known-wrong, significantly).
//! `#[ignore]`d like the other E2E tests; `.ci/e2e` runs them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use crucible_e2e::{app_binary, workspace_root, App};
use serde_json::Value;

fn cli() -> Result<PathBuf> {
    let p = app_binary()?
        .parent()
        .context("app binary has no directory")?
        .join("crucible");
    if !p.is_file() {
        bail!(
            "{} not found; build it with `cargo build -p crucible -p crucible-app --features crucible-app/custom-protocol`",
            p.display()
        );
    }
    Ok(p)
}

fn env_for(data: &Path, config: &Path) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "CRUCIBLE_PROJECT_DIR".to_string(),
            workspace_root().display().to_string(),
        ),
        ("CRUCIBLE_DATA_DIR".to_string(), data.display().to_string()),
        ("XDG_CONFIG_HOME".to_string(), config.display().to_string()),
    ])
}

fn crucible(env: &BTreeMap<String, String>, args: &[&str]) -> Result<Value> {
    let out = Command::new(cli()?).args(args).envs(env).output()?;
    if !out.status.success() {
        bail!(
            "crucible {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(serde_json::from_slice(&out.stdout).unwrap_or(Value::Null))
}

/// The UI's number format (`fmt` in ui/src/pages/results.ts).
fn fmt(v: &Value) -> String {
    match v {
        Value::Null => "–".into(),
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if n.is_i64() || n.is_u64() || x.fract() == 0.0 {
                format!("{}", x as i64)
            } else if x.abs() < 1.0 {
                format!("{x:.3}")
            } else {
                format!("{x:.2}")
            }
        }
        Value::Array(a) if a.len() == 2 && a.iter().all(Value::is_number) => {
            format!("[{}, {}]", fmt(&a[0]), fmt(&a[1]))
        }
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[derive(Debug, Default)]
struct Seen {
    paper_cards: u64,
    paper_published_rows: u64,
    paper_comparisons: u64,
    paper_refusal: String,
    board: Vec<Vec<String>>,
    board_cols: Vec<String>,
    sig_tiers: Vec<(String, String)>,
    sig_headline: String,
    trace_task: String,
    highlights: String,
    checks: usize,
    failed_checks: usize,
    export_status: String,
    compare_rows: usize,
    leaderboard_ms: String,
    trace_ms: String,
    compare_trace: String,
    rounds: String,
    round_revert: String,
    replay_verdict: String,
    replay_agrees: String,
    replay_revert: String,
    highlighted_keywords: u64,
    extracted: String,
    chart_titles: u64,
    chart_tip: String,
    models_rows: u64,
    models_first: String,
    default_verdict: String,
    default_pickers: Vec<String>,
    compare_sentences: Vec<String>,
    differ_count: String,
    compare_trace_b: String,
    models_disagreements: String,
    pilot_reexec_disabled: bool,
    pilot_rescore: String,
}

const COLS: [&str; 6] = ["model", "total", "atomic", "composite", "ci95", "tier"];

async fn flow(app: &App, demo: &str, only: &str) -> Result<Seen> {
    let mut seen = Seen::default();
    app.click("#nav-results").await?;
    // The newest run (the QuestBench-only one) is preselected; pick the demo run instead.
    app.click(&format!("input[data-run='{demo}']")).await?;
    app.click(&format!("input[data-run='{only}']")).await?;
    app.wait_text("#report-meta", Duration::from_secs(60), |t| {
        t.contains(demo) && !t.contains(only)
    })
    .await?;
    let table = "#table-questbench-leaderboard";
    app.text(table).await?;
    let cols = COLS.map(|c| format!("\"{c}\"")).join(",");
    let rows = app
        .eval(&format!(
            "return [...document.querySelectorAll('{table} tbody tr')].map(tr => [{cols}].map(c => \
             tr.querySelector(`td[data-col=\"${{c}}\"]`)?.textContent ?? '?'))"
        ))
        .await?;
    seen.board = serde_json::from_value(rows)?;
    seen.board_cols = COLS.iter().map(|s| s.to_string()).collect();
    // Which differences are real: every model's tier, and the verdict on neighbours in words.
    let tiers = app
        .eval(
            "return [...document.querySelectorAll('#sig-models-questbench tbody tr')].map(tr => \
             [tr.dataset.model, tr.dataset.tier])",
        )
        .await?;
    seen.sig_tiers = serde_json::from_value(tiers)?;
    seen.sig_headline = app.text("#sig-headline-questbench").await?;
    seen.leaderboard_ms = app.attr("#results-content", "data-render-ms").await?;
    app.screenshot("results-leaderboards").await?;

    // Paper tables: every published table of the demo's benchmarks, the published rows marked;
    // map the reference agent to the paper's top model and read the comparison lines.
    app.click("#tab-paper").await?;
    app.wait_text("#paper-tables-meta", Duration::from_secs(60), |t| {
        t.contains("never mixed")
    })
    .await?;
    let card = "#paper-questbench-table1-rank";
    app.select(
        &format!("{card} select[data-map='reference (offline test agent)']"),
        "Claude-Sonnet-4.5",
    )
    .await?;
    // The demo's 3 tasks are not the paper's task set: the comparison is refused, saying why
    // and what to run instead (never a "difference" between unlike quantities).
    seen.paper_refusal = app
        .wait_text(
            &format!("{card} p.paper-refused"),
            Duration::from_secs(30),
            |t| t.starts_with("Not compared"),
        )
        .await?;
    let n = |css: &str| format!("return document.querySelectorAll(\"{css}\").length");
    seen.paper_cards = app
        .eval(&n("section.paper-table"))
        .await?
        .as_u64()
        .unwrap_or(0);
    seen.paper_published_rows = app
        .eval(&n("section.paper-table tr.published"))
        .await?
        .as_u64()
        .unwrap_or(0);
    seen.paper_comparisons = app
        .eval(&n(&format!("{card} ul.paper-comparisons li")))
        .await?
        .as_u64()
        .unwrap_or(0);
    app.screenshot("results-paper-tables").await?;
    app.click("#tab-leaderboards").await?;
    app.text(table).await?;

    // A cell → its samples: the known-wrong agent's COMPOSITE QuestBench samples (the demo adds
    // composites after its atomic tasks), failed ones only.
    let row = app
        .eval(&format!(
            "const r = [...document.querySelectorAll('{table} tbody tr')].find(r => \
             r.querySelector('td[data-col=model]')?.textContent === 'known-wrong (offline test agent)'); \
             r.querySelector('td[data-col=composite]').click(); return true"
        ))
        .await?;
    assert_eq!(row, Value::Bool(true));
    app.wait_text("#samples-filter", Duration::from_secs(20), |t| {
        t.contains("Model: known-wrong (offline test agent)") && t.contains("Composite")
    })
    .await?;
    app.click("#samples-failed").await?;
    app.wait_text("#samples-filter", Duration::from_secs(20), |t| {
        t.contains("Result: failed")
    })
    .await?;
    app.screenshot("results-samples").await?;
    let pick = app
        .eval(
            "const rows = [...document.querySelectorAll('#samples-table tbody tr')]; \
             const r = rows.find(r => r.dataset.kind === 'composite'); \
             return r ? r.dataset.sample : null",
        )
        .await?;
    let Some(id) = pick.as_str().map(str::to_string) else {
        bail!("no failed composite sample listed");
    };
    // WebKitWebDriver refuses element clicks on table cells here (an empty error); a DOM click
    // runs the same handler.
    app.eval(&format!(
        "document.querySelector(\"#samples-table tr[data-sample='{id}'] td\").click(); return true"
    ))
    .await?;
    seen.trace_task = app.text(&format!("#trace [data-sample='{id}'] h2")).await?;
    seen.highlights = app.text("#trace-highlights").await.unwrap_or_default();
    seen.checks = app
        .eval("return document.querySelectorAll('#trace-checks tbody tr').length")
        .await?
        .as_u64()
        .unwrap_or(0) as usize;
    seen.failed_checks = app
        .eval("return document.querySelectorAll('#trace-checks tbody tr[data-pass=false]').length")
        .await?
        .as_u64()
        .unwrap_or(0) as usize;
    seen.rounds = app.text("#trace-rounds dl").await?;
    seen.round_revert = app
        .text("#trace-rounds [data-round-revert]")
        .await
        .unwrap_or_default();
    app.eval("document.getElementById('trace-rounds').scrollIntoView(); return true")
        .await?;
    app.screenshot("results-trace-rounds").await?;
    app.eval("document.getElementById('trace').scrollIntoView(); return true")
        .await?;
    seen.trace_ms = app.attr("#trace", "data-render-ms").await?;
    app.screenshot("results-trace").await?;

    // Highlighted code: the rounds' TypeScript (keywords in spans), the details JSON.
    seen.highlighted_keywords = app
        .eval("return document.querySelectorAll('#trace pre[data-highlighted=typescript] .tok-kw').length")
        .await?
        .as_u64()
        .unwrap_or(0);
    seen.extracted = app
        .wait_text("#trace-extracted", Duration::from_secs(20), |t| {
            !t.contains("Loading")
        })
        .await?;
    app.eval("document.querySelector('#trace-rounds pre[data-highlighted]')?.scrollIntoView(); return true")
        .await?;
    app.screenshot("results-trace-highlighted").await?;

    // Re-execute this failed composite on a fresh snapshot: it agrees with the stored result.
    app.click("#replay-reexecute").await?;
    seen.replay_verdict = app
        .wait_text("#replay-verdict", Duration::from_secs(180), |t| {
            !t.is_empty()
        })
        .await?;
    seen.replay_agrees = app.attr("#replay", "data-agrees").await?;
    seen.replay_revert = app
        .text("#replay-verdicts tr[data-replay-field='revert reason']")
        .await?;
    app.eval("document.getElementById('replay').scrollIntoView(); return true")
        .await?;
    app.screenshot("results-reexecute").await?;

    // Charts: export the first chart as SVG.
    app.click("#tab-charts").await?;
    app.click("section.chart button[data-export='svg']").await?;
    app.wait_text("#export-status", Duration::from_secs(30), |t| {
        t.contains(".svg")
    })
    .await?;
    // The first path written (the status also offers "Open folder").
    seen.export_status = app.text("#export-status .export-path").await?;
    app.screenshot("results-charts").await?;
    // Hover details: every data point/bar carries a title; hovering the quadrant's first point
    // shows its model and coordinates.
    seen.chart_titles = app
        .eval("return document.querySelectorAll('section.chart svg [data-hover] title').length")
        .await?
        .as_u64()
        .unwrap_or(0);
    // Read in the same script as the event: a real pointer resting over the page could move
    // the tip before a second WebDriver call.
    seen.chart_tip = app
        .eval(
            "const box = document.querySelector(\"[data-chart-box='quadrant']\"); \
             box.scrollIntoView(); \
             box.querySelector('[data-hover]').dispatchEvent(new MouseEvent('mouseover', {bubbles: true})); \
             const tip = box.querySelector('.chart-tip'); \
             return tip.hidden ? '' : tip.textContent",
        )
        .await?
        .as_str()
        .unwrap_or_default()
        .to_string();
    app.screenshot("results-chart-hover").await?;

    // Compare opens on a verdict: two different models of the ticked run, compared at once.
    app.click("#tab-compare").await?;
    seen.default_verdict = app
        .wait_text(
            "#compare-verdict .verdict-sentence",
            Duration::from_secs(60),
            |t| !t.is_empty(),
        )
        .await?;
    seen.default_pickers = app
        .eval(
            "return ['compare-run', 'compare-model-a', 'compare-model-b', 'compare-a', 'compare-b']\
             .map((id) => document.getElementById(id).value)",
        )
        .await?
        .as_array()
        .map(|v| {
            v.iter()
                .map(|x| x.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    app.screenshot("results-compare-default").await?;

    // Compare the two runs.
    app.select("#compare-a", demo).await?;
    app.select("#compare-b", only).await?;
    app.click("#compare-go").await?;
    app.wait_text("#compare-verdict", Duration::from_secs(60), |t| {
        t.contains(&format!("in {only}"))
    })
    .await?;
    seen.compare_rows = app
        .eval("return document.querySelectorAll('#compare-verdict .verdict').length")
        .await?
        .as_u64()
        .unwrap_or(0) as usize;
    seen.compare_sentences = app
        .eval(
            "return [...document.querySelectorAll('#compare-verdict .verdict-sentence')]\
             .map((p) => p.textContent)",
        )
        .await?
        .as_array()
        .map(|v| {
            v.iter()
                .map(|x| x.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    seen.differ_count = app.text("[data-filter='differ'] b").await?;
    app.screenshot("results-compare").await?;
    // A PILOT cell of the task × model matrix opens both samples' traces side by side
    // (PILOT: criteria and turn timeline).
    app.click("[data-filter='all']").await?;
    app.click("#compare-matrix tr[data-benchmark='pilot'] button[data-side='a']")
        .await?;
    seen.compare_trace = app
        .text("#compare-trace-a #trace-pilot h3")
        .await
        .unwrap_or_default();
    seen.compare_trace_b = app
        .text("#compare-trace-b #trace-pilot h3")
        .await
        .unwrap_or_default();
    app.eval("document.getElementById('compare-pair').scrollIntoView(); return true")
        .await?;
    app.screenshot("results-compare-trace").await?;
    // That PILOT sample has nothing to re-execute; re-scoring it through the simulator agrees.
    seen.pilot_reexec_disabled = app
        .eval("return document.querySelector('#compare-trace-a #replay-reexecute').disabled")
        .await?
        .as_bool()
        .unwrap_or(false);
    app.click("#compare-trace-a #replay-rescore").await?;
    seen.pilot_rescore = app
        .wait_text(
            "#compare-trace-a #replay-verdict",
            Duration::from_secs(60),
            |t| !t.is_empty(),
        )
        .await?;
    app.eval("document.querySelector('#compare-trace-a #replay').scrollIntoView(); return true")
        .await?;
    app.screenshot("results-rescore-pilot").await?;

    // Two models of the demo run, paired on the same instances.
    app.select("#compare-run", demo).await?;
    app.select("#compare-model-a", "builtin:reference").await?;
    app.select("#compare-model-b", "builtin:known-wrong")
        .await?;
    app.click("#compare-models-go").await?;
    app.wait_text("#compare-verdict", Duration::from_secs(30), |t| {
        t.contains("known-wrong (offline test agent)") && !t.contains(&format!("in {only}"))
    })
    .await?;
    seen.models_rows = app
        .eval("return document.querySelectorAll('#compare-verdict .verdict').length")
        .await?
        .as_u64()
        .unwrap_or(0);
    seen.models_first = app.text("#compare-verdict .verdict-sentence").await?;
    seen.models_disagreements = app.text("[data-filter='differ'] b").await?;
    app.eval("document.getElementById('compare-pickers').scrollIntoView(); return true")
        .await?;
    app.screenshot("results-compare-models").await?;
    Ok(seen)
}

#[tokio::test]
#[ignore = "E2E: needs the built app, tauri-driver and a display (run via .ci/e2e)"]
async fn results_page_matches_the_cli_and_shows_traces_exports_and_comparisons() -> Result<()> {
    let data = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    let env = env_for(data.path(), config.path());
    let db = data.path().join("crucible.db");
    let dbs = db.to_str().context("utf-8 path")?;
    crucible(
        &env,
        &[
            "demo", "--limit", "3", "--rounds", "1", "--db", dbs, "--json",
        ],
    )?;
    crucible(
        &env,
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
            "3",
            "--rounds",
            "1",
            "--seed",
            "5",
            "--db",
            dbs,
            "--json",
        ],
    )?;
    let runs = crucible(&env, &["runs", "list", "--json", "--db", dbs])?;
    let only = runs[0]["run_id"].as_str().context("run 0")?.to_string();
    let demo = runs[1]["run_id"].as_str().context("run 1")?.to_string();
    let report = crucible(&env, &["report", "--db", dbs, "--run", &demo, "--json"])?;
    let compare = crucible(&env, &["compare", "--db", dbs, &demo, &only, "--json"])?;
    let models = crucible(
        &env,
        &[
            "compare",
            "--db",
            dbs,
            "--run",
            &demo,
            "--models",
            "builtin:reference,builtin:known-wrong",
            "--json",
        ],
    )?;

    let app = App::launch(&env).await?;
    let seen = flow(&app, &demo, &only).await;
    app.close().await;
    let seen = seen?;
    eprintln!("results e2e: {seen:?}");

    // The leaderboard shows exactly the CLI's rows, in its order.
    let want: Vec<Vec<String>> = report["questbench"]["leaderboard"]
        .as_array()
        .context("no leaderboard in the CLI report")?
        .iter()
        .map(|r| {
            COLS.iter()
                .map(|c| match *c {
                    "tier" => format!("Tier {}", fmt(&r[*c])),
                    _ => fmt(&r[*c]),
                })
                .collect()
        })
        .collect();
    assert_eq!(seen.board, want, "columns {:?}", seen.board_cols);
    // The significance tiers are the CLI's, model by model.
    let tiers: Vec<(String, String)> = report["questbench"]["significance"]["tiers"]
        .as_array()
        .context("no significance in the CLI report")?
        .iter()
        .map(|t| (t[0].as_str().unwrap_or("?").to_string(), t[1].to_string()))
        .collect();
    assert_eq!(seen.sig_tiers, tiers);
    assert!(
        seen.sig_headline.starts_with("Cannot be told apart")
            || seen.sig_headline.starts_with("Every model differs"),
        "{seen:?}"
    );

    // The reproduction view: the 14 published tables of the three papers, their rows marked;
    // the mapped reference agent, run on 3 of the paper's tasks, is not compared with the
    // published sums over the whole set: the page says so and what to run instead.
    assert_eq!(seen.paper_cards, 14, "{seen:?}");
    assert!(seen.paper_published_rows > 100, "{seen:?}");
    assert_eq!(seen.paper_comparisons, 0, "{seen:?}");
    assert!(
        seen.paper_refusal
            .contains("run the whole EVM-QuestBench task set")
            || seen.paper_refusal.contains("run the whole"),
        "{seen:?}"
    );

    // The failed composite sample (the demo's known-wrong script without the approval): its
    // end-state checks are listed, some failing, its rounds are shown with K_act/K_opt, and the
    // swap's revert reason is named, in the rounds and lifted to the top.
    assert!(seen.trace_task.contains("composite_"), "{seen:?}");
    assert!(seen.checks > 0 && seen.failed_checks > 0, "{seen:?}");
    assert!(
        seen.rounds.contains("rounds used (K_act)") && seen.rounds.contains("decay"),
        "{seen:?}"
    );
    assert!(
        seen.round_revert.contains("TRANSFER_FROM_FAILED"),
        "{seen:?}"
    );
    assert!(
        seen.highlights.contains("Revert reason: TransferHelper"),
        "{seen:?}"
    );

    // The exported chart exists where the status says: the Downloads folder (the dialog is off
    // in tests), under a name that carries the run and the chart.
    let path = seen.export_status.clone();
    assert!(
        path.starts_with(&data.path().join("Downloads").display().to_string()),
        "{path}"
    );
    assert!(
        path.rsplit('/')
            .next()
            .is_some_and(|n| n.starts_with("crucible-") && n.ends_with(".svg")),
        "{path}"
    );
    let svg = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    assert!(svg.contains("<svg"), "{path}");

    // Compare opened on a verdict of two different models and two different runs.
    assert!(!seen.default_verdict.is_empty(), "{seen:?}");
    let p = &seen.default_pickers;
    assert!(p.len() == 5 && p[1] != p[2] && p[3] != p[4], "{seen:?}");
    // The comparison of two runs says, per paired comparison of the CLI, the CLI's verdict.
    let n = compare["comparisons"].as_array().map_or(0, Vec::len);
    assert_eq!(seen.compare_rows, n);
    let cli_sentences: Vec<String> = compare["verdicts"]
        .as_array()
        .context("no verdicts in the CLI's compare")?
        .iter()
        .map(|v| v["sentence"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(seen.compare_sentences, cli_sentences);
    let differ: u64 = compare["verdicts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| {
            v["counts"]["only_a"].as_u64().unwrap_or(0)
                + v["counts"]["only_b"].as_u64().unwrap_or(0)
        })
        .sum();
    assert_eq!(seen.differ_count, differ.to_string(), "{seen:?}");
    for t in [&seen.compare_trace, &seen.compare_trace_b] {
        assert!(t.eq_ignore_ascii_case("Evaluator criteria"), "{seen:?}");
    }

    // Highlighted code is present; re-executing the failed composite agrees, with its revert.
    assert!(seen.highlighted_keywords > 0, "{seen:?}");
    // The composite's last reply is its submit control JSON (the code is in the rounds).
    assert!(
        seen.extracted.to_lowercase().starts_with("extracted json")
            && seen.extracted.contains("submit"),
        "{seen:?}"
    );
    assert_eq!(seen.replay_agrees, "true", "{seen:?}");
    assert!(seen.replay_verdict.contains("agrees"), "{seen:?}");
    assert!(
        seen.replay_revert.contains("TRANSFER_FROM_FAILED"),
        "{seen:?}"
    );

    assert!(seen.pilot_reexec_disabled, "{seen:?}");
    assert!(seen.pilot_rescore.contains("agrees"), "{seen:?}");

    // Chart hover details: titles on the data, the tooltip names a model and its coordinates.
    assert!(seen.chart_titles > 0, "{seen:?}");
    assert!(
        seen.chart_tip.contains("(offline test agent)")
            && seen.chart_tip.contains("Atomic average (points per task)"),
        "{seen:?}"
    );

    // Two models of one run: the CLI's comparisons, one row each.
    let n = models["compare"]["comparisons"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(seen.models_rows as usize, n, "{seen:?}");
    // The verdict sentence is the CLI's, word for word, and names the tiers' test: with six tasks
    // or more the reference agent beats the known-wrong one significantly; with fewer the sign
    // test cannot show a difference, and the sentence says so.
    let sentence = models["verdicts"][0]["sentence"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(seen.models_first, sentence, "{seen:?}");
    let tasks = models["verdicts"][0]["tasks"].as_u64().unwrap_or(0);
    let want = if tasks >= 6 {
        "reference (offline test agent) beats known-wrong (offline test agent) by "
    } else {
        "reference (offline test agent) and known-wrong (offline test agent) are not distinguishable"
    };
    assert!(
        sentence.starts_with(want)
            && sentence.contains("exact sign test on per-task scores")
            && sentence.ends_with("significant."),
        "{sentence}"
    );
    let c = &models["verdicts"][0]["counts"];
    let differ = c["only_a"].as_u64().unwrap_or(0) + c["only_b"].as_u64().unwrap_or(0);
    assert_eq!(seen.models_disagreements, differ.to_string(), "{seen:?}");
    Ok(())
}

/// The PILOT-Bench headline of the model whose name contains `who`, as the significance table
/// shows it (one decimal).
async fn pilot_mean(app: &App, who: &str) -> Result<String> {
    let v = app
        .eval(&format!(
            "const r = [...document.querySelectorAll('#sig-models-pilot tbody tr')].find(r => \
             r.dataset.model.includes('{who}')); \
             return r ? r.querySelector('td[data-col=mean]').textContent : null"
        ))
        .await?;
    v.as_str()
        .map(str::to_string)
        .with_context(|| format!("no {who} row in the PILOT significance table"))
}

#[tokio::test]
#[ignore = "E2E: needs the built app, tauri-driver and a display (run via .ci/e2e)"]
async fn a_reviewer_overrides_a_sample_and_the_leaderboard_counts_it_marked() -> Result<()> {
    let data = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    let env = env_for(data.path(), config.path());
    let db = data.path().join("crucible.db");
    let dbs = db.to_str().context("utf-8 path")?;
    let run = crucible(
        &env,
        &[
            "run",
            "--bench",
            "pilot",
            "--model",
            "builtin:reference",
            "--model",
            "builtin:no-retry",
            "--limit",
            "3",
            "--seed",
            "5",
            "--db",
            dbs,
            "--json",
        ],
    )?;
    let run_id = run["run_id"].as_str().context("run id")?.to_string();
    let shown = crucible(&env, &["runs", "show", &run_id, "--json", "--db", dbs])?;
    let samples = shown["samples"].as_array().context("samples")?;
    let mine: Vec<&Value> = samples
        .iter()
        .filter(|s| s["model"] == "builtin:no-retry")
        .collect();
    let failed = mine
        .iter()
        .find(|s| s["score"].as_f64().unwrap_or(1.0) < 1.0)
        .context("the no-retry agent fails some workflow")?;
    let id = failed["id"].as_i64().context("sample id")?;
    let score = failed["score"].as_f64().context("score")?;
    let before = crucible(&env, &["report", "--db", dbs, "--json", "--no-ceiling"])?;
    let mean_of = |r: &Value| -> Result<f64> {
        r["pilot"]["summary"]
            .as_array()
            .context("pilot summary")?
            .iter()
            .find(|m| m["model"].as_str().unwrap_or("").contains("no-retry"))
            .and_then(|m| m["mean"].as_f64())
            .context("no-retry mean")
    };
    let cli_before = mean_of(&before)?;

    let app = App::launch(&env).await?;
    let flow = async {
        app.click("#nav-results").await?;
        app.wait_text("#report-meta", Duration::from_secs(60), |t| t.contains(&run_id))
            .await?;
        let shown_before = pilot_mean(&app, "no-retry").await?;
        app.click("#tab-samples").await?;
        app.wait_text("#samples-table", Duration::from_secs(30), |t| !t.is_empty())
            .await?;
        app.eval(&format!(
            "document.querySelector(\"#samples-table tr[data-sample='{id}'] td\").click(); return true"
        ))
        .await?;
        app.wait_text("#review-list", Duration::from_secs(20), |t| {
            t.contains("No reviewer has overridden")
        })
        .await?;
        app.eval("document.querySelector('#trace-review').open = true; return true")
            .await?;
        // Saving with nothing chosen says what is missing and stores nothing.
        app.click("#review-save").await?;
        let problems = app.text("#review-problems").await?;
        app.click("#review-pass").await?;
        app.fill("#review-note", "the workflow finished: the retry was not needed")
            .await?;
        app.fill("#review-reviewer", "E2E Reviewer").await?;
        app.click("#review-save").await?;
        let saved = app
            .text_when("#review-saved", Duration::from_secs(20), |t| t.contains("Saved"))
            .await?;
        let listed = app.text("#review-list").await?;
        app.screenshot("results-override-saved").await?;
        app.click("#tab-leaderboards").await?;
        let marked = app
            .text_when("#report-overrides", Duration::from_secs(30), |t| {
                t.contains("1 sample has a reviewer's override")
            })
            .await?;
        let shown_after = pilot_mean(&app, "no-retry").await?;
        app.screenshot("results-override-leaderboard").await?;
        app.select("#filter-overrides", "exclude").await?;
        app.wait_text("#report-overrides", Duration::from_secs(30), |t| {
            t.contains("left out")
        })
        .await?;
        let shown_excluded = pilot_mean(&app, "no-retry").await?;
        anyhow::Ok((problems, saved, listed, marked, shown_before, shown_after, shown_excluded))
    }
    .await;
    app.close().await;
    let (problems, saved, listed, marked, shown_before, shown_after, shown_excluded) = flow?;
    assert!(
        problems.contains("Choose Pass or Fail") && problems.contains("note"),
        "{problems}"
    );
    assert!(saved.contains("pass, 100.0 points"), "{saved}");
    assert!(
        listed.contains("E2E Reviewer: pass, 100.0 points")
            && listed.contains("the scorer said fail"),
        "{listed}"
    );
    assert!(marked.contains("counted in these tables"), "{marked}");

    // The page moved by exactly the override, as the CLI computes it from the same store.
    let after = crucible(&env, &["report", "--db", dbs, "--json", "--no-ceiling"])?;
    let cli_after = mean_of(&after)?;
    let n = mine.len() as f64;
    assert!((cli_after - cli_before - (1.0 - score) * 100.0 / n).abs() < 1e-9);
    assert_eq!(shown_before, format!("{cli_before:.1}"));
    assert_eq!(shown_after, format!("{cli_after:.1}"));
    assert_ne!(shown_before, shown_after, "the leaderboard changed");
    assert_eq!(
        shown_excluded, shown_before,
        "left out, the scorer's figures come back"
    );
    let listed = crucible(&env, &["annotations", "list", "--db", dbs, "--json"])?;
    assert_eq!(listed[0]["sample_id"].as_i64(), Some(id));
    assert_eq!(listed[0]["reviewer"], "E2E Reviewer");
    assert_eq!(listed[0]["original_score"].as_f64(), Some(score));
    Ok(())
}

/// The chain inspector on a real run: a cheating agent's sample shows its refused calls and what
/// its transaction changed, and the leaderboard counts its attempts; the figures match the CLI's.
#[tokio::test]
#[ignore = "needs the built app and CLI, tauri-driver, WebKitWebDriver and an X display; run .ci/e2e"]
async fn the_chain_inspector_shows_refused_cheats_and_what_the_transaction_changed() -> Result<()> {
    let data = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    let env = env_for(data.path(), config.path());
    let db = data.path().join("crucible.db");
    let dbs = db.to_str().context("utf-8 path")?;
    let run = crucible(
        &env,
        &[
            "run",
            "--bench",
            "questbench",
            "--model",
            "builtin:exploit-cheat-rpc",
            "--limit",
            "1",
            "--seed",
            "2",
            "--db",
            dbs,
            "--json",
        ],
    )?;
    let run_id = run["run_id"].as_str().context("run id")?.to_string();
    let shown = crucible(&env, &["runs", "show", &run_id, "--json", "--db", dbs])?;
    let id = shown["samples"][0]["id"].as_i64().context("sample id")?;
    let traced = crucible(
        &env,
        &["results", "trace", &id.to_string(), "--json", "--db", dbs],
    )?;
    let refused_cli = traced["refused_calls"]
        .as_array()
        .context("refused_calls")?
        .len();
    let app = App::launch(&env).await?;
    let flow = async {
        app.click("#nav-results").await?;
        app.wait_text("#report-meta", Duration::from_secs(60), |t| t.contains(&run_id))
            .await?;
        let board = app
            .text_when("#board-questbench", Duration::from_secs(30), |t| {
                t.contains("Reward-hacking attempts")
            })
            .await?;
        app.click("#tab-samples").await?;
        app.wait_text("#samples-table", Duration::from_secs(30), |t| !t.is_empty())
            .await?;
        app.eval(&format!(
            "document.querySelector(\"#samples-table tr[data-sample='{id}'] td\").click(); return true"
        ))
        .await?;
        let refused = app
            .text_when("#trace-refused", Duration::from_secs(30), |t| {
                t.contains("anvil_setBalance")
            })
            .await?;
        let rows = app
            .eval("return document.querySelectorAll('#trace-refused tbody tr').length")
            .await?;
        let changed = app.text("#trace-transactions .tx-effects").await?;
        app.eval("document.querySelector('#trace-refused').scrollIntoView(); return true")
            .await?;
        app.screenshot("results-chain-inspector").await?;
        anyhow::Ok((board, refused, rows, changed))
    }
    .await;
    app.close().await;
    let (board, refused, rows, changed) = flow?;
    assert!(board.contains("Samples with an attempt"), "{board}");
    assert!(refused.contains("test-node cheat"), "{refused}");
    assert_eq!(
        rows.as_u64(),
        Some(refused_cli as u64),
        "the page lists what the CLI lists"
    );
    assert!(
        changed.contains("WHAT IT CHANGED") || changed.contains("What it changed"),
        "{changed}"
    );
    assert!(
        changed.contains("Balance changes") && changed.contains("BNB"),
        "{changed}"
    );
    Ok(())
}

/// The sample id of the audit queue's selected row.
async fn audit_selected(app: &App) -> Result<String> {
    let v = app
        .eval("return document.querySelector('#audit-table tr.selected')?.dataset.sample ?? null")
        .await?;
    v.as_str()
        .map(str::to_string)
        .context("no selected audit row")
}

#[tokio::test]
#[ignore = "E2E: needs the built app, tauri-driver and a display (run via .ci/e2e)"]
async fn the_audit_queue_is_walked_by_keyboard_and_shows_validator_agreement() -> Result<()> {
    let data = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    let env = env_for(data.path(), config.path());
    let db = data.path().join("crucible.db");
    let dbs = db.to_str().context("utf-8 path")?;
    let run = crucible(
        &env,
        &[
            "run",
            "--bench",
            "questbench",
            "--model",
            "builtin:known-wrong",
            "--limit",
            "4",
            "--seed",
            "3",
            "--db",
            dbs,
            "--json",
        ],
    )?;
    let run_id = run["run_id"].as_str().context("run id")?.to_string();
    let queue = crucible(&env, &["audit", "--db", dbs, "--json"])?;
    let ids: Vec<String> = queue["items"]
        .as_array()
        .context("items")?
        .iter()
        .map(|i| i["sample_id"].to_string())
        .collect();
    if ids.len() < 2 {
        bail!("the known-wrong run queues fewer than two samples: {queue}");
    }

    let app = App::launch(&env).await?;
    let flow = async {
        app.click("#nav-results").await?;
        app.wait_text("#report-meta", Duration::from_secs(60), |t| {
            t.contains(&run_id)
        })
        .await?;
        app.click("#tab-audit").await?;
        let start = app
            .text_when("#audit-agreement", Duration::from_secs(30), |t| {
                t.contains("to audit")
            })
            .await?;
        app.wait_text("#trace-review", Duration::from_secs(30), |t| !t.is_empty())
            .await?;
        app.fill("#audit-reviewer", "E2E Auditor").await?;
        app.eval("document.querySelector('#audit-panel').focus(); return true")
            .await?;
        let first = audit_selected(&app).await?;
        app.keys("j").await?;
        let second = audit_selected(&app).await?;
        app.keys("k").await?;
        let back = audit_selected(&app).await?;
        // C: the scorer was right about the first.
        app.keys("c").await?;
        let confirmed = app
            .text_when("#audit-agreement", Duration::from_secs(30), |t| {
                t.contains("(1 of 1 confirmed)")
            })
            .await?;
        // J, then P: override the second as a pass, with a note, saved.
        app.eval("document.querySelector('#audit-panel').focus(); return true")
            .await?;
        app.keys("j").await?;
        app.wait_text("#trace h2", Duration::from_secs(30), |t| {
            t.contains(&format!("Sample {}", ids[1]))
        })
        .await?;
        app.eval("document.querySelector('#audit-panel').focus(); return true")
            .await?;
        app.keys("p").await?;
        let focused = app.focused_id().await?;
        app.keys("the amount is what the task's wording asks for")
            .await?;
        app.click("#review-save").await?;
        let after = app
            .text_when("#audit-agreement", Duration::from_secs(30), |t| {
                t.contains("(1 of 2 confirmed)")
            })
            .await?;
        let column = app
            .eval(
                "return [...document.querySelectorAll('#audit-table tbody tr')].slice(0, 2)\
                 .map(tr => tr.dataset.review)",
            )
            .await?;
        app.eval("document.querySelector('#audit').scrollIntoView({block: 'start'}); return true")
            .await?;
        app.screenshot("results-audit-queue").await?;
        anyhow::Ok((
            start, first, second, back, confirmed, focused, after, column,
        ))
    }
    .await;
    app.close().await;
    let (start, first, second, back, confirmed, focused, after, column) = flow?;
    assert!(start.contains("none reviewed yet"), "{start}");
    assert_eq!(
        (first.as_str(), second.as_str(), back.as_str()),
        (ids[0].as_str(), ids[1].as_str(), ids[0].as_str())
    );
    assert!(
        confirmed.contains("validator agreement 100 %"),
        "{confirmed}"
    );
    assert_eq!(focused, "review-note", "P puts the cursor in the note");
    assert!(after.contains("validator agreement 50 %"), "{after}");
    assert_eq!(column, serde_json::json!(["confirmed", "overridden"]));
    // The CLI reads the same reviews.
    let q = crucible(&env, &["audit", "--db", dbs, "--json"])?;
    assert_eq!(
        (q["reviewed"].as_u64(), q["confirmed"].as_u64()),
        (Some(2), Some(1))
    );
    let listed = crucible(&env, &["annotations", "list", "--db", dbs, "--json"])?;
    assert_eq!(listed[0]["reviewer"], "E2E Auditor");
    assert_eq!(listed[0]["kind"], "confirm");
    assert_eq!(listed[1]["kind"], "override");
    Ok(())
}
