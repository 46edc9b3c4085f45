//! Operations the app and the CLI perform on this machine, apart from the read-only view models
//! of `crucible-views`: `setup` (locate a tool by running it and save its path in the config file,
//! explain and reset a broken config file, build a universe, open a folder), `install` (the
//! missing tools from the npm registry, verified against the lock file) and `database` (a damaged
//! or foreign database file explained, moved aside and recovered; another file opened and
//! remembered), `replay` (a stored sample's benchmark booted again) and `studio` (the task
//! studio's saves, copies, imports and the new-task wizard).

#![warn(missing_docs, unreachable_pub)]

pub mod database;
pub mod install;
pub mod replay;
pub mod setup;
pub mod studio;
