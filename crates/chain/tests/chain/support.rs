//! The chain tests' fixtures.

use crucible_chain::{AnvilSpec, Chain};
use crucible_core::Config;

/// The test configuration (this checkout's tools and universes).
pub fn config() -> Config {
    Config::test()
}

/// A fresh empty chain with the given chain id; panics with the install hint when Anvil is
/// missing.
pub async fn empty_chain(chain_id: u64) -> Chain {
    let anvil = config().anvil().unwrap_or_else(|e| panic!("{e}"));
    Chain::start(AnvilSpec::new(anvil, chain_id))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Anvil's first well-known dev key (funded on an empty dev chain).
pub const DEV_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

/// PIDs of live processes whose command line contains `needle`.
pub fn pids_matching(needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // Zombies (state Z) are dead already; the sandbox's PID 1 may not reap them.
        if stat.split_whitespace().nth(2) == Some("Z") {
            continue;
        }
        if String::from_utf8_lossy(&cmd)
            .replace('\0', " ")
            .contains(needle)
        {
            out.push(pid);
        }
    }
    out
}
