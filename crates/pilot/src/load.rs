//! PILOT-Bench loaded for a run ([`crucible_core::plugin::Plugin::load`]): the run's one pack —
//! a simulated-tool library (Crucible's or the public release's layout) or a real-tool set over
//! local MCP servers — under its typed options. Neither needs a chain: both are ready at once.

use std::sync::Arc;

use crucible_core::load::{LoadError, LoadRequest, Loaded, PackDir, Ready};
use crucible_core::plugin::ContentError;
use crucible_core::{Benchmark, Config};
use crucible_mcp::Installation;

use crate::options::Options;
use crate::real::{RealToolBench, RealToolSet};
use crate::seam::PilotBench;
use crate::suite::Engine;
use crate::task::TaskLibrary;

/// A run's PILOT-Bench content.
#[allow(missing_debug_implementations)]
pub enum Content {
    /// A simulated-tool library (it carries its own tool registry).
    Library(TaskLibrary),
    /// A real-tool set and its pack's name.
    Real(RealToolSet, String),
}

/// The content of the run's PILOT-Bench `packs` (exactly one: a library carries its own
/// registry); none: the project's `tasks/pilot/` (a run stored before packs).
pub fn load_content(config: &Config, packs: &[PackDir]) -> Result<Content, LoadError> {
    match packs {
        [] => Ok(Content::Library(builtin_library(config)?)),
        [p] if RealToolSet::is_real_dir(&p.dir) => Ok(Content::Real(
            RealToolSet::load(&p.dir).map_err(|e| ContentError::at(&p.dir, e))?,
            p.name.clone(),
        )),
        [p] => Ok(Content::Library(
            TaskLibrary::load(&p.dir).map_err(|e| ContentError::at(&p.dir, e))?,
        )),
        _ => Err(LoadError::Refused(format!(
            "a run reads exactly one PILOT-Bench pack; this one names {}",
            packs.len()
        ))),
    }
}

/// The task library of the project's `tasks/pilot/`.
pub fn builtin_library(config: &Config) -> Result<TaskLibrary, ContentError> {
    let dir = config.project_dir.join("tasks/pilot");
    TaskLibrary::load(&dir).map_err(|e| ContentError::at(&dir, e))
}

/// PILOT-Bench for one run: the simulated or the real-tool benchmark under the run's options. A
/// real-tool set refuses at once when one of its servers is not installed, saying how to install
/// it, so no sample starts without its tools.
pub(crate) fn load(req: LoadRequest<'_>) -> Result<Box<dyn Loaded>, LoadError> {
    let options = Options::read(req.options)?;
    let bench: Arc<dyn Benchmark> = match load_content(req.config, req.packs)? {
        Content::Library(lib) => Arc::new(
            PilotBench::shared(Arc::new(Engine::new(lib)))
                .with_prompt_set(req.prompt_set)
                .with_tool_protocol(options.tool_protocol),
        ),
        Content::Real(set, name) => {
            let refused = |e: crucible_mcp::McpError| LoadError::Refused(e.to_string());
            let install = Installation::from_config(req.config).map_err(refused)?;
            for spec in &crucible_mcp::SERVERS {
                install.check(spec).map_err(refused)?;
            }
            Arc::new(
                RealToolBench::new(Arc::new(set), install)
                    .with_faults(options.faults)
                    .with_tool_protocol(options.tool_protocol)
                    .with_pack(&name),
            )
        }
    };
    Ok(Box::new(Ready(bench)))
}
