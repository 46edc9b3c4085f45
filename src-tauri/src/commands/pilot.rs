//! The PILOT-Bench simulator fidelity audit for the Results page's PILOT card, with progress
//! (`pilot:audit` events). The audit and its wording are `crucible_views::sim_audit`'s.

use serde::Serialize;
use tauri::Emitter;
use ts_rs::TS;

use crucible_views::sim_audit::{self, SimAudit};

use crate::{AppState, CommandError};

/// The event a running audit sends every thousand episodes.
pub const AUDIT_EVENT: &str = "pilot:audit";

/// An audit's progress.
#[derive(Debug, Clone, Serialize, TS)]
pub struct SimAuditProgress {
    /// Episodes simulated so far.
    #[ts(type = "number")]
    pub done: u64,
    /// Episodes in all.
    #[ts(type = "number")]
    pub total: u64,
}

/// Runs the simulator fidelity audit over `episodes` episodes (default 10,000) on `seed`.
#[crucible_ipc::command]
pub async fn audit_pilot_simulator(
    app: tauri::AppHandle,
    state: tauri::State<'_, AppState>,
    episodes: Option<u32>,
    seed: Option<u32>,
) -> Result<SimAudit, CommandError> {
    let config = state.config()?;
    let episodes = episodes.map_or(sim_audit::DEFAULT_EPISODES, u64::from);
    let seed = u64::from(seed.unwrap_or(0));
    tauri::async_runtime::spawn_blocking(move || {
        sim_audit::run(&config, episodes, seed, &mut |done, total| {
            let _ = app.emit(AUDIT_EVENT, SimAuditProgress { done, total });
        })
    })
    .await
    .map_err(|e| CommandError::internal(format!("the simulator audit failed: {e}")))?
    .map_err(|e| CommandError::invalid_msg(e.to_string()))
}
