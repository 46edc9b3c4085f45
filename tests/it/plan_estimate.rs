//! The New run plan's estimates through the app's own path (`History::from_store` over a real
//! store, then `console::estimate`, as the `plan_run` command does): a model never run here is
//! priced from the catalogue on the sizes measured from what the store holds, never "unknown".

use crucible_store::{AnyStore, RunReader, Store};
use crucible_views::console::{estimate, History};

use super::support::crucible_cli;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_never_run_gets_a_cost_from_its_price_and_the_stored_sample_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // A run of the built-in agent, as the first-start demo makes: it stores prompts and answers.
    let (ok, run, err) = crucible_cli(
        &data,
        &[
            "run",
            "--bench",
            "pilot",
            "--model",
            "builtin:reference",
            "--limit",
            "3",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let run_id = run["run_id"].as_str().unwrap().to_string();
    let store = AnyStore::Sqlite(
        Store::open_existing(&data.join("crucible.db"))
            .await
            .unwrap(),
    );
    let samples = store.samples(&run_id).await.unwrap();
    assert!(!samples.is_empty());
    let n = samples.len() as f64;
    let chars_in: f64 = samples
        .iter()
        .map(|(_, s)| s.prompt.chars().count() as f64)
        .sum();
    let chars_out: f64 = samples
        .iter()
        .map(|(_, s)| s.raw_answer.chars().count() as f64)
        .sum();

    let history = History::from_store(&store, 20).await.unwrap();
    let config = crucible_core::Config {
        data_dir: data.clone(),
        ..crucible_core::Config::test()
    };
    let mut spec = crucible_run::RunSpec::new(vec!["pilot".into()], vec!["openai:gpt-4o".into()]);
    spec.limit = Some(3);
    let plan = estimate(&config, &spec, &history).unwrap();
    let planned = f64::from(plan.samples);
    // gpt-4o's catalogue price, $2.50 in and $10 out per million tokens, on ~4 characters a token.
    let want = planned * ((chars_in / n / 4.0) * 2.5 + (chars_out / n / 4.0) * 10.0) / 1e6;
    let got = plan
        .est_cost_usd
        .expect("a priced model's cost is estimated");
    assert!(
        got > 0.0 && (got - want).abs() < 1e-9,
        "{got} vs {want}: {}",
        plan.basis
    );
    assert!(plan.est_seconds.is_some(), "{}", plan.basis);
    assert!(
        plan.basis.contains("gpt-4o: not run here yet"),
        "{}",
        plan.basis
    );
}
