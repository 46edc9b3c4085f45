//! Shared fixtures.

use std::path::Path;
use std::process::{Command, Output};

use crucible_chain::{AnvilSpec, Chain};
use crucible_core::Config;
use serde_json::Value;

/// The test configuration; panics with the install hint when Anvil is missing.
pub fn config() -> Config {
    Config::test()
}

/// A fresh empty chain with the given chain id.
pub async fn empty_chain(chain_id: u64) -> Chain {
    let cfg = config();
    let anvil = cfg.anvil().unwrap_or_else(|e| panic!("{e}"));
    Chain::start(AnvilSpec::new(anvil, chain_id))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The `crucible` binary as the integration tests start it: `data` as its data directory, this
/// checkout as its project, and no backtrace in what it prints (tests read its stderr). Add the
/// arguments, and whatever env or stdio a test needs, then run it.
pub fn crucible_command(data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_crucible"));
    c.env("CRUCIBLE_DATA_DIR", data)
        .env("CRUCIBLE_PROJECT_DIR", env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_BACKTRACE");
    c
}

/// `crucible ARGS` on the data directory `data`, run to its end: (success, stdout, stderr).
pub fn crucible_text(data: &Path, args: &[&str]) -> (bool, String, String) {
    let out = crucible_command(data).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `crucible ARGS` on the data directory `data`: (success, stdout as JSON or null, stderr).
pub fn crucible_cli(data: &Path, args: &[&str]) -> (bool, Value, String) {
    let (ok, out, err) = crucible_text(data, args);
    (ok, serde_json::from_str(&out).unwrap_or(Value::Null), err)
}

/// `crucible ARGS` on the data directory `data`, which must succeed: its stdout.
pub fn crucible_ok(data: &Path, args: &[&str]) -> String {
    let (ok, out, err) = crucible_text(data, args);
    assert!(ok, "crucible {args:?}: {err}");
    out
}

/// `crucible ARGS` on the data directory `data`, which must succeed and print JSON.
pub fn crucible_json(data: &Path, args: &[&str]) -> Value {
    let out = crucible_ok(data, args);
    serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("crucible {args:?}: not JSON ({e}): {out}"))
}

/// A finished `crucible` process's stdout, asserting it succeeded (the failure shows stderr).
pub fn succeeded(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `atomic::selftest` of `tasks` on `seeds` seeds, split in two halves on two harnesses (each
/// its own Anvil, gate and sandboxes) run at once, the reports merged in task order. The
/// self-test is latency-bound (each module's round trip through the sandbox and the gate), so the
/// split takes the catalogue's self-test off the suite's critical path; what is tested is the same.
pub async fn selftest_halves(
    tasks: &[crucible_questbench::task::Task],
    seeds: u64,
) -> crucible_questbench::atomic::SelftestReport {
    let (first, second) = tasks.split_at(tasks.len() / 2);
    let (mut a, b) = tokio::join!(selftest_on(first, seeds), selftest_on(second, seeds));
    a.tasks.extend(b.tasks);
    a.summary.tasks += b.summary.tasks;
    a.summary.reference_perfect += b.summary.reference_perfect;
    a.summary.wrong_total += b.summary.wrong_total;
    a.summary.wrong_rejected += b.summary.wrong_rejected;
    a
}

/// `atomic::selftest` of `tasks` on a harness of its own.
async fn selftest_on(
    tasks: &[crucible_questbench::task::Task],
    seeds: u64,
) -> crucible_questbench::atomic::SelftestReport {
    let h = crucible_questbench::atomic::Harness::start(&config())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    crucible_questbench::atomic::selftest(&h, tasks, seeds)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}
