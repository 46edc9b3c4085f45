//! The `crucible-app` binary: the desktop shell. Everything is in the library so tests can reach it.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // The commit and build date the About box shows and every run records.
    crucible_core::build::set_stamp(env!("CRUCIBLE_GIT_COMMIT"), env!("CRUCIBLE_BUILD_DATE"));
    crucible_app::run()
}
