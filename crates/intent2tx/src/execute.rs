//! Execution-based evaluation on the eth universe (the paper's RQ4): the ground truth G and the
//! prediction P are ABI-encoded ([`encode_steps`]), each executed step by step from the same
//! snapshot and the same sender, and compared by account-level balance deltas ([`state`]).
//!
//! This is the only part of the Intent2Tx subsystem that talks to a chain. It owns the execution
//! fixture ([`prepare`]): the dataset-specific account state the generator's [`FUNDING`] assumes
//! (the sender's balances, allowances, Aave/Comet positions, vault shares, LP tokens, governor
//! fixture proposals, punks and NFTs), applied by impersonation after boot and then snapshotted.
//! Contracts themselves belong to the universe build, not here.
//!
//! Rules: gas fees are added back to the sender's native delta (so equivalent calls with
//! different gas use compare equal); a prediction that cannot be read as calls or encoded (unknown
//! function, bad value) is "not executed" with the reason recorded, never an error; only
//! infrastructure failures (node gone, transport) are errors. Balances are read for the watch
//! list ([`state::watch_list`]) plus every address named in a `Transfer`, `Deposit` or
//! `Withdrawal` log of either execution, for native ETH and every implemented token of the book.

use std::collections::{BTreeSet, HashSet};
use std::time::Duration;

use alloy::primitives::{keccak256, Address, Bytes, B256, I256, U256};
use alloy::sol;
use alloy::sol_types::SolCall;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::book::AddressBook;
use super::encode::{encode_steps, EncodedCall};
use super::generate::{
    fixture_proposal, generate_filtered, GenerateOptions, Generated, ITEM_IDS, NFT_IDS,
    PUNKS_OFFERED, PUNKS_OWNED, RECIPIENTS, SENDER,
};
use super::parse::Parsed;
use super::schema::{Call, Instance};
use super::state::{self, Asset, Deltas, ExecOutcome, Mismatch};
use super::value::parse_address;
use super::IntentError;
use crucible_chain::universe::{self, Manifest, Profile};
use crucible_chain::{decode_revert, Chain, ChainError, SnapshotId, TxRequest};
use crucible_core::config::Config;

#[allow(missing_docs)]
mod abi {
    use super::sol;
    sol! {
        function approve(address spender, uint256 amount);
        function transfer(address to, uint256 amount);
        function transferFrom(address from, address to, uint256 id);
        function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data);
        function deposit();
        function submit(address referral) returns (uint256);
        function balanceOf(address owner) returns (uint256);
        function ownerOf(uint256 id) returns (address);
        function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode);
        function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf);
        function cometSupply(address asset, uint256 amount);
        function vaultDeposit(uint256 assets, address receiver);
        function delegate(address delegatee);
        function propose(address[] targets, uint256[] values, bytes[] calldatas, string description);
        function castVote(uint256 proposalId, uint8 support);
        function transferPunk(address to, uint256 punkIndex);
        function offerPunkForSale(uint256 punkIndex, uint256 minSalePriceInWei);
    }
}

/// Comet's and the vault's functions share names with Aave's/WETH's; these build their calldata
/// under the real names.
fn selector_call(signature: &str, args: Vec<u8>) -> Bytes {
    let mut data = keccak256(signature.as_bytes())[..4].to_vec();
    data.extend(args);
    Bytes::from(data)
}

const MAX: U256 = U256::MAX;

fn wei(n: u64, decimals: u8) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(decimals))
}

fn sender() -> Address {
    SENDER.parse().expect("SENDER is an address")
}

fn dev1() -> Address {
    RECIPIENTS[0].parse().expect("RECIPIENTS are addresses")
}

/// A fixture step that must succeed.
async fn must(
    chain: &Chain,
    from: Address,
    to: Address,
    data: Bytes,
    value: U256,
    what: &str,
) -> Result<(), IntentError> {
    let tx = TxRequest::call(to, data)
        .with_value(value)
        .with_gas(3_000_000);
    let r = chain.send_as(from, &tx).await?;
    if !r.success {
        return Err(IntentError::Fixture(format!(
            "{what} reverted: {}",
            r.revert_reason.unwrap_or_else(|| "no reason".into())
        )));
    }
    Ok(())
}

/// Applies the execution fixture: the account state [`FUNDING`](super::generate::FUNDING)
/// describes, on a freshly booted eth universe, by impersonated transactions from the deployer,
/// the agent, dev account 1 and the sender. Idempotent: a chain that already has it (the sender
/// owns Crucible_Collectibles #1) is left alone.
pub async fn prepare(
    chain: &Chain,
    manifest: &Manifest,
    book: &AddressBook,
) -> Result<(), IntentError> {
    let addr = |name: &str| -> Result<Address, IntentError> {
        book.by_name(name)
            .map(|e| e.address)
            .ok_or_else(|| IntentError::Fixture(format!("the address book has no {name}")))
    };
    let s = sender();
    let collectibles = addr("Crucible_Collectibles")?;
    if chain.code(collectibles).await?.is_empty() {
        return Err(IntentError::Fixture(format!(
            "Crucible_Collectibles has no code at {collectibles}; rebuild the universe with `crucible universe build --profile eth`"
        )));
    }
    if let Ok(owner) = chain.erc721_owner(collectibles, U256::from(1u64)).await {
        if owner == s {
            return Ok(());
        }
    }
    // Paper-book contracts the universe lacks (bridges, the Comptroller's reward claim).
    super::standins::install(chain, book).await?;
    let d = manifest.account("deployer")?.address;
    let agent = manifest.account("agent")?.address;
    let one = dev1();
    for who in [s, one, d, agent] {
        chain.set_balance(who, wei(1_000, 18)).await?;
    }
    // Tokens from the deployer (it holds the remaining supply).
    let weth = addr("WETH")?;
    let funding: [(&str, u64); 7] = [
        ("USDT", 105_000),
        ("USDC", 170_000),
        ("DAI", 110_000),
        ("WBTC", 10),
        ("LINK", 5_000),
        ("UNI", 5_000),
        ("AAVE", 500),
    ];
    for (t, n) in funding {
        let e = book.expect(t);
        let amount = wei(n, e.decimals.unwrap_or(18));
        let data = abi::transferCall { to: s, amount }.abi_encode();
        must(
            chain,
            d,
            e.address,
            data.into(),
            U256::ZERO,
            &format!("funding {t}"),
        )
        .await?;
    }
    must(
        chain,
        s,
        weth,
        abi::depositCall {}.abi_encode().into(),
        wei(75, 18),
        "wrapping 75 ETH",
    )
    .await?;
    let lido = addr("Lido_stETH")?;
    let data = abi::submitCall {
        referral: Address::ZERO,
    }
    .abi_encode();
    must(
        chain,
        s,
        lido,
        data.into(),
        wei(10, 18),
        "staking 10 ETH with Lido",
    )
    .await?;
    for t in ["USDC", "DAI"] {
        let e = book.expect(t);
        let amount = wei(5_000, e.decimals.unwrap_or(18));
        must(
            chain,
            d,
            e.address,
            abi::transferCall { to: one, amount }.abi_encode().into(),
            U256::ZERO,
            "funding dev account 1",
        )
        .await?;
        let allowance = wei(1_000, e.decimals.unwrap_or(18));
        must(
            chain,
            one,
            e.address,
            abi::approveCall {
                spender: s,
                amount: allowance,
            }
            .abi_encode()
            .into(),
            U256::ZERO,
            "dev account 1's approval",
        )
        .await?;
    }
    // Standing max allowances.
    let spenders = [
        "Uniswap_V2_Router",
        "SushiSwap_Router",
        "Aave_V3_Lending_Pool",
        "Compound_V3_USDC_Market",
        "Crucible_DAI_Vault",
        "Crucible_USDC_Vault",
    ];
    for t in ["USDT", "USDC", "DAI", "WBTC", "WETH", "LINK", "UNI", "AAVE"] {
        for sp in spenders {
            let data = abi::approveCall {
                spender: addr(sp)?,
                amount: MAX,
            }
            .abi_encode();
            must(
                chain,
                s,
                addr(t)?,
                data.into(),
                U256::ZERO,
                &format!("approving {t} to {sp}"),
            )
            .await?;
        }
    }
    // LP tokens of every Uniswap V2 pair (half the deployer's, at most 1e18), approved to the
    // router. Pools of 6-decimal tokens have small LP supplies; removals the sender cannot afford
    // are dropped by the generator's chain filter.
    let router = addr("Uniswap_V2_Router")?;
    for p in manifest
        .pairs
        .iter()
        .filter(|p| p.factory == "UniswapV2Factory")
    {
        let held = chain.erc20_balance(p.address, d).await?;
        let amount = (held / U256::from(2u64)).min(wei(1, 18));
        must(
            chain,
            d,
            p.address,
            abi::transferCall { to: s, amount }.abi_encode().into(),
            U256::ZERO,
            &format!("LP of {}", p.name),
        )
        .await?;
        must(
            chain,
            s,
            p.address,
            abi::approveCall {
                spender: router,
                amount: MAX,
            }
            .abi_encode()
            .into(),
            U256::ZERO,
            "LP approval",
        )
        .await?;
    }
    // Aave V3 and Compound V3 positions.
    let aave = addr("Aave_V3_Lending_Pool")?;
    let usdc = addr("USDC")?;
    for (asset, amount) in [(weth, wei(20, 18)), (usdc, wei(50_000, 6))] {
        let data = abi::supplyCall {
            asset,
            amount,
            onBehalfOf: s,
            referralCode: 0,
        }
        .abi_encode();
        must(chain, s, aave, data.into(), U256::ZERO, "Aave supply").await?;
    }
    for (asset, amount) in [
        (addr("DAI")?, wei(5_000, 18)),
        (addr("USDT")?, wei(5_000, 6)),
    ] {
        let data = abi::borrowCall {
            asset,
            amount,
            interestRateMode: U256::from(2u64),
            referralCode: 0,
            onBehalfOf: s,
        }
        .abi_encode();
        must(chain, s, aave, data.into(), U256::ZERO, "Aave borrow").await?;
    }
    let comet = addr("Compound_V3_USDC_Market")?;
    for (asset, amount) in [(usdc, wei(10_000, 6)), (weth, wei(5, 18))] {
        let args = abi::cometSupplyCall { asset, amount }.abi_encode()[4..].to_vec();
        must(
            chain,
            s,
            comet,
            selector_call("supply(address,uint256)", args),
            U256::ZERO,
            "Comet supply",
        )
        .await?;
    }
    for (vault, dec) in [("Crucible_DAI_Vault", 18u8), ("Crucible_USDC_Vault", 6)] {
        let args = abi::vaultDepositCall {
            assets: wei(10_000, dec),
            receiver: s,
        }
        .abi_encode()[4..]
            .to_vec();
        must(
            chain,
            s,
            addr(vault)?,
            selector_call("deposit(uint256,address)", args),
            U256::ZERO,
            "vault deposit",
        )
        .await?;
    }
    // Governance: votes for the sender, proposals 101-103 Succeeded, then 1-3 Active.
    let votes = manifest.contract("CrucibleVotes")?;
    let governor = addr("Crucible_Governor")?;
    must(
        chain,
        agent,
        votes,
        abi::transferCall {
            to: s,
            amount: wei(500_000, 18),
        }
        .abi_encode()
        .into(),
        U256::ZERO,
        "moving votes",
    )
    .await?;
    must(
        chain,
        s,
        votes,
        abi::delegateCall { delegatee: s }.abi_encode().into(),
        U256::ZERO,
        "delegating",
    )
    .await?;
    chain.increase_time(2).await?;
    chain.mine(1).await?;
    let propose = |n: u64| -> Result<(Bytes, U256), IntentError> {
        let (t, v, c, desc) = fixture_proposal(n);
        let targets = t
            .iter()
            .map(|a| {
                a.parse::<Address>()
                    .map_err(|e| IntentError::Fixture(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let values = v
            .iter()
            .map(|x| x.parse::<U256>().unwrap_or_default())
            .collect();
        let calldatas = c
            .iter()
            .map(|x| x.parse::<Bytes>().unwrap_or_default())
            .collect();
        let id = super::generate::proposal_id(&t, &v, &c, &desc);
        Ok((
            abi::proposeCall {
                targets,
                values,
                calldatas,
                description: desc,
            }
            .abi_encode()
            .into(),
            id,
        ))
    };
    let mut succeeded = Vec::new();
    for n in 101..=103u64 {
        let (data, id) = propose(n)?;
        must(chain, s, governor, data, U256::ZERO, "fixture proposal").await?;
        succeeded.push(id);
    }
    chain.increase_time(2).await?;
    chain.mine(1).await?;
    for id in succeeded {
        must(
            chain,
            s,
            governor,
            abi::castVoteCall {
                proposalId: id,
                support: 1,
            }
            .abi_encode()
            .into(),
            U256::ZERO,
            "fixture vote",
        )
        .await?;
    }
    chain
        .increase_time(universe::INTENT_VOTING_PERIOD + 10)
        .await?;
    chain.mine(1).await?;
    for n in 1..=3u64 {
        let (data, _) = propose(n)?;
        must(chain, s, governor, data, U256::ZERO, "fixture proposal").await?;
    }
    chain.increase_time(2).await?;
    chain.mine(1).await?;
    // CryptoPunks: owned by the sender, offered by dev account 1.
    let punks = addr("CryptoPunks")?;
    for id in PUNKS_OWNED {
        must(
            chain,
            d,
            punks,
            abi::transferPunkCall {
                to: s,
                punkIndex: U256::from(id),
            }
            .abi_encode()
            .into(),
            U256::ZERO,
            "punk",
        )
        .await?;
    }
    for id in PUNKS_OFFERED {
        must(
            chain,
            d,
            punks,
            abi::transferPunkCall {
                to: one,
                punkIndex: U256::from(id),
            }
            .abi_encode()
            .into(),
            U256::ZERO,
            "punk",
        )
        .await?;
        let data = abi::offerPunkForSaleCall {
            punkIndex: U256::from(id),
            minSalePriceInWei: wei(2, 18),
        }
        .abi_encode();
        must(chain, one, punks, data.into(), U256::ZERO, "punk offer").await?;
    }
    // ERC-721 and ERC-1155 holdings.
    for id in NFT_IDS {
        let data = abi::transferFromCall {
            from: d,
            to: s,
            id: U256::from(id),
        }
        .abi_encode();
        must(chain, d, collectibles, data.into(), U256::ZERO, "ERC-721").await?;
    }
    let items = addr("Crucible_Items")?;
    for (id, amount) in ITEM_IDS.zip([1_000u64, 500, 100]) {
        let data = abi::safeTransferFromCall {
            from: d,
            to: s,
            id: U256::from(id),
            amount: U256::from(amount),
            data: Bytes::new(),
        }
        .abi_encode();
        must(chain, d, items, data.into(), U256::ZERO, "ERC-1155").await?;
    }
    chain.set_balance(s, wei(100, 18)).await?;
    chain.set_balance(one, wei(100, 18)).await?;
    chain.mine(1).await?;
    tracing::debug!(target: "intent::execute", "fixture applied");
    Ok(())
}

/// How one execution of a call sequence went (a field a stored one lacks reads as its
/// default).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepRun {
    /// The resolved signature.
    pub signature: String,
    /// True when the step did not revert.
    pub success: bool,
    /// Gas used.
    pub gas_used: u64,
    /// Why it failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The execution verdict of one instance (a field a stored one lacks reads as its default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExecReport {
    /// G executed without revert (every step).
    pub truth_executes: bool,
    /// Why G did not execute, when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truth_reason: Option<String>,
    /// P executed without revert (every step, and P could be read and encoded).
    pub exec: bool,
    /// Why P did not execute, when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// StateEq: P's balance deltas match G's within 1 % (false when either did not execute).
    pub state_eq: bool,
    /// The balances where P differs from G.
    pub mismatches: Vec<Mismatch>,
    /// P's steps as executed.
    pub steps: Vec<StepRun>,
    /// P's mined transactions with their logs and state diffs (the chain inspector's input).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prediction_txs: Vec<Value>,
    /// G's mined transactions, the same way.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub truth_txs: Vec<Value>,
}

impl ExecReport {
    /// The outcome for [`state::exec_figures`].
    pub fn outcome(&self) -> ExecOutcome {
        ExecOutcome {
            truth_executes: self.truth_executes,
            prediction_executes: self.exec,
            state_eq: self.state_eq,
        }
    }
}

/// Why a parsed answer cannot be executed as calls.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnreadablePrediction {
    /// The answer did not parse (the parser's message).
    #[error("{0}")]
    Parse(String),
    /// The answer parsed to no steps.
    #[error("the answer has no steps")]
    NoSteps,
    /// A step is not a call in the paper's schema.
    #[error("step {step} is not a call in the schema: {message}")]
    NotACall {
        /// 1-based step number.
        step: usize,
        /// What serde found wrong.
        message: String,
    },
}

/// Reads a parsed answer as calls in the paper's schema: `value` defaults to 0; a step that is not
/// a call is an error naming the step.
pub fn prediction_calls(parsed: &Parsed) -> Result<Vec<Call>, UnreadablePrediction> {
    if parsed.steps.is_empty() {
        return Err(match &parsed.error {
            Some(message) => UnreadablePrediction::Parse(message.clone()),
            None => UnreadablePrediction::NoSteps,
        });
    }
    parsed
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let mut v = step.clone();
            if let Value::Object(m) = &mut v {
                if m.get("value").is_none_or(Value::is_null) {
                    m.insert("value".into(), json!(0));
                }
            }
            serde_json::from_value::<Call>(v).map_err(|e| UnreadablePrediction::NotACall {
                step: i + 1,
                message: e.to_string(),
            })
        })
        .collect()
}

/// A sequence executed once: whether every step succeeded, the steps, the fee paid, log addresses.
struct Run {
    ok: bool,
    reason: Option<String>,
    steps: Vec<StepRun>,
    fees: U256,
    touched: BTreeSet<Address>,
    /// Contracts that emitted one of those logs (the tokens whose balances moved).
    emitters: BTreeSet<Address>,
    /// Each mined step as the chain inspector reads it ([`Executor::tx_record`]).
    txs: Vec<Value>,
}

/// Log topics whose indexed addresses are balance holders worth reading.
fn balance_topics() -> [B256; 3] {
    [
        keccak256("Transfer(address,address,uint256)"),
        keccak256("Deposit(address,uint256)"),
        keccak256("Withdrawal(address,uint256)"),
    ]
}

fn quantity(v: &Value) -> U256 {
    v.as_str()
        .and_then(|s| U256::from_str_radix(s.trim_start_matches("0x"), 16).ok())
        .unwrap_or_default()
}

/// A booted eth universe with the fixture applied, executing instances from one snapshot.
#[derive(Debug)]
pub struct Executor {
    chain: Chain,
    book: AddressBook,
    base: Option<SnapshotId>,
    tokens: Vec<Address>,
    impersonated: HashSet<Address>,
    sends: u64,
    /// Each sender's nonce at the base snapshot (read once).
    base_nonces: std::collections::HashMap<Address, u64>,
    /// Each sender's next nonce since the last revert.
    nonces: std::collections::HashMap<Address, u64>,
    /// Fork mode: what to re-fork from when an instance carries its own block.
    fork: Option<ForkFollow>,
}

/// Fork mode: the run's fork, and the block the executor's chain is forked at now.
#[derive(Debug, Clone)]
struct ForkFollow {
    config: Config,
    /// The run's fork (its block is the default for instances without one).
    target: crucible_chain::fork::ForkTarget,
    /// The block the live chain forks.
    at: u64,
}

/// The block an instance's transaction was mined in, when its metadata records one
/// (`block_number` or `blockNumber`, a number or a decimal/hex string); Intent2Tx's paper forks
/// at that block − 1 so the chain holds the state the original transaction saw.
pub fn instance_block(instance: &Instance) -> Option<u64> {
    let v = ["block_number", "blockNumber"]
        .iter()
        .find_map(|k| instance.metadata.extra.get(*k))?;
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => match s.trim().strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => s.trim().parse().ok(),
        },
        _ => None,
    }
    .filter(|b| *b >= 2)
}

impl Executor {
    /// Boots the eth universe, applies the fixture and takes the base snapshot.
    pub async fn boot(config: &Config, book: AddressBook) -> Result<Self, IntentError> {
        let (chain, manifest) = universe::boot(config, Profile::Eth).await?;
        Self::on_chain(chain, &manifest, book).await
    }

    /// Fork mode: forks `target` (through its persistent cache) at its block, lays the eth
    /// universe over it ([`universe::overlay`]: the Crucible-local contracts and stand-ins the
    /// fork lacks, the accounts' balances), applies the fixture and takes the base snapshot.
    /// Errors before anything runs when the RPC is unreachable, serves another chain or lacks
    /// the block.
    pub async fn boot_fork(
        config: &Config,
        book: AddressBook,
        target: &crucible_chain::fork::ForkTarget,
    ) -> Result<Self, IntentError> {
        let (chain, manifest, _, _) =
            universe::boot_fork_cached(config, Profile::Eth, target).await?;
        let mut ex = Self::on_chain(chain, &manifest, book).await?;
        ex.fork = Some(ForkFollow {
            config: config.clone(),
            target: target.clone(),
            at: target.block,
        });
        Ok(ex)
    }

    /// Fork mode: makes the chain fork the block `instance` needs — its recorded block − 1
    /// ([`instance_block`]), else the run's block — re-forking (through the same persistent
    /// cache directory scheme, one per block) when that differs from the live chain's. One
    /// chain per executor: instances of one block run back to back on it; a change of block
    /// costs a boot. Off a fork this does nothing.
    async fn follow_block(&mut self, instance: &Instance) -> Result<(), IntentError> {
        let Some(f) = &self.fork else {
            return Ok(());
        };
        let want = instance_block(instance).map_or(f.target.block, |b| b - 1);
        if want == f.at {
            return Ok(());
        }
        let mut target = f.target.clone();
        target.block = want;
        let config = f.config.clone();
        tracing::debug!(target: "intent::execute", id = %instance.id, block = want, "re-forking for the instance's block");
        let fresh = Self::boot_fork(&config, self.book.clone(), &target).await?;
        let run_target = f.target.clone();
        *self = fresh;
        if let Some(f) = &mut self.fork {
            f.target = run_target;
            f.at = want;
        }
        Ok(())
    }

    /// Applies the fixture to an already booted eth universe and takes the base snapshot.
    pub async fn on_chain(
        chain: Chain,
        manifest: &Manifest,
        book: AddressBook,
    ) -> Result<Self, IntentError> {
        prepare(&chain, manifest, &book).await?;
        let tokens = book
            .entries()
            .iter()
            .filter(|e| e.implemented && e.decimals.is_some())
            .map(|e| e.address)
            .collect();
        let base = Some(chain.snapshot().await?);
        Ok(Self {
            chain,
            book,
            base,
            tokens,
            impersonated: HashSet::new(),
            sends: 0,
            base_nonces: Default::default(),
            nonces: Default::default(),
            fork: None,
        })
    }

    /// The chain (for reads in tests).
    pub fn chain(&self) -> &Chain {
        &self.chain
    }

    /// Back to the base snapshot (a new one is taken, since ids are single-use).
    async fn fresh(&mut self) -> Result<(), IntentError> {
        if let Some(id) = self.base.take() {
            self.chain.revert(&id).await?;
        }
        // A transaction Anvil left pending (it happens under load) survives evm_revert in the
        // pool and would block or be mined into the next execution: drop it.
        self.chain
            .rpc()
            .call_value("anvil_dropAllTransactions", json!([]))
            .await?;
        self.base = Some(self.chain.snapshot().await?);
        self.nonces.clear();
        Ok(())
    }

    /// The next nonce of `from`. Explicit nonces matter: after `evm_revert` Anvil's own choice
    /// for `eth_sendTransaction` can run ahead of the reverted account and leave the
    /// transaction pending forever.
    async fn next_nonce(&mut self, from: Address) -> Result<u64, IntentError> {
        if let Some(n) = self.nonces.get(&from) {
            return Ok(*n);
        }
        let base = match self.base_nonces.get(&from) {
            Some(n) => *n,
            None => {
                let n = self.chain.nonce(from).await?;
                self.base_nonces.insert(from, n);
                n
            }
        };
        self.nonces.insert(from, base);
        Ok(base)
    }

    /// Sends one call as `from`; returns the step, the fee paid, the receipt's logs and the
    /// transaction's stored form for the chain inspector ([`Executor::tx_record`]; `null` when
    /// the node refused it).
    async fn send(
        &mut self,
        from: Address,
        call: &EncodedCall,
    ) -> Result<(StepRun, U256, Value, Value), IntentError> {
        self.sends += 1;
        // A distinct gas limit per send keeps replays after a revert from colliding with a hash
        // Anvil has already seen; the fee is added back, so deltas do not depend on it.
        let gas = 8_000_000 + self.sends % 100_000;
        let nonce = self.next_nonce(from).await?;
        let body = json!({
            "nonce": format!("0x{nonce:x}"),
            "from": from,
            "to": call.to,
            "data": call.data,
            "value": format!("0x{:x}", call.value),
            "gas": format!("0x{gas:x}"),
        });
        let rpc = self.chain.rpc();
        let hash: B256 = match rpc.call("eth_sendTransaction", json!([body])).await {
            Ok(h) => {
                self.nonces.insert(from, nonce + 1);
                self.chain.mark_local_tx(h);
                h
            }
            Err(e @ ChainError::Rpc { .. }) => {
                let step = StepRun {
                    signature: call.signature.clone(),
                    success: false,
                    gas_used: 0,
                    reason: Some(e.to_string()),
                };
                return Ok((step, U256::ZERO, Value::Null, Value::Null));
            }
            Err(e) => return Err(e.into()),
        };
        let started = std::time::Instant::now();
        let mut nudged = false;
        let receipt = loop {
            let r = rpc
                .call_value("eth_getTransactionReceipt", json!([hash]))
                .await?;
            if !r.is_null() {
                break r;
            }
            // Automine occasionally leaves a transaction pending (seen after many reverts under
            // load); mining one block explicitly picks it up.
            if !nudged && started.elapsed() > Duration::from_millis(300) {
                tracing::debug!(target: "intent::execute", %hash, "receipt late; mining a block");
                self.chain.mine(1).await?;
                nudged = true;
            }
            if started.elapsed() > STUCK_AFTER {
                return Err(ChainError::ReceiptTimeout(hash, STUCK_AFTER).into());
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        };
        let success = receipt.get("status").and_then(Value::as_str) == Some("0x1");
        let gas_used = quantity(&receipt["gasUsed"]);
        let price = quantity(&receipt["effectiveGasPrice"]);
        let mut run = StepRun {
            signature: call.signature.clone(),
            success,
            gas_used: gas_used.saturating_to(),
            reason: None,
        };
        let fee = gas_used * price;
        let logs = receipt.get("logs").cloned().unwrap_or(Value::Null);
        if !success {
            // The failed transaction changed nothing but the nonce: re-simulating it explains it.
            let tx = TxRequest::call(call.to, call.data.clone()).with_value(call.value);
            run.reason = Some(match self.chain.call_from(from, &tx).await {
                Err(e) => match e.revert_data() {
                    Some(data) => decode_revert(&data),
                    None => e.to_string(),
                },
                Ok(_) => "reverted (no reason given)".into(),
            });
        }
        let record = self.tx_record(hash, call, &run, &logs).await;
        Ok((run, fee, logs, record))
    }

    /// A mined call as the chain inspector reads it (the shape EVM-QuestBench stores): target,
    /// calldata, value, status, gas, revert reason, logs and the state diff (`null` when
    /// the node could not trace it).
    async fn tx_record(
        &self,
        hash: B256,
        call: &EncodedCall,
        run: &StepRun,
        logs: &Value,
    ) -> Value {
        let state_diff = match self.chain.state_diff(hash).await {
            Ok(d) => serde_json::to_value(d).unwrap_or(Value::Null),
            Err(e) => {
                tracing::debug!(target: "intent::execute", %hash, error = %e, "no state diff");
                Value::Null
            }
        };
        let logs: Vec<Value> = logs
            .as_array()
            .into_iter()
            .flatten()
            .map(|l| json!({"address": l["address"], "topics": l["topics"], "data": l["data"]}))
            .collect();
        json!({
            "to": call.to.to_checksum(None),
            "data": call.data.to_string(),
            "value": call.value.to_string(),
            "gas_used": run.gas_used,
            "status": run.success,
            "revert_reason": run.reason,
            "logs": logs,
            "state_diff": state_diff,
        })
    }

    /// Executes `calls` in order from the current state as `from`, stopping at the first failure.
    async fn run(&mut self, from: Address, calls: &[EncodedCall]) -> Result<Run, IntentError> {
        if self.impersonated.insert(from) {
            self.chain
                .rpc()
                .call_value("anvil_impersonateAccount", json!([from]))
                .await?;
        }
        let topics = balance_topics();
        let mut run = Run {
            ok: true,
            reason: None,
            steps: Vec::new(),
            fees: U256::ZERO,
            touched: BTreeSet::new(),
            emitters: BTreeSet::new(),
            txs: Vec::new(),
        };
        for (i, c) in calls.iter().enumerate() {
            let (step, fee, logs, record) = self.send(from, c).await?;
            run.fees += fee;
            if !record.is_null() {
                run.txs.push(record);
            }
            for log in logs.as_array().into_iter().flatten() {
                let ts: Vec<B256> = log
                    .get("topics")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(|t| t.as_str()?.parse().ok()).collect())
                    .unwrap_or_default();
                if ts.first().is_some_and(|t0| topics.contains(t0)) {
                    if let Some(a) = log.get("address").and_then(|a| a.as_str()?.parse().ok()) {
                        run.emitters.insert(a);
                    }
                    for t in &ts[1..] {
                        if t[..12].iter().all(|b| *b == 0) {
                            run.touched.insert(Address::from_slice(&t[12..]));
                        }
                    }
                }
            }
            let ok = step.success;
            if !ok {
                run.ok = false;
                run.reason = Some(format!(
                    "step {} ({}) reverted: {}",
                    i + 1,
                    step.signature,
                    step.reason.clone().unwrap_or_default()
                ));
            }
            run.steps.push(step);
            if !ok {
                break;
            }
        }
        run.touched.remove(&Address::ZERO);
        Ok(run)
    }

    /// Reads the given balances in one batch.
    async fn balances(
        &self,
        keys: &BTreeSet<(Address, Asset)>,
    ) -> Result<Vec<((Address, Asset), U256)>, IntentError> {
        let calls: Vec<(&str, Value)> = keys
            .iter()
            .map(|(a, asset)| match asset {
                Asset::Native => ("eth_getBalance", json!([a, "latest"])),
                Asset::Token(t) => {
                    let data = Bytes::from(abi::balanceOfCall { owner: *a }.abi_encode());
                    ("eth_call", json!([{"to": t, "data": data}, "latest"]))
                }
            })
            .collect();
        let results = self.chain.rpc().call_batch(&calls).await?;
        Ok(keys
            .iter()
            .copied()
            .zip(results)
            .map(|(k, r)| {
                // A token call that fails reads as zero on both sides.
                let v = r.map(|v| quantity(&v)).unwrap_or_default();
                (k, v)
            })
            .collect())
    }

    /// The balances to read: native for every account, and the given tokens (those of the book).
    fn keys(
        &self,
        accounts: &BTreeSet<Address>,
        tokens: &BTreeSet<Address>,
    ) -> BTreeSet<(Address, Asset)> {
        let tokens: Vec<Address> = tokens
            .iter()
            .filter(|t| self.tokens.contains(t))
            .copied()
            .collect();
        let mut out = BTreeSet::new();
        for a in accounts {
            out.insert((*a, Asset::Native));
            for t in &tokens {
                out.insert((*a, Asset::Token(*t)));
            }
        }
        out
    }

    /// Executes the ground truth alone from the base snapshot: `Ok(None)` when it executes, or
    /// the reason it does not. The generator's chain filter.
    pub async fn truth_reason(
        &mut self,
        instance: &Instance,
    ) -> Result<Option<String>, IntentError> {
        let mut attempt = 0;
        loop {
            match self.truth_reason_once(instance).await {
                Err(e) if is_stuck(&e) && attempt < RETRIES => {
                    tracing::debug!(target: "intent::execute", id = %instance.id, "stuck transaction; retrying from the snapshot");
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    async fn truth_reason_once(
        &mut self,
        instance: &Instance,
    ) -> Result<Option<String>, IntentError> {
        let from = instance_sender(instance);
        let encoded = match encode_steps(&self.book, instance.ground_truth.steps()) {
            Ok(e) => e,
            Err((i, e)) => return Ok(Some(format!("step {}: {e}", i + 1))),
        };
        self.fresh().await?;
        let run = self.run(from, &encoded).await?;
        Ok(if run.ok { None } else { run.reason })
    }

    /// Executes G and P (P as calls, or the reason it could not be read) from the same snapshot
    /// and sender, and compares their balance deltas.
    pub async fn evaluate(
        &mut self,
        instance: &Instance,
        prediction: Result<Vec<Call>, UnreadablePrediction>,
    ) -> Result<ExecReport, IntentError> {
        self.follow_block(instance).await?;
        let fork_before = self.chain.fork_failures();
        let report = self.evaluate_retrying(instance, prediction).await?;
        let failed = self.chain.fork_failures() - fork_before;
        if failed > 0 {
            // The execution read an incomplete state: retried as infrastructure, never scored.
            return Err(crucible_chain::ChainError::Fork(format!(
                "{failed} read(s) from the fork RPC failed during the execution; it is retried, not scored"
            ))
            .into());
        }
        Ok(report)
    }

    async fn evaluate_retrying(
        &mut self,
        instance: &Instance,
        prediction: Result<Vec<Call>, UnreadablePrediction>,
    ) -> Result<ExecReport, IntentError> {
        let mut attempt = 0;
        loop {
            match self.evaluate_once(instance, prediction.clone()).await {
                Err(e) if is_stuck(&e) && attempt < RETRIES => {
                    tracing::debug!(target: "intent::execute", id = %instance.id, "stuck transaction; retrying from the snapshot");
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    async fn evaluate_once(
        &mut self,
        instance: &Instance,
        prediction: Result<Vec<Call>, UnreadablePrediction>,
    ) -> Result<ExecReport, IntentError> {
        let from = instance_sender(instance);
        let truth_calls = instance.ground_truth.steps();
        let g =
            encode_steps(&self.book, truth_calls).map_err(|(i, e)| format!("step {}: {e}", i + 1));
        let p_calls = prediction.clone().unwrap_or_default();
        let p = prediction.map_err(|e| e.to_string()).and_then(|calls| {
            encode_steps(&self.book, &calls)
                .map_err(|(i, e)| format!("step {} not encodable: {e}", i + 1))
        });
        let all: Vec<&Call> = truth_calls.iter().chain(p_calls.iter()).collect();
        // Accounts: the watch list. Tokens: those the calls name (called contracts, address
        // parameters) plus those that emitted a balance log; a compliant token whose balances
        // move always emits one, so reading the others would only add zeros.
        let mut accounts: BTreeSet<Address> = BTreeSet::new();
        let mut tokens: BTreeSet<Address> = BTreeSet::new();
        for (a, asset) in state::watch_list(&self.book, from, &all) {
            accounts.insert(a);
            if asset == Asset::Native && self.tokens.contains(&a) {
                tokens.insert(a);
            }
        }
        // G, from the snapshot.
        let mut g_after = Vec::new();
        let mut truth_txs = Vec::new();
        let (truth_executes, truth_reason, g_fees) = match &g {
            Ok(enc) => {
                self.fresh().await?;
                let run = self.run(from, enc).await?;
                accounts.extend(run.touched.iter().copied());
                tokens.extend(run.emitters.iter().copied());
                g_after = self.balances(&self.keys(&accounts, &tokens)).await?;
                truth_txs = run.txs;
                (run.ok, run.reason, run.fees)
            }
            Err(e) => (false, Some(e.clone()), U256::ZERO),
        };
        if !truth_executes {
            tracing::debug!(target: "intent::execute", id = %instance.id, reason = ?truth_reason, "ground truth does not execute");
        }
        let g_keys = self.keys(&accounts, &tokens);
        // P, from the same snapshot.
        self.fresh().await?;
        let mut before = self.balances(&g_keys).await?;
        let mut prediction_txs = Vec::new();
        let (exec, reason, steps, p_fees, p_after) = match &p {
            Ok(enc) => {
                let run = self.run(from, enc).await?;
                accounts.extend(run.touched.iter().copied());
                tokens.extend(run.emitters.iter().copied());
                let after = self.balances(&self.keys(&accounts, &tokens)).await?;
                prediction_txs = run.txs;
                (run.ok, run.reason, run.steps, run.fees, after)
            }
            Err(e) => (false, Some(e.clone()), Vec::new(), U256::ZERO, Vec::new()),
        };
        // Balances only P's execution brought in: their before-values, and G's effect on them.
        let extra: BTreeSet<(Address, Asset)> = self
            .keys(&accounts, &tokens)
            .difference(&g_keys)
            .copied()
            .collect();
        if !extra.is_empty() {
            self.fresh().await?;
            before.extend(self.balances(&extra).await?);
            if let Ok(enc) = &g {
                let _ = self.run(from, enc).await?;
                g_after.extend(self.balances(&extra).await?);
            }
        }
        let before: std::collections::BTreeMap<(Address, Asset), U256> =
            before.into_iter().collect();
        let deltas = |after: &[((Address, Asset), U256)], fees: U256| {
            let mut d = Deltas::new();
            for (k, v) in after {
                let b = before.get(k).copied().unwrap_or_default();
                d.add(k.0, k.1, signed(*v).saturating_sub(signed(b)));
            }
            d.add(from, Asset::Native, signed(fees));
            d
        };
        let (mismatches, state_eq) = if truth_executes && exec {
            let m = state::state_mismatches(&deltas(&g_after, g_fees), &deltas(&p_after, p_fees));
            let eq = m.is_empty();
            (m, eq)
        } else {
            (Vec::new(), false)
        };
        Ok(ExecReport {
            truth_executes,
            truth_reason,
            exec,
            reason,
            state_eq,
            mismatches,
            steps,
            prediction_txs,
            truth_txs,
        })
    }
}

/// How long a sent transaction may stay without a receipt before the execution is retried.
const STUCK_AFTER: Duration = Duration::from_secs(1);
/// Retries of one instance after a stuck transaction (each from the base snapshot, with the
/// pool emptied, so the result is the same as a first attempt's).
const RETRIES: usize = 3;

fn is_stuck(e: &IntentError) -> bool {
    matches!(e, IntentError::Chain(c) if matches!(**c, ChainError::ReceiptTimeout(..)))
}

fn signed(x: U256) -> I256 {
    I256::try_from(x).unwrap_or(I256::MAX)
}

fn instance_sender(instance: &Instance) -> Address {
    instance
        .metadata
        .sender
        .as_ref()
        .and_then(|s| parse_address(&json!(s)))
        .unwrap_or_else(sender)
}

/// Generates a dataset keeping only candidates whose ground truth executes on the universe
/// (the generator's chain filter); `rejected` counts the dropped candidates. Deterministic: the
/// filter runs every candidate from the same snapshot.
pub async fn generate_on_chain(
    opts: GenerateOptions,
    book: &AddressBook,
    executor: &mut Executor,
) -> Result<Generated, IntentError> {
    on_chain(book, executor, move |b, f| generate_filtered(opts, b, f)).await
}

/// [`generate_paper_shaped`](crate::generate::generate_paper_shaped) with the same chain filter:
/// a candidate whose ground truth reverts is dropped and redrawn in its category.
pub async fn generate_paper_on_chain(
    seed: u64,
    count: usize,
    book: &AddressBook,
    executor: &mut Executor,
) -> Result<Generated, IntentError> {
    on_chain(book, executor, move |b, f| {
        crate::generate::generate_paper_shaped(seed, count, b, f)
    })
    .await
}

async fn on_chain<G>(
    book: &AddressBook,
    executor: &mut Executor,
    generate: G,
) -> Result<Generated, IntentError>
where
    G: FnOnce(
            &AddressBook,
            &mut dyn crate::generate::InstanceFilter,
        ) -> Result<Generated, IntentError>
        + Send
        + 'static,
{
    type Ask = (Instance, std::sync::mpsc::Sender<bool>);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Ask>();
    let thread_book = book.clone();
    let worker = std::thread::spawn(move || {
        let mut filter = move |inst: &Instance| {
            let (reply, answer) = std::sync::mpsc::channel();
            if tx.send((inst.clone(), reply)).is_err() {
                return false;
            }
            answer.recv().unwrap_or(false)
        };
        generate(&thread_book, &mut filter)
    });
    let mut failure = None;
    while let Some((inst, reply)) = rx.recv().await {
        if failure.is_some() {
            let _ = reply.send(false);
            continue;
        }
        match executor.truth_reason(&inst).await {
            Ok(reason) => {
                if let Some(r) = &reason {
                    tracing::debug!(target: "intent::execute", id = %inst.id, reason = %r, "dropped");
                }
                let _ = reply.send(reason.is_none());
            }
            Err(e) => {
                failure = Some(e);
                let _ = reply.send(false);
            }
        }
    }
    let generated = worker
        .join()
        .map_err(|_| IntentError::InvalidOption("the generator thread panicked".into()))?;
    if let Some(e) = failure {
        return Err(e);
    }
    generated
}

/// Exec and StateEq of one built-in agent over the instances its fault applies to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentExecFigures {
    /// Agent name.
    pub agent: String,
    /// The paper's aggregation over those instances.
    pub figures: state::ExecFigures,
    /// Instances (whose G executes) where P did not execute.
    pub not_executed: usize,
    /// Instances where P executed but StateEq failed.
    pub state_differs: usize,
}

/// Executes every built-in agent's answers (reference on every instance, each fault agent where
/// its fault applies) and aggregates Exec and StateEq.
pub async fn agent_exec_figures(
    executor: &mut Executor,
    instances: &[Instance],
    book: &AddressBook,
) -> Result<Vec<AgentExecFigures>, IntentError> {
    use super::agents::BuiltinAgent;
    use super::parse::parse_prediction;
    let mut out = Vec::new();
    for agent in BuiltinAgent::ALL {
        let mut outcomes = Vec::new();
        for inst in instances {
            if agent != BuiltinAgent::Reference && !agent.applies(inst, book) {
                continue;
            }
            let text = agent.answer(inst, book);
            let parsed = parse_prediction(&text, inst.ground_truth.is_multi());
            let report = executor.evaluate(inst, prediction_calls(&parsed)).await?;
            if !report.state_eq {
                tracing::debug!(target: "intent::execute", agent = agent.name(), id = %inst.id, reason = ?report.reason, mismatches = ?report.mismatches, "state differs");
            }
            outcomes.push(report.outcome());
        }
        out.push(AgentExecFigures {
            agent: agent.name().to_string(),
            not_executed: outcomes
                .iter()
                .filter(|o| o.truth_executes && !o.prediction_executes)
                .count(),
            state_differs: outcomes
                .iter()
                .filter(|o| o.truth_executes && o.prediction_executes && !o.state_eq)
                .count(),
            figures: state::exec_figures(&outcomes),
        });
    }
    Ok(out)
}

/// Execution throughput of the reference agent over a dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExecThroughput {
    /// Instances evaluated (each: G and P executed from the snapshot, balances read).
    pub instances: usize,
    /// Steps of G executed (P has as many).
    pub steps: usize,
    /// Seconds to boot the universe and apply the fixture (not counted in the rate).
    pub boot_seconds: f64,
    /// Seconds of evaluation.
    pub execute_seconds: f64,
    /// Instances per second.
    pub instances_per_second: f64,
    /// The Exec / StateEq figures of that run (1.0 / 1.0 expected).
    pub figures: state::ExecFigures,
    /// Target ≥ 100 instances/s.
    pub meets_target: bool,
}

/// Measures [`ExecThroughput`]: boots, prepares, then evaluates the reference answer of every
/// instance. Wall-clock time is measured here only to report it, never to decide anything.
pub async fn exec_throughput(
    config: &Config,
    instances: &[Instance],
    book: &AddressBook,
) -> Result<ExecThroughput, IntentError> {
    use super::agents::BuiltinAgent;
    use super::parse::parse_prediction;
    let started = std::time::Instant::now();
    let mut ex = Executor::boot(config, book.clone()).await?;
    let boot_seconds = started.elapsed().as_secs_f64();
    let answers: Vec<Result<Vec<Call>, UnreadablePrediction>> = instances
        .iter()
        .map(|i| {
            let text = BuiltinAgent::Reference.answer(i, book);
            prediction_calls(&parse_prediction(&text, i.ground_truth.is_multi()))
        })
        .collect();
    let started = std::time::Instant::now();
    let mut outcomes = Vec::with_capacity(instances.len());
    for (inst, answer) in instances.iter().zip(answers) {
        outcomes.push(ex.evaluate(inst, answer).await?.outcome());
    }
    let execute_seconds = started.elapsed().as_secs_f64();
    let rate = instances.len() as f64 / execute_seconds.max(1e-9);
    Ok(ExecThroughput {
        instances: instances.len(),
        steps: instances.iter().map(|i| i.ground_truth.steps().len()).sum(),
        boot_seconds,
        execute_seconds,
        instances_per_second: rate,
        figures: state::exec_figures(&outcomes),
        meets_target: rate >= 100.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_prediction;

    #[test]
    fn prediction_calls_reads_calls_and_names_what_is_not_one() {
        let call = r#"{"contract": "WETH", "contract_address": "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", "function": "deposit", "params": {}}"#;
        let cases: Vec<(String, bool, Result<usize, &str>)> = vec![
            (call.to_string(), false, Ok(1)),
            (format!("[{call}, {call}]"), true, Ok(2)),
            ("not json at all".into(), false, Err("no JSON object or array found")),
            (r#"{"contract": "WETH"}"#.into(), false, Err("step 1 is not a call in the schema")),
            (format!(r#"[{call}, 7]"#), true, Err("step 2 is not a call in the schema")),
            (r#"{"contract": "WETH", "contract_address": "0x", "function": "deposit", "params": [1]}"#.into(), false, Err("step 1 is not a call")),
        ];
        for (text, multi, want) in cases {
            let got = prediction_calls(&parse_prediction(&text, multi));
            match (got, want) {
                (Ok(calls), Ok(n)) => {
                    assert_eq!(calls.len(), n, "{text}");
                    // A missing `value` is 0 ETH.
                    assert!(calls.iter().all(|c| c.value == json!(0)), "{text}");
                }
                (Err(e), Err(w)) => assert!(
                    e.to_string().contains(w),
                    "{text}: {e:?} should contain {w:?}"
                ),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn only_receipt_timeouts_are_retried() {
        let stuck = IntentError::from(ChainError::ReceiptTimeout(B256::ZERO, STUCK_AFTER));
        assert!(is_stuck(&stuck));
        assert!(!is_stuck(&IntentError::Fixture("x".into())));
        assert!(!is_stuck(&IntentError::from(ChainError::Universe(
            "x".into()
        ))));
    }

    #[test]
    fn the_universe_places_the_book_contracts_where_the_book_says() {
        let book = AddressBook::builtin();
        for e in book.entries().iter().filter(|e| e.origin == "crucible") {
            assert_eq!(universe::book_address(&e.name), e.address, "{}", e.name);
        }
    }
}
