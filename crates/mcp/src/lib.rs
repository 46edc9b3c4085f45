//! Real tools for PILOT-Bench: MCP servers from the package registries, pinned, each started
//! per episode as a subprocess speaking MCP over stdio and confined by bubblewrap to a fresh
//! episode directory.
//!
//! - [`servers`]: the catalogue of pinned servers, where their installation lives, how each is
//!   started, and the installation check that names the command to run when one is missing;
//! - [`confine`]: the bubblewrap command line that shows a server only the system's read-only
//!   files, its own installation and the episode directory (as `/episode`), without network;
//! - [`session`]: a client over `rmcp` — start, list tools, call a tool with a deadline, a wall
//!   clock per server, stop;
//! - [`slots`]: the process-wide cap on live servers, reserved per episode;
//! - [`endstate`]: git run on an episode's repository after the episode, in the same
//!   confinement with the episode read-only (nothing the model wrote runs on the host).
//!
//! Nothing here knows PILOT's tasks, faults or scoring (`crucible_pilot::real` does).

#![warn(missing_docs, unreachable_pub)]

pub mod confine;
pub mod endstate;
pub mod servers;
pub mod session;
pub mod slots;

pub use endstate::EndStateError;
pub use servers::{Installation, ServerId, ServerSpec, SERVERS};
pub use session::{probe, CallResult, Session, SessionLimits, ToolInfo};

/// What can go wrong when starting or talking to an MCP server.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// A server of the catalogue is not installed where Crucible looks for it.
    #[error(
        "MCP server `{server}` ({package} {version}) is not installed: {missing} does not exist; \
         install the pinned servers with `bash .ci/mcp-servers` (or `bash .ci/setup`), or set \
         `mcp_dir` in the config / CRUCIBLE_MCP_DIR to where they are installed"
    )]
    NotInstalled {
        /// The server's name.
        server: &'static str,
        /// Its package.
        package: &'static str,
        /// The pinned version.
        version: &'static str,
        /// The file that was looked for.
        missing: String,
    },
    /// An unknown server name.
    #[error("unknown MCP server `{0}`; the catalogue has filesystem, memory, git and time")]
    UnknownServer(String),
    /// The server could not be started or did not finish the MCP handshake.
    #[error("MCP server `{server}` did not start: {message}")]
    Start {
        /// The server's name.
        server: String,
        /// What happened.
        message: String,
    },
    /// The server stopped answering.
    #[error("MCP server `{server}`: {message}")]
    Protocol {
        /// The server's name.
        server: String,
        /// What happened.
        message: String,
    },
    /// bubblewrap is needed and was not found.
    #[error("{0}")]
    Config(#[from] crucible_core::config::ConfigError),
}
