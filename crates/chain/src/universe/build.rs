//! Building a universe from artifacts: deploy on a scratch Anvil (history kept, deterministic
//! block times), move contracts to their canonical addresses (code + every storage slot the
//! constructor wrote + nonce), create and fund DEX pairs through the canonical routers, fund the
//! accounts, then write the state as a genesis file and a manifest.
//!
//! Techniques and the measured reasons for them are in notes/chain-spike.md §2. In short:
//! `anvil_setCode` of an artifact's `deployedBytecode` loses immutables and constructor storage,
//! so contracts are really deployed and then transplanted; PancakeSwap pairs get their mainnet
//! addresses by patching the router's init-code-hash constant and transplanting each pair.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use alloy::dyn_abi::{DynSolValue, JsonAbiExt};
use alloy::json_abi::JsonAbi;
use alloy::primitives::{address, b256, keccak256, Address, Bytes, B256, U256};
use alloy::signers::local::PrivateKeySigner;
use alloy::sol_types::SolValue;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::{AccountEntry, ContractEntry, Manifest, PairEntry, Profile};
use crate::{AnvilSpec, Chain, ChainError, Receipt, TxRequest};
use crucible_core::Config;

/// What a build produced.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BuildReport {
    /// The manifest written.
    pub manifest: Manifest,
    /// Where it was written.
    pub dir: PathBuf,
    /// Build time in milliseconds.
    pub build_ms: f64,
    /// Size of the genesis file in bytes.
    pub genesis_bytes: usize,
}

/// Block time of the first build block: 2026-01-01T00:00:00Z. Every later block is +1 s.
const T0: u64 = 1_767_225_600;
/// The init code hash of the genuine Uniswap V2 pair (what the npm artifact hashes to).
const UNISWAP_PAIR_HASH: B256 =
    b256!("96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f");
/// PancakeSwap V2's pair init code hash (mainnet BSC).
const PANCAKE_PAIR_HASH: B256 =
    b256!("00fb7f630766e6a796048ea87d01acd3068e8ff67d078148a3fa3f4a84f69bd5");
/// SushiSwap's pair init code hash (mainnet Ethereum).
const SUSHI_PAIR_HASH: B256 =
    b256!("e18a34eb0e04b04f7a0ac29a6e80748dca96319b42c54d679cb821dca90c6303");

/// A fixed, documented key per role. These keys exist only in the offline universe.
fn role_key(role: &str) -> PrivateKeySigner {
    let k = keccak256(format!("crucible/universe/{role}"));
    PrivateKeySigner::from_bytes(&k)
        .expect("a keccak digest is a valid secp256k1 key with overwhelming probability")
}

fn ether(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(18u64))
}

fn units(n: u64, decimals: u8) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(decimals))
}

/// A compiled contract from `assets/artifacts/<name>.json`.
#[derive(Debug, Clone, Deserialize)]
struct Artifact {
    abi: JsonAbi,
    bytecode: Bytes,
}

struct Builder {
    chain: Chain,
    artifacts: PathBuf,
    cache: BTreeMap<String, Artifact>,
    deployer: Address,
    contracts: Vec<ContractEntry>,
    pairs: Vec<PairEntry>,
    profile: Profile,
}

/// Token metadata for the manifest.
struct Meta<'a> {
    canonical: bool,
    stand_in: bool,
    token: Option<(&'a str, u8)>,
}

const CANON: Meta<'static> = Meta {
    canonical: true,
    stand_in: false,
    token: None,
};
const STAND_IN: Meta<'static> = Meta {
    canonical: true,
    stand_in: true,
    token: None,
};
const LOCAL: Meta<'static> = Meta {
    canonical: false,
    stand_in: false,
    token: None,
};

fn token(symbol: &str, decimals: u8, stand_in: bool) -> Meta<'_> {
    Meta {
        canonical: true,
        stand_in,
        token: Some((symbol, decimals)),
    }
}

fn addr(a: Address) -> DynSolValue {
    DynSolValue::Address(a)
}
fn uint(v: U256) -> DynSolValue {
    DynSolValue::Uint(v, 256)
}
fn small(v: u64, bits: usize) -> DynSolValue {
    DynSolValue::Uint(U256::from(v), bits)
}
fn text(s: &str) -> DynSolValue {
    DynSolValue::String(s.to_string())
}

fn err(msg: impl Into<String>) -> ChainError {
    ChainError::Universe(msg.into())
}

impl Builder {
    fn artifact(&mut self, name: &str) -> Result<Artifact, ChainError> {
        if let Some(a) = self.cache.get(name) {
            return Ok(a.clone());
        }
        let path = self.artifacts.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path).map_err(|e| {
            err(format!(
                "{}: {e}; run `npm run compile-contracts`",
                path.display()
            ))
        })?;
        let a: Artifact =
            serde_json::from_str(&text).map_err(|e| err(format!("{}: {e}", path.display())))?;
        self.cache.insert(name.to_string(), a.clone());
        Ok(a)
    }

    /// Calldata for `artifact.function(args)`, choosing the overload by argument count.
    fn calldata(
        &mut self,
        artifact: &str,
        function: &str,
        args: &[DynSolValue],
    ) -> Result<Bytes, ChainError> {
        let a = self.artifact(artifact)?;
        let f = a
            .abi
            .function(function)
            .and_then(|fs| fs.iter().find(|f| f.inputs.len() == args.len()))
            .ok_or_else(|| {
                err(format!(
                    "{artifact} has no {function} with {} arguments",
                    args.len()
                ))
            })?;
        f.abi_encode_input(args)
            .map(Bytes::from)
            .map_err(|e| err(format!("{artifact}.{function}: {e}")))
    }

    /// Sends `artifact.function(args)` from `from` (impersonated); a revert is a build error.
    async fn exec(
        &mut self,
        from: Address,
        to: Address,
        artifact: &str,
        function: &str,
        args: &[DynSolValue],
        value: U256,
    ) -> Result<Receipt, ChainError> {
        let data = self.calldata(artifact, function, args)?;
        let r = self
            .chain
            .send_as(
                from,
                &TxRequest::call(to, data.clone())
                    .with_value(value)
                    .with_gas(6_000_000),
            )
            .await?;
        if !r.success {
            let reason = match self
                .chain
                .call_from(from, &TxRequest::call(to, data).with_value(value))
                .await
            {
                Err(e) => e
                    .revert_data()
                    .map(|d| crate::decode_revert(&d))
                    .unwrap_or_else(|| e.to_string()),
                Ok(_) => "reverted".into(),
            };
            return Err(err(format!(
                "{artifact}.{function} from {from} reverted: {reason}"
            )));
        }
        Ok(r)
    }

    /// Deploys `artifact(args)` from the deployer with CREATE; returns the address.
    async fn deploy(
        &mut self,
        artifact: &str,
        args: &[DynSolValue],
    ) -> Result<Address, ChainError> {
        let a = self.artifact(artifact)?;
        let mut init = a.bytecode.to_vec();
        if !args.is_empty() {
            let ctor = a
                .abi
                .constructor
                .as_ref()
                .ok_or_else(|| err(format!("{artifact} has no constructor")))?;
            let encoded = ctor
                .abi_encode_input(args)
                .map_err(|e| err(format!("{artifact} constructor: {e}")))?;
            init.extend_from_slice(&encoded);
        }
        let r = self
            .chain
            .send_as(self.deployer, &TxRequest::deploy(init).with_gas(29_000_000))
            .await?;
        match (r.success, r.contract_address) {
            (true, Some(a)) => Ok(a),
            _ => Err(err(format!(
                "deploying {artifact} failed (gas used {})",
                r.gas_used
            ))),
        }
    }

    /// Deploys and records a contract at its CREATE address.
    async fn deploy_named(
        &mut self,
        name: &str,
        artifact: &str,
        args: &[DynSolValue],
        meta: Meta<'_>,
    ) -> Result<Address, ChainError> {
        let at = self.deploy(artifact, args).await?;
        self.record(name, artifact, at, meta);
        Ok(at)
    }

    /// Deploys at a scratch address, then moves code, storage and nonce to `at`.
    async fn place(
        &mut self,
        name: &str,
        artifact: &str,
        args: &[DynSolValue],
        at: Address,
        meta: Meta<'_>,
    ) -> Result<Address, ChainError> {
        let scratch = self.deploy(artifact, args).await?;
        self.transplant(scratch, at).await?;
        self.record(name, artifact, at, meta);
        Ok(at)
    }

    fn record(&mut self, name: &str, artifact: &str, at: Address, meta: Meta<'_>) {
        self.contracts.push(ContractEntry {
            name: name.to_string(),
            address: at,
            artifact: artifact.to_string(),
            canonical: meta.canonical,
            stand_in: meta.stand_in,
            decimals: meta.token.map(|t| t.1),
            symbol: meta.token.map(|t| t.0.to_string()),
        });
    }

    /// The storage of one account, from a state dump.
    async fn storage_of(&self, who: Address) -> Result<Vec<(B256, B256)>, ChainError> {
        let dump = self.chain.dump_state().await?;
        let accounts = dump
            .get("accounts")
            .and_then(Value::as_object)
            .ok_or_else(|| err("state dump without accounts"))?;
        let entry = accounts
            .iter()
            .find(|(k, _)| k.parse::<Address>().ok() == Some(who))
            .map(|(_, v)| v.clone())
            .unwrap_or(Value::Null);
        let mut out = Vec::new();
        if let Some(storage) = entry.get("storage").and_then(Value::as_object) {
            for (k, v) in storage {
                out.push((word(k)?, word(v.as_str().unwrap_or("0x0"))?));
            }
        }
        Ok(out)
    }

    async fn transplant(&self, from: Address, to: Address) -> Result<(), ChainError> {
        let code = self.chain.code(from).await?;
        if code.is_empty() {
            return Err(err(format!("nothing to move at {from}")));
        }
        let storage = self.storage_of(from).await?;
        self.chain.set_code(to, &code).await?;
        for (k, v) in &storage {
            self.chain.set_storage(to, *k, *v).await?;
            self.chain.set_storage(from, *k, B256::ZERO).await?;
        }
        self.chain.set_nonce(to, 1).await?;
        self.chain.set_code(from, &Bytes::new()).await?;
        // A leftover nonce would make a later CREATE to this address fail.
        self.chain.set_nonce(from, 0).await?;
        Ok(())
    }

    /// Replaces the pair init-code-hash constant in a deployed router.
    async fn patch_router_hash(&self, router: Address, hash: B256) -> Result<(), ChainError> {
        let code = self.chain.code(router).await?;
        let needle = UNISWAP_PAIR_HASH.as_slice();
        let hits: Vec<usize> = code
            .windows(32)
            .enumerate()
            .filter(|(_, w)| *w == needle)
            .map(|(i, _)| i)
            .collect();
        if hits.len() != 1 {
            return Err(err(format!(
                "router code holds the pair hash {} times, expected once",
                hits.len()
            )));
        }
        let mut patched = code.to_vec();
        patched[hits[0]..hits[0] + 32].copy_from_slice(hash.as_slice());
        self.chain.set_code(router, &Bytes::from(patched)).await
    }

    /// Creates the pair through `factory`; with a non-Uniswap `hash`, moves it to the address that
    /// hash gives (and rewrites the factory's records and the LP permit domain to match).
    async fn create_pair(
        &mut self,
        dex: &Dex,
        a: (&str, Address),
        b: (&str, Address),
    ) -> Result<Address, ChainError> {
        let (t0, t1) = if a.1 < b.1 { (a.1, b.1) } else { (b.1, a.1) };
        let created = self
            .exec(
                self.deployer,
                dex.factory,
                "UniswapV2Factory",
                "createPair",
                &[addr(a.1), addr(b.1)],
                U256::ZERO,
            )
            .await?;
        let salt = keccak256((t0, t1).abi_encode_packed());
        let x = dex.factory.create2(salt, UNISWAP_PAIR_HASH);
        debug_assert!(created.success);
        let at = dex.factory.create2(salt, dex.pair_hash);
        if at != x {
            self.transplant(x, at).await?;
            let want = B256::left_padding_from(x.as_slice());
            for (slot, value) in self.storage_of(dex.factory).await? {
                if value == want {
                    self.chain
                        .set_storage(dex.factory, slot, B256::left_padding_from(at.as_slice()))
                        .await?;
                }
            }
            let domain = keccak256(
                (
                    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                    keccak256("Uniswap V2"),
                    keccak256("1"),
                    U256::from(self.profile.chain_id()),
                    at,
                )
                    .abi_encode(),
            );
            self.chain
                .set_storage(at, B256::with_last_byte(3), domain)
                .await?;
        }
        self.pairs.push(PairEntry {
            name: format!("{}/{}", a.0, b.0),
            address: at,
            factory: dex.name.to_string(),
            token0: t0,
            token1: t1,
            canonical: dex.canonical_pairs,
        });
        Ok(at)
    }

    async fn approve(
        &mut self,
        owner: Address,
        token: Address,
        spender: Address,
        amount: U256,
    ) -> Result<(), ChainError> {
        self.exec(
            owner,
            token,
            "BEP20Token",
            "approve",
            &[addr(spender), uint(amount)],
            U256::ZERO,
        )
        .await?;
        Ok(())
    }

    async fn transfer(
        &mut self,
        from: Address,
        token: Address,
        to: Address,
        amount: U256,
    ) -> Result<(), ChainError> {
        self.exec(
            from,
            token,
            "BEP20Token",
            "transfer",
            &[addr(to), uint(amount)],
            U256::ZERO,
        )
        .await?;
        Ok(())
    }

    /// Adds liquidity from the deployer through the canonical router.
    async fn add_liquidity(
        &mut self,
        router: Address,
        a: Address,
        amount_a: U256,
        b: Address,
        amount_b: U256,
    ) -> Result<(), ChainError> {
        self.approve(self.deployer, a, router, amount_a).await?;
        self.approve(self.deployer, b, router, amount_b).await?;
        let deadline = U256::from(T0 + 10_000_000);
        let args = [
            addr(a),
            addr(b),
            uint(amount_a),
            uint(amount_b),
            uint(U256::ZERO),
            uint(U256::ZERO),
            addr(self.deployer),
            uint(deadline),
        ];
        self.exec(
            self.deployer,
            router,
            "UniswapV2Router02",
            "addLiquidity",
            &args,
            U256::ZERO,
        )
        .await?;
        Ok(())
    }

    async fn wrap(&mut self, weth: Address, who: Address, amount: U256) -> Result<(), ChainError> {
        self.exec(who, weth, "WETH9", "deposit", &[], amount)
            .await?;
        Ok(())
    }

    fn pair(&self, name: &str) -> Result<Address, ChainError> {
        self.pairs
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.address)
            .ok_or_else(|| err(format!("pair {name} not created yet")))
    }
}

struct Dex {
    name: &'static str,
    factory: Address,
    pair_hash: B256,
    canonical_pairs: bool,
}

fn word(s: &str) -> Result<B256, ChainError> {
    let u = U256::from_str_radix(s.trim_start_matches("0x"), 16)
        .map_err(|e| err(format!("bad storage word {s}: {e}")))?;
    Ok(B256::from(u))
}

/// Short-string storage encoding (≤ 31 bytes): data left-aligned, last byte = 2·len.
fn short_string(s: &str) -> B256 {
    let mut w = [0u8; 32];
    w[..s.len()].copy_from_slice(s.as_bytes());
    w[31] = (s.len() * 2) as u8;
    B256::from(w)
}

/// Rebuilds `profile` into `assets/universe/<profile>/` and returns what was written.
pub async fn build(config: &Config, profile: Profile) -> Result<BuildReport, ChainError> {
    // The installed universes are part of the package: nothing is written inside an installation.
    if config.content_origin == crucible_core::ContentOrigin::Installed {
        return Err(ChainError::Universe(format!(
            "the {profile} universe installed with the app ({}) is built already and cannot be \
             rebuilt in place; to rebuild universes, work in a project checkout \
             (set CRUCIBLE_PROJECT_DIR to it)",
            profile.dir(config).display()
        )));
    }
    build_into(config, profile, &profile.dir(config)).await
}

/// Rebuilds `profile` into `dir` (a reproducibility check builds into a temp dir and compares).
pub async fn build_into(
    config: &Config,
    profile: Profile,
    dir: &Path,
) -> Result<BuildReport, ChainError> {
    let started = Instant::now();
    let dir = dir.to_path_buf();
    let mut spec = AnvilSpec::new(config.anvil()?, profile.chain_id()).with_history();
    spec.memory_mib = config.anvil_memory_mib;
    // Deterministic block times: a fixed start, +1 s per block.
    spec.extra_args = vec!["--timestamp".into(), T0.to_string()];
    let chain = Chain::start(spec).await?;
    chain.set_next_timestamp(T0 + 1).await?;
    chain.set_block_interval(1).await?;
    let deployer = role_key("deployer").address();
    chain.set_balance(deployer, ether(10_000_000)).await?;
    let mut b = Builder {
        chain,
        artifacts: config.assets_dir().join("artifacts"),
        cache: BTreeMap::new(),
        deployer,
        contracts: Vec::new(),
        pairs: Vec::new(),
        profile,
    };
    let agent = role_key("agent").address();
    let second = role_key("second").address();
    b.chain.set_balance(agent, ether(100)).await?;
    b.chain.set_balance(second, ether(1)).await?;
    let notes = match profile {
        Profile::Bsc => build_bsc(&mut b, agent, second).await?,
        Profile::Eth => build_eth(&mut b, agent, second).await?,
    };
    // Leave exactly the declared balances on the role accounts (gas spent during setup aside).
    b.chain.set_balance(agent, ether(100)).await?;
    let dump = b.chain.dump_state().await?;
    let timestamp = b.chain.timestamp().await?;
    let roles = [deployer, agent, second];
    let genesis = genesis_from_dump(&dump, profile.chain_id(), timestamp, &roles)?;
    let text = serde_json::to_string_pretty(&genesis).map_err(|e| err(e.to_string()))? + "\n";
    std::fs::create_dir_all(&dir).map_err(|e| err(format!("{}: {e}", dir.display())))?;
    write_atomic(&dir.join("genesis.json"), text.as_bytes())?;
    let accounts = ["agent", "second", "deployer"]
        .iter()
        .map(|r| {
            let k = role_key(r);
            AccountEntry {
                name: r.to_string(),
                address: k.address(),
                key: format!("0x{}", alloy::primitives::hex::encode(k.to_bytes())),
            }
        })
        .collect();
    let manifest = Manifest {
        version: 1,
        profile,
        chain_id: profile.chain_id(),
        genesis: "genesis.json".into(),
        genesis_sha256: super::sha256_hex(text.as_bytes()),
        timestamp,
        accounts,
        contracts: b.contracts,
        pairs: b.pairs,
        notes,
    };
    let mtext = serde_json::to_string_pretty(&manifest).map_err(|e| err(e.to_string()))? + "\n";
    write_atomic(&dir.join("manifest.json"), mtext.as_bytes())?;
    Ok(BuildReport {
        manifest,
        dir,
        build_ms: started.elapsed().as_secs_f64() * 1e3,
        genesis_bytes: text.len(),
    })
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ChainError> {
    crucible_core::durable::write_file(path, bytes)
        .map_err(|e| err(format!("{}: {e}", path.display())))
}

/// Converts a state dump into a genesis file: every account with code or storage, plus the role
/// accounts; sorted, zero slots dropped, so the same state gives the same bytes.
fn genesis_from_dump(
    dump: &Value,
    chain_id: u64,
    timestamp: u64,
    roles: &[Address],
) -> Result<Value, ChainError> {
    let accounts = dump
        .get("accounts")
        .and_then(Value::as_object)
        .ok_or_else(|| err("state dump without accounts"))?;
    let mut alloc = BTreeMap::new();
    for (k, v) in accounts {
        let a: Address = k
            .parse()
            .map_err(|e| err(format!("bad address {k}: {e}")))?;
        let code = v.get("code").and_then(Value::as_str).unwrap_or("0x");
        let mut storage = BTreeMap::new();
        if let Some(s) = v.get("storage").and_then(Value::as_object) {
            for (sk, sv) in s {
                let val = word(sv.as_str().unwrap_or("0x0"))?;
                if val != B256::ZERO {
                    storage.insert(word(sk)?, val);
                }
            }
        }
        let is_role = roles.contains(&a);
        if code == "0x" && storage.is_empty() && !is_role {
            continue;
        }
        let balance = match v.get("balance") {
            Some(Value::String(s)) => U256::from_str_radix(s.trim_start_matches("0x"), 16)
                .map_err(|e| err(e.to_string()))?,
            _ => U256::ZERO,
        };
        let nonce = match v.get("nonce") {
            Some(Value::Number(n)) => n.as_u64().unwrap_or(0),
            Some(Value::String(s)) => {
                u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or(0)
            }
            _ => 0,
        };
        let mut entry = Map::new();
        entry.insert("balance".into(), json!(format!("0x{balance:x}")));
        if code != "0x" {
            entry.insert("code".into(), json!(code));
        }
        entry.insert("nonce".into(), json!(format!("0x{nonce:x}")));
        if !storage.is_empty() {
            let s: Map<String, Value> = storage
                .iter()
                .map(|(k, v)| (format!("{k}"), json!(format!("{v}"))))
                .collect();
            entry.insert("storage".into(), Value::Object(s));
        }
        alloc.insert(format!("{a:?}"), Value::Object(entry));
    }
    Ok(json!({
        "config": { "chainId": chain_id },
        "nonce": "0x0",
        "timestamp": format!("0x{timestamp:x}"),
        "extraData": "0x",
        "gasLimit": "0x1c9c380",
        "difficulty": "0x0",
        "mixHash": B256::ZERO,
        "coinbase": Address::ZERO,
        "number": "0x0",
        "alloc": alloc,
    }))
}

async fn build_bsc(
    b: &mut Builder,
    agent: Address,
    second: Address,
) -> Result<Vec<String>, ChainError> {
    let d = b.deployer;
    let wbnb = b
        .place(
            "WBNB",
            "WETH9",
            &[],
            address!("bb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c"),
            token("WBNB", 18, false),
        )
        .await?;
    b.chain
        .set_storage(wbnb, B256::ZERO, short_string("Wrapped BNB"))
        .await?;
    b.chain
        .set_storage(wbnb, B256::with_last_byte(1), short_string("WBNB"))
        .await?;
    let supply = ether(1_000_000_000);
    let bep20 = |name: &str, symbol: &str| {
        vec![
            text(name),
            text(symbol),
            small(18, 8),
            uint(supply),
            addr(d),
        ]
    };
    let usdt = b
        .place(
            "USDT",
            "BEP20Token",
            &bep20("Tether USD", "USDT"),
            address!("55d398326f99059fF775485246999027B3197955"),
            token("USDT", 18, false),
        )
        .await?;
    let busd = b
        .place(
            "BUSD",
            "BEP20Token",
            &bep20("BUSD Token", "BUSD"),
            address!("e9e7CEA3DedcA5984780Bafc599bD69ADd087D56"),
            token("BUSD", 18, false),
        )
        .await?;
    let cake = b
        .place(
            "CAKE",
            "BEP20Token",
            &bep20("PancakeSwap Token", "Cake"),
            address!("0E09FaBB73Bd3Ade0a17ECC321fD13a19e81cE82"),
            token("CAKE", 18, false),
        )
        .await?;
    let factory = b
        .place(
            "PancakeFactory",
            "UniswapV2Factory",
            &[addr(d)],
            address!("cA143Ce32Fe78f1f7019d7d551a6402fC5350c73"),
            CANON,
        )
        .await?;
    let router = b
        .place(
            "PancakeRouter",
            "UniswapV2Router02",
            &[addr(factory), addr(wbnb)],
            address!("10ED43C718714eb63d5aA57B78B54704E256024E"),
            CANON,
        )
        .await?;
    b.patch_router_hash(router, PANCAKE_PAIR_HASH).await?;
    let dex = Dex {
        name: "PancakeFactory",
        factory,
        pair_hash: PANCAKE_PAIR_HASH,
        canonical_pairs: true,
    };
    // Prices: 1 BNB = 600 USD, 1 CAKE = 2.5 USD, stables at par.
    let pools: [(&str, Address, u64, &str, Address, u64); 6] = [
        ("USDT", usdt, 10_000_000, "BUSD", busd, 10_000_000),
        ("WBNB", wbnb, 10_000, "USDT", usdt, 6_000_000),
        ("CAKE", cake, 2_400_000, "WBNB", wbnb, 10_000),
        ("BUSD", busd, 6_000_000, "WBNB", wbnb, 10_000),
        ("CAKE", cake, 2_000_000, "USDT", usdt, 5_000_000),
        ("CAKE", cake, 2_000_000, "BUSD", busd, 5_000_000),
    ];
    b.wrap(wbnb, d, ether(40_000)).await?;
    for (na, a, xa, nb, bb, xb) in pools {
        b.create_pair(&dex, (na, a), (nb, bb)).await?;
        b.add_liquidity(router, a, ether(xa), bb, ether(xb)).await?;
    }
    let squad = b
        .place(
            "PancakeSquad",
            "PancakeSquad",
            &[addr(d)],
            address!("0a8901b0E25DEb55A87524f0cC164E9644020EBA"),
            CANON,
        )
        .await?;
    b.exec(
        d,
        squad,
        "PancakeSquad",
        "transferFrom",
        &[addr(d), addr(agent), uint(U256::from(1u64))],
        U256::ZERO,
    )
    .await?;

    // Test contracts, deployed by the deployer (their addresses are in the manifest).
    b.deploy_named("erc1363_token", "ERC1363Token", &[addr(agent)], LOCAL)
        .await?;
    b.deploy_named("erc721_token", "ERC721NFT", &[addr(agent)], LOCAL)
        .await?;
    b.deploy_named("erc1155_token", "TestERC1155Token", &[addr(agent)], LOCAL)
        .await?;
    let flash = b
        .deploy_named(
            "flashloan_contract",
            "FlashLoanReceiver",
            &[addr(usdt)],
            LOCAL,
        )
        .await?;
    b.transfer(d, usdt, flash, ether(10_000)).await?;
    b.deploy_named("simple_counter", "SimpleCounter", &[], LOCAL)
        .await?;
    b.deploy_named("donation_box", "DonationBox", &[], LOCAL)
        .await?;
    b.deploy_named("message_board", "MessageBoard", &[], LOCAL)
        .await?;
    let implementation = b
        .deploy_named("implementation", "Implementation", &[], LOCAL)
        .await?;
    b.deploy_named("proxy", "DelegateCallProxy", &[addr(implementation)], LOCAL)
        .await?;
    b.deploy_named("fallback_receiver", "FallbackReceiver", &[], LOCAL)
        .await?;
    b.deploy_named("simple_staking", "SimpleStaking", &[addr(cake)], LOCAL)
        .await?;
    let lp = b.pair("USDT/BUSD")?;
    b.deploy_named("simple_lp_staking", "SimpleLPStaking", &[addr(lp)], LOCAL)
        .await?;
    let pool = b
        .deploy_named(
            "simple_reward_pool",
            "SimpleRewardPool",
            &[
                addr(lp),
                addr(cake),
                uint(U256::from(10u64).pow(U256::from(16u64))),
            ],
            LOCAL,
        )
        .await?;
    b.transfer(d, cake, pool, ether(10_000)).await?;

    // The agent's positions (reference funding table, without pre-granted allowances).
    b.transfer(d, usdt, agent, ether(1_000)).await?;
    b.transfer(d, busd, agent, ether(1_000)).await?;
    b.transfer(d, wbnb, agent, ether(100)).await?;
    b.transfer(d, cake, agent, ether(100)).await?;
    b.transfer(d, lp, agent, ether(2)).await?;
    b.transfer(d, b.pair("WBNB/USDT")?, agent, ether(2)).await?;
    let half = ether(1) / U256::from(2u64);
    b.approve(agent, lp, pool, half).await?;
    b.exec(
        agent,
        pool,
        "SimpleRewardPool",
        "deposit",
        &[uint(half)],
        U256::ZERO,
    )
    .await?;
    b.transfer(d, usdt, second, ether(5_000)).await?;
    b.chain.increase_time(100).await?;
    b.chain.mine(1).await?;
    Ok(vec![
        "PancakeSwap V2 factory, router and pairs run Uniswap V2 code (0.30 % swap fee, LP token named \"Uniswap V2\"/\"UNI-V2\"); PancakeSwap V2 charges 0.25 %. The router's pair init code hash is PancakeSwap's, so pairs sit at their mainnet addresses.".into(),
        "USDT, BUSD and CAKE are Crucible's BEP-20 with the mainnet storage layout (owner slot 0, balances slot 1, allowances slot 2).".into(),
        "No allowances are pre-granted; the agent's 0.5 USDT/BUSD LP stake in simple_reward_pool was approved and deposited during the build.".into(),
    ])
}

/// Voting period (seconds) of the Intent2Tx book's `Crucible_Governor`.
pub const INTENT_VOTING_PERIOD: u64 = 30 * 24 * 3600;

/// Where the Intent2Tx address book puts a Crucible-local contract: the last 20 bytes of
/// `keccak256("crucible:" + name)`.
pub fn book_address(name: &str) -> Address {
    Address::from_slice(&alloy::primitives::keccak256(format!("crucible:{name}"))[12..])
}

async fn build_eth(
    b: &mut Builder,
    agent: Address,
    second: Address,
) -> Result<Vec<String>, ChainError> {
    let d = b.deployer;
    let weth = b
        .place(
            "WETH",
            "WETH9",
            &[],
            address!("C02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"),
            token("WETH", 18, false),
        )
        .await?;
    let tokens: [(&str, &str, &str, u8, Address, &str); 7] = [
        (
            "USDT",
            "Tether USD",
            "USDT",
            6,
            address!("dAC17F958D2ee523a2206206994597C13D831ec7"),
            "TetherToken",
        ),
        (
            "USDC",
            "USD Coin",
            "USDC",
            6,
            address!("A0b86991c6218b36c1d19D4a2e9Eb0cE3606eb48"),
            "CanonToken",
        ),
        (
            "DAI",
            "Dai Stablecoin",
            "DAI",
            18,
            address!("6B175474E89094C44Da98b954EedeAC495271d0F"),
            "CanonToken",
        ),
        (
            "WBTC",
            "Wrapped BTC",
            "WBTC",
            8,
            address!("2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599"),
            "CanonToken",
        ),
        (
            "LINK",
            "ChainLink Token",
            "LINK",
            18,
            address!("514910771AF9Ca656af840dff83E8264EcF986CA"),
            "CanonToken",
        ),
        (
            "UNI",
            "Uniswap",
            "UNI",
            18,
            address!("1f9840a85d5aF5bf1D1762F925BDADdC4201F984"),
            "CanonToken",
        ),
        (
            "AAVE",
            "Aave Token",
            "AAVE",
            18,
            address!("7Fc66500c84A76Ad7e9c93437bFc5Ac33E2DDaE9"),
            "CanonToken",
        ),
    ];
    let mut addr_of = BTreeMap::new();
    addr_of.insert("WETH", weth);
    for (name, full, symbol, dec, at, artifact) in tokens {
        let args = [
            text(full),
            text(symbol),
            small(dec as u64, 8),
            uint(units(10_000_000_000, dec)),
            addr(d),
        ];
        b.place(name, artifact, &args, at, token(symbol, dec, true))
            .await?;
        addr_of.insert(name, at);
    }
    let dec: BTreeMap<&str, u8> = tokens
        .iter()
        .map(|t| (t.0, t.3))
        .chain([("WETH", 18)])
        .collect();
    let uni_factory = b
        .place(
            "UniswapV2Factory",
            "UniswapV2Factory",
            &[addr(d)],
            address!("5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f"),
            CANON,
        )
        .await?;
    let uni_router = b
        .place(
            "UniswapV2Router02",
            "UniswapV2Router02",
            &[addr(uni_factory), addr(weth)],
            address!("7a250d5630B4cF539739dF2C5dAcb4c659F2488D"),
            CANON,
        )
        .await?;
    let sushi_factory = b
        .place(
            "SushiSwapFactory",
            "UniswapV2Factory",
            &[addr(d)],
            address!("C0AEe478e3658e2610c5F7A4A2E1777cE9e4f2Ac"),
            CANON,
        )
        .await?;
    let sushi_router = b
        .place(
            "SushiSwapRouter",
            "UniswapV2Router02",
            &[addr(sushi_factory), addr(weth)],
            address!("d9e1cE17f2641f24aE83637ab66a2cca9C378B9F"),
            CANON,
        )
        .await?;
    b.patch_router_hash(sushi_router, SUSHI_PAIR_HASH).await?;
    b.wrap(weth, d, ether(300_000)).await?;
    // Prices in USD: ETH 3000, BTC 90000, LINK 15, UNI 8, AAVE 200, stables 1.
    let price: BTreeMap<&str, u64> = [
        ("WETH", 3000),
        ("WBTC", 90_000),
        ("LINK", 15),
        ("UNI", 8),
        ("AAVE", 200),
        ("USDT", 1),
        ("USDC", 1),
        ("DAI", 1),
    ]
    .into_iter()
    .collect();
    let depth_usd = 30_000_000u64;
    let uni_pools = [
        ("WETH", "USDC"),
        ("WETH", "USDT"),
        ("WETH", "DAI"),
        ("WBTC", "WETH"),
        ("USDC", "USDT"),
        ("DAI", "USDC"),
        ("LINK", "WETH"),
        ("UNI", "WETH"),
        ("AAVE", "WETH"),
    ];
    let sushi_pools = [
        ("WETH", "USDC"),
        ("WETH", "USDT"),
        ("WETH", "DAI"),
        ("WBTC", "WETH"),
    ];
    for (dex, router, pools) in [
        (
            Dex {
                name: "UniswapV2Factory",
                factory: uni_factory,
                pair_hash: UNISWAP_PAIR_HASH,
                canonical_pairs: true,
            },
            uni_router,
            &uni_pools[..],
        ),
        (
            Dex {
                name: "SushiSwapFactory",
                factory: sushi_factory,
                pair_hash: SUSHI_PAIR_HASH,
                canonical_pairs: true,
            },
            sushi_router,
            &sushi_pools[..],
        ),
    ] {
        for (x, y) in pools {
            let (ax, ay) = (addr_of[x], addr_of[y]);
            b.create_pair(&dex, (x, ax), (y, ay)).await?;
            let amount = |t: &str| units(depth_usd / price[t], dec[t]);
            b.add_liquidity(router, ax, amount(x), ay, amount(y))
                .await?;
        }
    }
    // Lending, staking, vault, governance, NFTs.
    let aave = b
        .place(
            "AaveV3Pool",
            "AaveV3Pool",
            &[],
            address!("87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2"),
            STAND_IN,
        )
        .await?;
    for (t, ltv) in [
        ("WETH", 8000u64),
        ("WBTC", 7300),
        ("USDC", 7700),
        ("USDT", 7500),
        ("DAI", 7700),
        ("LINK", 6600),
        ("AAVE", 6600),
        ("UNI", 6500),
    ] {
        let p = U256::from(price[t]) * U256::from(100_000_000u64);
        b.exec(
            d,
            aave,
            "AaveV3Pool",
            "setReserve",
            &[
                addr(addr_of[t]),
                uint(p),
                small(ltv, 16),
                small(ltv + 500, 16),
            ],
            U256::ZERO,
        )
        .await?;
        let liquidity = units(2_000_000 / price[t].max(1), dec[t]);
        b.approve(d, addr_of[t], aave, liquidity).await?;
        b.exec(
            d,
            aave,
            "AaveV3Pool",
            "supply",
            &[addr(addr_of[t]), uint(liquidity), addr(d), small(0, 16)],
            U256::ZERO,
        )
        .await?;
    }
    let lido = b
        .place(
            "LidoStETH",
            "LidoStETH",
            &[],
            address!("ae7ab96520DE3A18E5e111B5EaAb095312D7fE84"),
            Meta {
                canonical: true,
                stand_in: true,
                token: Some(("stETH", 18)),
            },
        )
        .await?;
    b.exec(
        d,
        lido,
        "LidoStETH",
        "submit",
        &[addr(Address::ZERO)],
        ether(1_000),
    )
    .await?;
    let comet = b
        .place(
            "CometUSDC",
            "CometUSDC",
            &[addr(addr_of["USDC"]), addr(weth), addr(addr_of["WBTC"])],
            address!("c3d688B66703497DAA19211EEdff47f25384cdc3"),
            STAND_IN,
        )
        .await?;
    let comet_liq = units(5_000_000, 6);
    b.approve(d, addr_of["USDC"], comet, comet_liq).await?;
    b.exec(
        d,
        comet,
        "CometUSDC",
        "supply",
        &[addr(addr_of["USDC"]), uint(comet_liq)],
        U256::ZERO,
    )
    .await?;
    let punks = b
        .place(
            "CryptoPunks",
            "CryptoPunksMarket",
            &[addr(d)],
            address!("b47e3cd837dDF8e4c57F05d70Ab865de6e193BBB"),
            STAND_IN,
        )
        .await?;
    for id in 0..5u64 {
        b.exec(
            d,
            punks,
            "CryptoPunksMarket",
            "transferPunk",
            &[addr(agent), uint(U256::from(id))],
            U256::ZERO,
        )
        .await?;
    }
    b.deploy_named(
        "CrucibleVault",
        "CrucibleVault",
        &[addr(addr_of["DAI"])],
        LOCAL,
    )
    .await?;
    let votes = b
        .deploy_named(
            "CrucibleVotes",
            "CrucibleVotes",
            &[addr(agent), uint(ether(1_000_000))],
            LOCAL,
        )
        .await?;
    b.deploy_named(
        "CrucibleGovernor",
        "CrucibleGovernor",
        &[
            addr(votes),
            small(1, 48),
            small(3600, 32),
            uint(U256::from(4u64)),
        ],
        LOCAL,
    )
    .await?;
    b.exec(
        agent,
        votes,
        "CrucibleVotes",
        "delegate",
        &[addr(agent)],
        U256::ZERO,
    )
    .await?;
    b.deploy_named("CrucibleNFT", "CrucibleNFT", &[addr(agent)], LOCAL)
        .await?;
    b.deploy_named("CrucibleItems", "CrucibleItems", &[addr(agent)], LOCAL)
        .await?;
    // The Intent2Tx address book's Crucible-local contracts, at the book's addresses (last 20
    // bytes of keccak256("crucible:" + name)). Their holdings start with the deployer; the
    // Intent2Tx fixture (`intent::execute::prepare`) hands the dataset's sender what it assumes.
    b.place(
        "Crucible_DAI_Vault",
        "CrucibleVault",
        &[addr(addr_of["DAI"])],
        book_address("Crucible_DAI_Vault"),
        LOCAL,
    )
    .await?;
    b.place(
        "Crucible_USDC_Vault",
        "CrucibleVault",
        &[addr(addr_of["USDC"])],
        book_address("Crucible_USDC_Vault"),
        LOCAL,
    )
    .await?;
    // A voting period of 30 days keeps the fixture's Active proposals open through any evaluation.
    b.place(
        "Crucible_Governor",
        "CrucibleGovernor",
        &[
            addr(votes),
            small(1, 48),
            small(INTENT_VOTING_PERIOD, 32),
            uint(U256::from(4u64)),
        ],
        book_address("Crucible_Governor"),
        LOCAL,
    )
    .await?;
    b.place(
        "Crucible_Collectibles",
        "CrucibleNFT",
        &[addr(d)],
        book_address("Crucible_Collectibles"),
        LOCAL,
    )
    .await?;
    b.place(
        "Crucible_Items",
        "CrucibleItems",
        &[addr(d)],
        book_address("Crucible_Items"),
        LOCAL,
    )
    .await?;

    // The agent's holdings (Intent2Tx ground truths are executed from this account).
    for (t, n) in [
        ("USDT", 100_000u64),
        ("USDC", 100_000),
        ("DAI", 100_000),
        ("WBTC", 10),
        ("LINK", 1_000),
        ("UNI", 1_000),
        ("AAVE", 100),
        ("WETH", 50),
    ] {
        let amount = units(n, dec[t]);
        if t == "USDT" {
            b.exec(
                d,
                addr_of[t],
                "TetherToken",
                "transfer",
                &[addr(agent), uint(amount)],
                U256::ZERO,
            )
            .await?;
        } else {
            b.transfer(d, addr_of[t], agent, amount).await?;
        }
    }
    b.exec(
        d,
        addr_of["USDC"],
        "CanonToken",
        "transfer",
        &[addr(second), uint(units(5_000, 6))],
        U256::ZERO,
    )
    .await?;
    Ok(vec![
        "Uniswap V2 and SushiSwap run the genuine Uniswap V2 code; SushiSwap's router carries SushiSwap's pair init code hash so its pairs sit at their mainnet addresses.".into(),
        "Tokens other than WETH are Crucible's ERC-20 (USDT with mainnet USDT's no-return-value transfer/approve); balances are not at mainnet storage slots.".into(),
        "Aave V3 pool, Lido stETH, Compound V3 USDC market and CryptoPunks are stand-ins with the real function signatures and semantics of the functions they have (see assets/contracts/README.md).".into(),
    ])
}
