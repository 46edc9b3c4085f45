//! Building a universe from artifacts.

use super::{Manifest, Profile};
use crate::chain::ChainError;
use crate::Config;

/// What a build produced.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BuildReport {
    /// The manifest written.
    pub manifest: Manifest,
    /// Build time in milliseconds.
    pub build_ms: f64,
}

/// Rebuilds `profile` into `assets/universe/<profile>/`.
pub async fn build(_config: &Config, _profile: Profile) -> Result<BuildReport, ChainError> {
    Err(ChainError::Universe("build not implemented yet".into()))
}
