//! The `crucible-app` binary: the desktop shell. Everything is in the library so tests can reach it.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    crucible_app::run()
}
