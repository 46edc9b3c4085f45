//! The app's owner checks on a lab store, through the command functions on a real PostgreSQL
//! (the test process's throwaway `crucible_store::LocalServer`): deleting, cancelling,
//! renaming, overriding or confirming a sample of a run another member made is refused, naming
//! the owner, and changes nothing; with `force` it goes through; the member's own runs need no
//! force. The rule itself is the store's (`AnyStore::check_owner`), shared with the CLI.

use crucible_store::{copy_run, AnyStore, PgStore, Store, SyntheticRun, SyntheticSample};

use crate::{AppState, ErrorKind};

/// A one-sample run `run_id` in a throwaway file, copied into `to` (whose role then owns it).
async fn run_made_by(to: &PgStore, run_id: &str) {
    run_with_spec(to, run_id, None).await
}

/// [`run_made_by`], with the run's stored spec replaced by `spec` when given.
async fn run_with_spec(to: &PgStore, run_id: &str, spec: Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let file = Store::open(&dir.path().join("made.db")).await.unwrap();
    let sample = SyntheticSample {
        run_id,
        benchmark: "pilot",
        model: "builtin:reference",
        instance: "t0#cot",
        task: "t0",
        prompt_type: "optimal",
        round: 0,
        kind: "k",
        category: "",
        subcategory: "",
        difficulty: "easy",
        outcome: crucible_core::Outcome::FullSuccess,
        score: 1.0,
        passed: true,
        metrics: "{}".into(),
        k_act: None,
        k_opt: None,
        cost_usd: 0.0,
    };
    let runs = [SyntheticRun {
        id: run_id,
        models: vec!["builtin:reference"],
    }];
    file.write_synthetic(&runs, [sample]).await.unwrap();
    if let Some(spec) = spec {
        let db = dir.path().join("made.db");
        let rw = sqlx::SqlitePool::connect(&format!("sqlite://{}", db.display()))
            .await
            .unwrap();
        sqlx::query("UPDATE runs SET spec = ? WHERE id = ?")
            .bind(spec)
            .bind(run_id)
            .execute(&rw)
            .await
            .unwrap();
        rw.close().await;
    }
    copy_run(&file, to, run_id, "the lab").await.unwrap();
}

/// A lab store with a run `run-ada` made by the server's `postgres` role, and the app of
/// another member, bob, connected to it.
async fn bobs_app() -> (AppState, PgStore, AnyStore, String) {
    use sqlx::Connection;
    let server = crucible_store::LocalServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.fresh_database().await.unwrap();
    let admin = PgStore::connect(&url, None).await.unwrap();
    run_made_by(&admin, "run-ada").await;
    let bob = format!("app_bob_{}", std::process::id());
    let mut c = sqlx::PgConnection::connect(&url).await.unwrap();
    // The tests of this file make the role at the same time (one process, one name): the loser
    // of that race gets a unique violation rather than duplicate_object; both mean "it exists".
    sqlx::query(&format!(
        "DO $$ BEGIN CREATE ROLE {bob} LOGIN SUPERUSER PASSWORD 'pw-bob'; \
         EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$"
    ))
    .execute(&mut c)
    .await
    .unwrap();
    let (shown, _) = crucible_store::split_url_password(&url);
    let bob_url = shown.replacen(
        "postgres://postgres@",
        &format!("postgres://{bob}:pw-bob@"),
        1,
    );
    let bob_store = AnyStore::from(PgStore::connect(&bob_url, None).await.unwrap());
    let config = crucible_core::Config {
        lab_store: Some(bob_url),
        reviewer: Some("bob".into()),
        ..crucible_core::Config::test()
    };
    let state = AppState::for_test(config, Some(bob_store.clone()));
    (state, admin, bob_store, bob)
}

fn refused_naming_the_owner(what: &str, got: Result<impl std::fmt::Debug, crate::CommandError>) {
    let e = got.expect_err(what);
    assert_eq!(e.kind, ErrorKind::Invalid, "{what}: {e:?}");
    assert!(
        e.message.contains("run run-ada belongs to postgres") && e.message.contains("force"),
        "{what}: {}",
        e.message
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_app_refuses_changing_another_members_lab_run_unless_forced() {
    let (state, admin, _, _) = bobs_app().await;
    let sample = admin.samples("run-ada").await.unwrap()[0].0;
    let before = admin.run("run-ada").await.unwrap();

    refused_naming_the_owner(
        "delete",
        super::runs::delete(&state, "run-ada", false).await,
    );
    refused_naming_the_owner(
        "cancel",
        super::runs::cancel(&state, "run-ada", false).await,
    );
    refused_naming_the_owner(
        "rename",
        super::runs::rename(&state, "run-ada", Some("mine"), None, false).await,
    );
    let o = crucible_store::NewOverride::try_new(sample, false, None, "wrong", "bob");
    refused_naming_the_owner("override", super::results::review(&state, o, false).await);
    let o = crucible_store::NewOverride::try_confirm(sample, "right", "bob");
    refused_naming_the_owner("confirm", super::results::review(&state, o, false).await);
    // Nothing changed.
    assert_eq!(admin.run("run-ada").await.unwrap(), before);
    assert!(admin.overrides(Some("run-ada")).await.unwrap().is_empty());

    // Forced, each goes through (a finished run is not cancellable, but no longer for want
    // of an owner).
    let e = super::runs::cancel(&state, "run-ada", true)
        .await
        .unwrap_err();
    assert!(!e.message.contains("belongs to"), "{}", e.message);
    let named = super::runs::rename(&state, "run-ada", Some("mine"), None, true)
        .await
        .unwrap();
    assert!(named.is_none(), "{named:?}");
    assert_eq!(
        admin.run("run-ada").await.unwrap().name.as_deref(),
        Some("mine")
    );
    let o = crucible_store::NewOverride::try_new(sample, false, None, "wrong", "bob");
    super::results::review(&state, o, true).await.unwrap();
    assert_eq!(admin.overrides(Some("run-ada")).await.unwrap().len(), 1);
    super::runs::delete(&state, "run-ada", true).await.unwrap();
    assert!(admin.run("run-ada").await.is_err());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_app_changes_a_members_own_lab_run_without_force() {
    let (state, admin, bob_store, bob) = bobs_app().await;
    let AnyStore::Postgres(bob_pg) = &bob_store else {
        unreachable!()
    };
    run_made_by(bob_pg, "run-bob").await;
    assert_eq!(admin.run_owner("run-bob").await.unwrap().0, bob);
    let named = super::runs::rename(&state, "run-bob", Some("ours"), Some("n"), false)
        .await
        .unwrap();
    assert!(named.is_none(), "{named:?}");
    let sample = admin.samples("run-bob").await.unwrap()[0].0;
    let o = crucible_store::NewOverride::try_confirm(sample, "right", "bob");
    super::results::review(&state, o, false).await.unwrap();
    super::runs::delete(&state, "run-bob", false).await.unwrap();
    assert!(admin.run("run-bob").await.is_err());
}

/// NEW-7 of the 2026-12 re-review: re-scoring another member's lab sample of a real-tool run
/// replays their model's tool calls, so the app refuses it without `allow_replay` — decided
/// from the run's packs (what the replayer boots), so a sample whose `details` lack `task_set`
/// is refused too. A sample of a run on the built-in PILOT-Bench library needs no confirmation.
#[tokio::test(flavor = "multi_thread")]
async fn the_app_refuses_rescoring_another_members_real_tool_lab_sample_unconfirmed() {
    use crucible_views::inspect::ReplayMode;
    let (state, admin, _, _) = bobs_app().await;
    let config = state.config().unwrap();
    let mut spec =
        crucible_run::RunSpec::new(vec!["pilot".into()], vec!["builtin:reference".into()]);
    spec.packs = vec![crucible_run::PackRef::named(
        crucible_pilot::real::seam::PACK,
    )];
    crucible_catalog::packs::pin(&config, &mut spec).unwrap();
    let spec = serde_json::to_string(&spec).unwrap();
    run_with_spec(&admin, "run-tools", Some(spec)).await;
    let sample = admin.samples("run-tools").await.unwrap()[0].0;
    let studio = super::tasks::StudioState::default();
    let e = super::results::replay(&state, &studio, sample, ReplayMode::Rescore, None)
        .await
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Invalid, "{e:?}");
    assert!(
        e.message.contains("confirm to re-score")
            && e.message.contains("replays the model's stored tool calls"),
        "{}",
        e.message
    );
    let e = super::results::replay(&state, &studio, sample, ReplayMode::Rescore, Some(false))
        .await
        .unwrap_err();
    assert!(e.message.contains("confirm to re-score"), "{}", e.message);
    // Not a real-tool run: whatever the replay says, it is not that refusal.
    let plain = admin.samples("run-ada").await.unwrap()[0].0;
    if let Err(e) = super::results::replay(&state, &studio, plain, ReplayMode::Rescore, None).await
    {
        assert!(!e.message.contains("confirm to re-score"), "{}", e.message);
    }
}
