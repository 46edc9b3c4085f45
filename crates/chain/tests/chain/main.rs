//! The chain crate's integration tests against a real Anvil (`anvil`).

mod anvil;
mod support;
