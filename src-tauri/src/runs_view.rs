//! Shapes the Runs page receives that are app-specific: the plan-or-problem answer of the
//! new-run form, and the runs list with the ids running in this process.

use crucible_run::RunSpec;
use crucible_store::{AnyStore, RunReader};
use crucible_views::console::{estimate, FormError, History, RunListItem, RunPlan};
use serde::Serialize;
use ts_rs::TS;

use crate::CommandError;

/// The new-run form's preview: a plan, or the first problem with its field.
#[derive(Debug, Clone, Serialize, TS)]
pub struct PlanResult {
    /// What Start would do.
    pub plan: Option<RunPlan>,
    /// What must be fixed first.
    pub problem: Option<FormError>,
}

impl PlanResult {
    /// A problem answer.
    pub fn problem(p: FormError) -> Self {
        Self {
            plan: None,
            problem: Some(p),
        }
    }
}

impl From<Result<RunPlan, FormError>> for PlanResult {
    fn from(r: Result<RunPlan, FormError>) -> Self {
        match r {
            Ok(p) => Self {
                plan: Some(p),
                problem: None,
            },
            Err(e) => Self::problem(e),
        }
    }
}

/// The runs list.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RunsView {
    /// The database file.
    pub db: String,
    /// Runs, newest first.
    pub runs: Vec<RunListItem>,
    /// Ids of the runs going on in this app right now (a stored `running` run not in here was
    /// interrupted: the app was closed or killed, and it can be resumed).
    pub live: Vec<String>,
}

/// Planned samples per model, for the live bars (from the same plan the preview shows).
pub async fn per_model(
    config: &crucible_core::Config,
    spec: &RunSpec,
    _store: &AnyStore,
) -> Result<Vec<(String, u32)>, CommandError> {
    let (config, spec2) = (config.clone(), spec.clone());
    let plan = tauri::async_runtime::spawn_blocking(move || {
        estimate(&config, &spec2, &History::default())
    })
    .await
    .map_err(|e| CommandError::internal(format!("planning failed: {e}")))?
    .map_err(CommandError::invalid)?;
    let mut out: Vec<(String, u32)> = Vec::new();
    for b in &plan.benchmarks {
        let each = b.instances * spec.rounds_of(&b.benchmark);
        for m in &b.models {
            match out.iter_mut().find(|(n, _)| n == m) {
                Some((_, n)) => *n += each,
                None => out.push((m.clone(), each)),
            }
        }
    }
    Ok(out)
}

/// Samples still missing per model of a stored run (for the bars of a resumed run).
pub async fn missing_per_model(
    config: &crucible_core::Config,
    store: &AnyStore,
    run_id: &str,
) -> Result<Vec<(String, u32)>, CommandError> {
    let row = store.run(run_id).await?;
    let Ok(spec) = serde_json::from_str::<RunSpec>(&row.spec) else {
        return Ok(Vec::new()); // the orchestrator reports an unreadable spec itself
    };
    let mut planned = per_model(config, &spec, store).await.unwrap_or_default();
    for (_, s) in store.samples(run_id).await? {
        if let Some((_, n)) = planned.iter_mut().find(|(m, _)| *m == s.model) {
            *n = n.saturating_sub(1);
        }
    }
    Ok(planned)
}

/// What the in-app demo runs, shown next to its button before it is pressed.
#[derive(Debug, Clone, Serialize, TS)]
pub struct DemoInfo {
    /// The benchmarks it runs, in order.
    pub benchmarks: Vec<String>,
    /// The built-in agents it runs.
    pub models: Vec<String>,
    /// Why QuestBench is left out (Anvil, Deno or the bsc universe missing); `None`: included.
    pub questbench_unavailable: Option<String>,
}

impl DemoInfo {
    /// What [`crucible_catalog::app_demo_choice`] picks here (file checks only, no catalogue).
    pub fn of(config: &crucible_core::Config) -> Self {
        let (benchmarks, models, why) = crucible_catalog::app_demo_choice(config);
        Self {
            benchmarks,
            models,
            questbench_unavailable: why,
        }
    }
}

/// The demo's spec and its planned samples per model.
pub async fn demo(
    config: &crucible_core::Config,
    store: &AnyStore,
) -> Result<(RunSpec, Vec<(String, u32)>), CommandError> {
    let c = config.clone();
    let (spec, _) =
        tauri::async_runtime::spawn_blocking(move || crucible_catalog::app_demo_spec(&c))
            .await
            .map_err(|e| CommandError::internal(format!("demo setup failed: {e}")))??;
    let planned = per_model(config, &spec, store).await?;
    Ok((spec, planned))
}
