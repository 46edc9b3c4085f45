//! The offline universes: a pinned chain state with real protocol contracts at their canonical
//! mainnet addresses, stored as an Anvil genesis file plus a [`Manifest`] under
//! `assets/universe/<profile>/`. The rest of Crucible reads addresses from the manifest only.
//!
//! [`build`] rebuilds a profile from the artifacts in `assets/artifacts/` (compiled from
//! `assets/contracts/` or copied from npm packages); the same inputs give the same file, byte for
//! byte. Loading is just booting Anvil with `--init` (tens of milliseconds).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use alloy::primitives::Address;
use serde::{Deserialize, Serialize};

use super::{AnvilSpec, Chain, ChainError, StateSource};
use crucible_core::Config;

mod build;
pub use build::{book_address, build, build_into, BuildReport, INTENT_VOTING_PERIOD};

/// A universe profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// BNB Smart Chain (chain id 56): EVM-QuestBench.
    Bsc,
    /// Ethereum mainnet (chain id 1): Intent2Tx.
    Eth,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 2] = [Profile::Bsc, Profile::Eth];

    /// The chain id the profile runs with.
    pub fn chain_id(self) -> u64 {
        match self {
            Self::Bsc => 56,
            Self::Eth => 1,
        }
    }

    /// Lowercase name, as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Bsc => "bsc",
            Self::Eth => "eth",
        }
    }

    /// The profile's directory under `assets/universe/`.
    pub fn dir(self, config: &Config) -> PathBuf {
        config.assets_dir().join("universe").join(self.name())
    }
}

impl FromStr for Profile {
    type Err = ChainError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "bsc" => Ok(Self::Bsc),
            "eth" => Ok(Self::Eth),
            other => Err(ChainError::Universe(format!(
                "unknown profile {other:?}; expected bsc or eth"
            ))),
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One contract of a universe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContractEntry {
    /// Stable name other modules look up (`USDT`, `PancakeRouter`, `erc721_token`, …).
    pub name: String,
    /// Where it lives.
    pub address: Address,
    /// The artifact its code came from.
    pub artifact: String,
    /// True when the address is the real mainnet address of this contract.
    pub canonical: bool,
    /// True when Crucible's own code stands in for the protocol's real code (same signatures and
    /// semantics for the functions it has).
    pub stand_in: bool,
    /// ERC-20 decimals, for tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decimals: Option<u8>,
    /// ERC-20 symbol, for tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
}

/// A DEX pair of a universe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairEntry {
    /// `A/B` by token names.
    pub name: String,
    /// The pair contract.
    pub address: Address,
    /// The factory that created it.
    pub factory: String,
    /// Sorted token0.
    pub token0: Address,
    /// Sorted token1.
    pub token1: Address,
    /// True when the address equals mainnet's.
    pub canonical: bool,
}

/// An account the universe funds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountEntry {
    /// Role (`agent`, `second`, `deployer`).
    pub name: String,
    /// Address.
    pub address: Address,
    /// Local test key (hex). These keys exist only in this offline universe; tasks derive their
    /// own per-run agent keys from the run seed.
    pub key: String,
}

/// What a universe holds, by name. Written next to the genesis file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Format version.
    pub version: u32,
    /// Profile.
    pub profile: Profile,
    /// Chain id.
    pub chain_id: u64,
    /// Genesis file name, relative to the manifest.
    pub genesis: String,
    /// SHA-256 of the genesis file, hex.
    pub genesis_sha256: String,
    /// Genesis timestamp (seconds).
    pub timestamp: u64,
    /// Funded accounts.
    pub accounts: Vec<AccountEntry>,
    /// Contracts.
    pub contracts: Vec<ContractEntry>,
    /// DEX pairs.
    pub pairs: Vec<PairEntry>,
    /// Notes on fidelity (stand-ins, fee differences).
    pub notes: Vec<String>,
}

impl Manifest {
    /// Reads `assets/universe/<profile>/manifest.json`.
    pub fn load(config: &Config, profile: Profile) -> Result<Self, ChainError> {
        let path = profile.dir(config).join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            ChainError::Universe(format!(
                "{}: {e}; build it with `crucible universe build --profile {profile}`",
                path.display()
            ))
        })?;
        serde_json::from_str(&text)
            .map_err(|e| ChainError::Universe(format!("{}: {e}", path.display())))
    }

    /// The address of a contract by name.
    pub fn contract(&self, name: &str) -> Result<Address, ChainError> {
        self.contracts
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.address)
            .ok_or_else(|| {
                ChainError::Universe(format!(
                    "no contract {name:?} in the {} universe",
                    self.profile
                ))
            })
    }

    /// An account by role.
    pub fn account(&self, name: &str) -> Result<&AccountEntry, ChainError> {
        self.accounts
            .iter()
            .find(|a| a.name == name)
            .ok_or_else(|| {
                ChainError::Universe(format!(
                    "no account {name:?} in the {} universe",
                    self.profile
                ))
            })
    }

    /// A pair by `A/B` name (either order).
    pub fn pair(&self, a: &str, b: &str) -> Result<&PairEntry, ChainError> {
        let (ab, ba) = (format!("{a}/{b}"), format!("{b}/{a}"));
        self.pairs
            .iter()
            .find(|p| p.name == ab || p.name == ba)
            .ok_or_else(|| {
                ChainError::Universe(format!("no pair {ab} in the {} universe", self.profile))
            })
    }

    /// Name → address of every contract and pair (what `deployedContracts` is built from).
    pub fn address_book(&self) -> BTreeMap<String, Address> {
        self.contracts
            .iter()
            .map(|c| (c.name.clone(), c.address))
            .chain(
                self.pairs
                    .iter()
                    .map(|p| (format!("pair:{}", p.name), p.address)),
            )
            .collect()
    }
}

/// Boots a node on a built universe: `--init genesis.json`, the profile's chain id, pruned
/// history, the configured memory cap.
pub async fn boot(config: &Config, profile: Profile) -> Result<(Chain, Manifest), ChainError> {
    let manifest = Manifest::load(config, profile)?;
    let genesis = genesis_path(config, profile, &manifest);
    check_genesis(&genesis, &manifest)?;
    let mut spec = AnvilSpec::new(config.anvil()?, manifest.chain_id)
        .with_state(StateSource::Genesis(genesis));
    spec.memory_mib = config.anvil_memory_mib;
    spec.port = config.anvil_port;
    Ok((Chain::start(spec).await?, manifest))
}

/// Boots a node forking `url` at `block` instead of the stored universe (fork mode). The
/// manifest still names the contracts; the upstream must hold them at the same addresses.
pub async fn boot_fork(
    config: &Config,
    profile: Profile,
    url: &str,
    block: u64,
) -> Result<(Chain, Manifest), ChainError> {
    let manifest = Manifest::load(config, profile)?;
    let mut spec =
        AnvilSpec::new(config.anvil()?, manifest.chain_id).with_state(StateSource::Fork {
            url: url.to_string(),
            block,
        });
    spec.memory_mib = config.anvil_memory_mib;
    Ok((Chain::start(spec).await?, manifest))
}

/// What [`boot_fork_cached`] put on top of the forked chain.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overlay {
    /// Manifest contracts and pairs the fork had no code for, set from the universe's genesis.
    pub deployed: Vec<String>,
    /// Contracts kept from the fork whose holder slots (balances of the universe's accounts and
    /// of the deployed contracts) were set from the genesis.
    pub funded: Vec<String>,
}

/// Fork mode with the persistent cache: starts a [`ForkProxy`](super::fork::ForkProxy) on the
/// target's cache, checks the upstream through it ([`preflight`](super::fork::preflight):
/// reachable, the profile's chain id, the block not beyond head), boots Anvil forking the proxy
/// at the pinned block, and lays the universe over the fork ([`overlay`]). The chain owns the
/// proxy; a second boot of the same (URL, block) needs no upstream.
pub async fn boot_fork_cached(
    config: &Config,
    profile: Profile,
    target: &super::fork::ForkTarget,
) -> Result<(Chain, Manifest, super::fork::ForkInfo, Overlay), ChainError> {
    let manifest = Manifest::load(config, profile)?;
    let genesis = genesis_path(config, profile, &manifest);
    check_genesis(&genesis, &manifest)?;
    let proxy = super::fork::ForkProxy::start(target).await?;
    let what = match profile {
        Profile::Bsc => "EVM-QuestBench (bsc)",
        Profile::Eth => "Intent2Tx (eth)",
    };
    let info = super::fork::preflight(
        &proxy.url(),
        &target.redacted,
        manifest.chain_id,
        what,
        target.block,
    )
    .await?;
    let mut spec =
        AnvilSpec::new(config.anvil()?, manifest.chain_id).with_state(StateSource::Fork {
            url: proxy.url(),
            block: target.block,
        });
    spec.memory_mib = config.anvil_memory_mib;
    let chain = Chain::start(spec).await.map_err(|e| match e {
        ChainError::NodeExited { log, .. } => ChainError::Fork(format!(
            "anvil could not fork {} at block {}: {}",
            target.redacted,
            target.block,
            log.lines().last().unwrap_or_default()
        )),
        other => other,
    })?;
    let chain = chain.with_fork_proxy(proxy);
    let overlay = overlay(&chain, &genesis, &manifest).await?;
    if chain.fork_failures() > 0 {
        return Err(ChainError::Fork(format!(
            "reads from {} failed while setting up the fork; see the log",
            target.redacted
        )));
    }
    Ok((chain, manifest, info, overlay))
}

/// Lays a built universe over a forked chain, deterministically (the same fork and genesis
/// give the same state):
/// - every manifest contract or pair with no code on the fork (QuestBench's test contracts,
///   Intent2Tx's Crucible-local contracts, or anything the upstream lacks) gets the genesis
///   account whole: code, every storage slot, nonce and balance;
/// - every contract the fork has keeps its code and storage (canonical contracts come from the
///   forked chain), except the holder slots: for each universe account and each deployed
///   contract `h`, the slots `keccak256(h . p)` for `p` in 0..16 (a `mapping(address => …)` at
///   slot `p`, where ERC-20 balances live) that the genesis sets are written, so the agent holds
///   what the tasks expect;
/// - the universe accounts get their genesis native balance.
pub async fn overlay(
    chain: &Chain,
    genesis: &Path,
    manifest: &Manifest,
) -> Result<Overlay, ChainError> {
    use alloy::primitives::{keccak256, Bytes, B256, U256};
    let text = std::fs::read_to_string(genesis)
        .map_err(|e| ChainError::Universe(format!("{}: {e}", genesis.display())))?;
    let g: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| ChainError::Universe(format!("{}: {e}", genesis.display())))?;
    let alloc: BTreeMap<String, &serde_json::Value> = g["alloc"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.to_lowercase(), v)).collect())
        .unwrap_or_default();
    let account = |a: Address| alloc.get(&format!("{a:#x}")).copied();
    let bad = |a: Address, field: &str| {
        ChainError::Universe(format!(
            "{}: alloc {a:#x}: field {field} is not valid hex",
            genesis.display()
        ))
    };
    let quantity = |v: &serde_json::Value| -> Option<U256> {
        let s = v.as_str()?;
        U256::from_str_radix(s.trim_start_matches("0x"), 16).ok()
    };
    let entries: Vec<(String, Address)> = manifest
        .contracts
        .iter()
        .map(|c| (c.name.clone(), c.address))
        .chain(
            manifest
                .pairs
                .iter()
                .map(|p| (format!("pair:{}", p.name), p.address)),
        )
        .collect();
    let mut out = Overlay::default();
    let mut kept = Vec::new();
    for (name, addr) in &entries {
        if !chain.code(*addr).await?.is_empty() {
            kept.push((name.clone(), *addr));
            continue;
        }
        let acc = account(*addr).ok_or_else(|| {
            ChainError::Universe(format!(
                "{name} ({addr:#x}) has no code on the fork and is not in {}",
                genesis.display()
            ))
        })?;
        let code: Bytes = acc["code"]
            .as_str()
            .unwrap_or("0x")
            .parse()
            .map_err(|_| bad(*addr, "code"))?;
        chain.set_code(*addr, &code).await?;
        if let Some(storage) = acc["storage"].as_object() {
            for (k, v) in storage {
                let k: B256 = k.parse().map_err(|_| bad(*addr, "storage key"))?;
                let v = quantity(v).ok_or_else(|| bad(*addr, "storage value"))?;
                chain.set_storage(*addr, k, B256::from(v)).await?;
            }
        }
        let nonce = quantity(&acc["nonce"]).unwrap_or_default();
        chain.set_nonce(*addr, nonce.to::<u64>()).await?;
        chain
            .set_balance(*addr, quantity(&acc["balance"]).unwrap_or_default())
            .await?;
        out.deployed.push(name.clone());
    }
    let deployed: Vec<Address> = entries
        .iter()
        .filter(|(n, _)| out.deployed.contains(n))
        .map(|(_, a)| *a)
        .collect();
    let holders: Vec<Address> = manifest
        .accounts
        .iter()
        .map(|a| a.address)
        .chain(deployed)
        .collect();
    for (name, addr) in kept {
        let Some(storage) = account(addr).and_then(|a| a["storage"].as_object()) else {
            continue;
        };
        let mut wrote = false;
        for h in &holders {
            for p in 0u64..16 {
                let mut pre = [0u8; 64];
                pre[12..32].copy_from_slice(h.as_slice());
                pre[56..64].copy_from_slice(&p.to_be_bytes());
                let slot = keccak256(pre);
                if let Some(v) = storage.get(&format!("{slot:#x}")) {
                    let v = quantity(v).ok_or_else(|| bad(addr, "storage value"))?;
                    chain.set_storage(addr, slot, B256::from(v)).await?;
                    wrote = true;
                }
            }
        }
        if wrote {
            out.funded.push(name);
        }
    }
    for a in &manifest.accounts {
        if let Some(b) = account(a.address).and_then(|acc| quantity(&acc["balance"])) {
            chain.set_balance(a.address, b).await?;
        }
    }
    Ok(out)
}

fn genesis_path(config: &Config, profile: Profile, m: &Manifest) -> PathBuf {
    profile.dir(config).join(&m.genesis)
}

fn check_genesis(path: &Path, m: &Manifest) -> Result<(), ChainError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ChainError::Universe(format!("{}: {e}", path.display())))?;
    let got = sha256_hex(&bytes);
    if got != m.genesis_sha256 {
        return Err(ChainError::Universe(format!(
            "{} does not match its manifest (sha256 {got}, manifest says {}); rebuild with `crucible universe build --profile {}`",
            path.display(),
            m.genesis_sha256,
            m.profile
        )));
    }
    Ok(())
}

/// SHA-256 as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    alloy::primitives::hex::encode(sha2::Sha256::digest(bytes))
}

/// One contract's presence in a booted universe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContractCheck {
    /// Manifest name.
    pub name: String,
    /// Address.
    pub address: Address,
    /// Whether code is deployed there.
    pub has_code: bool,
}

/// A real wrap and a real swap through the canonical router, with balances before and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Smoke {
    /// The account that signed.
    pub account: Address,
    /// Wrapped-native token (WBNB / WETH).
    pub wrapped: String,
    /// Wrapped balance before and after wrapping 1 native coin (wei, decimal).
    pub wrap_before: String,
    /// After.
    pub wrap_after: String,
    /// Token bought with 1 native coin through the canonical router.
    pub swap_token: String,
    /// Router used.
    pub router: Address,
    /// The router's quote (`getAmountsOut`).
    pub swap_quote: String,
    /// Token balance before the swap.
    pub swap_before: String,
    /// After.
    pub swap_after: String,
    /// True when the wrap added exactly 1 coin and the swap delivered exactly the quote.
    pub ok: bool,
}

/// What `crucible universe check` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckReport {
    /// Profile.
    pub profile: Profile,
    /// Chain id reported by the node.
    pub chain_id: u64,
    /// Boot time until the first RPC answer.
    pub boot_ms: f64,
    /// Every manifest contract and pair.
    pub contracts: Vec<ContractCheck>,
    /// The smoke transactions.
    pub smoke: Smoke,
}

alloy::sol! {
    interface IRouter {
        function getAmountsOut(uint256 amountIn, address[] path) external view returns (uint256[] amounts);
        function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) external payable returns (uint256[] amounts);
    }
    interface IWrapped {
        function deposit() external payable;
    }
}

/// Boots `profile`, checks every contract has code, and runs the smoke transactions.
pub async fn check(config: &Config, profile: Profile) -> Result<CheckReport, ChainError> {
    use alloy::primitives::U256;
    use alloy::sol_types::SolCall;
    let (chain, m) = boot(config, profile).await?;
    let boot_ms = chain.anvil().boot.as_secs_f64() * 1e3;
    let mut contracts = Vec::new();
    for (name, address) in m.address_book() {
        let has_code = !chain.code(address).await?.is_empty();
        contracts.push(ContractCheck {
            name,
            address,
            has_code,
        });
    }
    let (wrapped, router, token) = match profile {
        Profile::Bsc => ("WBNB", "PancakeRouter", "USDT"),
        Profile::Eth => ("WETH", "UniswapV2Router02", "USDC"),
    };
    let (w, r, t) = (
        m.contract(wrapped)?,
        m.contract(router)?,
        m.contract(token)?,
    );
    let key: alloy::signers::local::PrivateKeySigner = m
        .account("agent")?
        .key
        .parse()
        .map_err(|e| ChainError::Universe(format!("agent key: {e}")))?;
    let me = key.address();
    let one = U256::from(10u64).pow(U256::from(18u64));
    let wrap_before = chain.erc20_balance(w, me).await?;
    let wrapped_ok = chain
        .send_signed(
            &key,
            &super::TxRequest::call(w, IWrapped::depositCall {}.abi_encode()).with_value(one),
        )
        .await?
        .success;
    let wrap_after = chain.erc20_balance(w, me).await?;
    let path = vec![w, t];
    let quote_raw = chain
        .view(
            r,
            IRouter::getAmountsOutCall {
                amountIn: one,
                path: path.clone(),
            }
            .abi_encode(),
        )
        .await?;
    let quote = IRouter::getAmountsOutCall::abi_decode_returns(&quote_raw)
        .map_err(|e| ChainError::Universe(format!("getAmountsOut: {e}")))?
        .last()
        .copied()
        .unwrap_or_default();
    let swap_before = chain.erc20_balance(t, me).await?;
    let deadline = U256::from(chain.timestamp().await? + 3600);
    let swap = IRouter::swapExactETHForTokensCall {
        amountOutMin: quote,
        path,
        to: me,
        deadline,
    };
    let swapped_ok = chain
        .send_signed(
            &key,
            &super::TxRequest::call(r, swap.abi_encode()).with_value(one),
        )
        .await?
        .success;
    let swap_after = chain.erc20_balance(t, me).await?;
    let ok = wrapped_ok
        && swapped_ok
        && wrap_after == wrap_before + one
        && swap_after == swap_before + quote
        && contracts.iter().all(|c| c.has_code);
    Ok(CheckReport {
        profile,
        chain_id: chain.chain_id(),
        boot_ms,
        contracts,
        smoke: Smoke {
            account: me,
            wrapped: wrapped.into(),
            wrap_before: wrap_before.to_string(),
            wrap_after: wrap_after.to_string(),
            swap_token: token.into(),
            router: r,
            swap_quote: quote.to_string(),
            swap_before: swap_before.to_string(),
            swap_after: swap_after.to_string(),
            ok,
        },
    })
}
