//! The chain: an Anvil node Crucible owns ([`Anvil`]), the offline universes built on it
//! ([`universe`]), snapshots, time control, setup cheats, signing with a local key, receipts and
//! the state reads that diffs are made of ([`Chain`]), and the RPC gate the sandbox talks to
//! ([`gate`]), and the [`sandbox`] that runs untrusted TypeScript behind that gate.
//!
//! This module never decides what a benchmark scores; it executes and reads. Cheat methods
//! (`anvil_*`, `evm_*`) are for setup and isolation only and are never reachable by agent code.

#![warn(missing_docs, unreachable_pub)]

pub mod anvil;
pub mod diff;
pub mod fork;
pub mod gate;
pub mod pool;
mod rpc;
pub mod sandbox;
pub mod universe;

use std::time::{Duration, Instant};

use alloy::consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy::eips::Encodable2718;
use alloy::primitives::{Address, Bytes, TxKind, B256, U256};
use alloy::signers::local::PrivateKeySigner;
use alloy::signers::SignerSync;
use alloy::sol;
use alloy::sol_types::SolCall;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use anvil::{Anvil, AnvilSpec, StateSource};
pub use diff::StateDiff;
pub use rpc::Rpc;
pub use universe::{Manifest, Profile};

/// Errors from the node, its RPC, or a transaction.
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    /// The node could not be started.
    #[error("cannot start anvil: {0}")]
    Spawn(String),
    /// The node process exited.
    #[error("anvil exited ({status}); last output:\n{log}")]
    NodeExited {
        /// Exit status.
        status: String,
        /// The node's last output lines.
        log: String,
    },
    /// The HTTP request failed (connection refused, timeout, …).
    #[error("rpc {method}: transport error: {message}")]
    Transport {
        /// The RPC method.
        method: String,
        /// What went wrong.
        message: String,
        /// Whether it was a timeout.
        timeout: bool,
    },
    /// The node answered with a JSON-RPC error.
    #[error("rpc {method}: error {code}: {message}")]
    Rpc {
        /// The RPC method.
        method: String,
        /// JSON-RPC error code.
        code: i64,
        /// Error message.
        message: String,
        /// Error data (revert data for calls); boxed to keep the error small.
        data: Option<Box<Value>>,
    },
    /// The answer did not have the expected shape.
    #[error("rpc {method}: unexpected answer: {message}")]
    Decode {
        /// The RPC method.
        method: String,
        /// What was wrong.
        message: String,
    },
    /// A snapshot could not be restored.
    #[error("revert to snapshot {0} failed (snapshots are single-use)")]
    Revert(String),
    /// No receipt appeared in time.
    #[error("no receipt for {0} within {1:?}")]
    ReceiptTimeout(B256, Duration),
    /// A universe build or load problem.
    #[error("universe: {0}")]
    Universe(String),
    /// The configuration (tool discovery) failed.
    #[error(transparent)]
    Config(#[from] crucible_core::ConfigError),
    /// Fork mode: the upstream RPC is unusable (unreachable, wrong chain, block beyond its head,
    /// rate-limited) or the fork cache cannot be opened. The message names the redacted URL.
    #[error("fork: {0}")]
    Fork(String),
}

impl ChainError {
    /// Which side of the seam this failure belongs to: a node that could not start, is gone,
    /// did not answer in time or lost its snapshot is infrastructure (restart it and retry);
    /// a call the node answered with an error, an answer of the wrong shape or a universe that
    /// does not hold what was asked for is deterministic, and belongs to whatever asked (a task).
    pub fn kind(&self) -> crucible_core::ErrorKind {
        use crucible_core::ErrorKind;
        match self {
            Self::Spawn(_)
            | Self::NodeExited { .. }
            | Self::Transport { .. }
            | Self::Revert(_)
            | Self::ReceiptTimeout(..)
            | Self::Config(_)
            | Self::Fork(_) => ErrorKind::Infrastructure,
            Self::Rpc { .. } | Self::Decode { .. } | Self::Universe(_) => ErrorKind::Task,
        }
    }

    /// True when the node itself is gone or unreachable (restart it), not when a call failed.
    pub fn is_node_gone(&self) -> bool {
        match self {
            Self::NodeExited { .. } => true,
            Self::Transport { timeout, .. } => !timeout,
            _ => false,
        }
    }

    /// True when retrying the same call may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::Transport { .. } | Self::ReceiptTimeout(..))
    }

    /// Revert data carried by a failed `eth_call`/`eth_estimateGas`, if any.
    pub fn revert_data(&self) -> Option<Bytes> {
        match self {
            Self::Rpc { data: Some(d), .. } => d.as_str()?.parse().ok(),
            _ => None,
        }
    }
}

sol! {
    interface IErc20 {
        function balanceOf(address owner) external view returns (uint256);
        function allowance(address owner, address spender) external view returns (uint256);
        function decimals() external view returns (uint8);
        function symbol() external view returns (string);
        function transfer(address to, uint256 amount) external returns (bool);
        function approve(address spender, uint256 amount) external returns (bool);
    }
    interface IErc721 {
        function ownerOf(uint256 id) external view returns (address);
        function getApproved(uint256 id) external view returns (address);
        function isApprovedForAll(address owner, address operator) external view returns (bool);
    }
    interface IErc1155 {
        function balanceOf(address owner, uint256 id) external view returns (uint256);
    }
}

/// An `evm_snapshot` id. Single-use: reverting consumes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotId(pub String);

/// A call or transaction to send.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxRequest {
    /// Recipient; `None` deploys `data` as init code.
    pub to: Option<Address>,
    /// Calldata or init code.
    pub data: Bytes,
    /// Native value in wei.
    pub value: U256,
    /// Gas limit; `None` estimates with headroom.
    pub gas: Option<u64>,
}

impl TxRequest {
    /// A call to `to` with `data`.
    pub fn call(to: Address, data: impl Into<Bytes>) -> Self {
        Self {
            to: Some(to),
            data: data.into(),
            ..Self::default()
        }
    }

    /// A deployment of `init_code`.
    pub fn deploy(init_code: impl Into<Bytes>) -> Self {
        Self {
            data: init_code.into(),
            ..Self::default()
        }
    }

    /// With a native value.
    pub fn with_value(mut self, value: U256) -> Self {
        self.value = value;
        self
    }

    /// With an explicit gas limit.
    pub fn with_gas(mut self, gas: u64) -> Self {
        self.gas = Some(gas);
        self
    }

    fn to_json(&self, from: Address) -> Value {
        let mut v = json!({
            "from": from,
            "data": self.data,
            "value": format!("0x{:x}", self.value),
        });
        if let Some(to) = self.to {
            v["to"] = json!(to);
        }
        if let Some(gas) = self.gas {
            v["gas"] = json!(format!("0x{gas:x}"));
        }
        v
    }
}

/// One log entry of a receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry {
    /// Emitting contract.
    pub address: Address,
    /// Topics.
    pub topics: Vec<B256>,
    /// Data.
    pub data: Bytes,
}

/// What a mined transaction did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// Transaction hash.
    pub tx_hash: B256,
    /// True when it did not revert.
    pub success: bool,
    /// Gas used.
    pub gas_used: u64,
    /// Gas limit it was sent with.
    pub gas_limit: u64,
    /// Block it was mined in.
    pub block_number: u64,
    /// Created contract, for deployments.
    pub contract_address: Option<Address>,
    /// Logs.
    pub logs: Vec<LogEntry>,
    /// Decoded revert reason when it reverted (from a pre-send simulation, or "out of gas").
    pub revert_reason: Option<String>,
}

/// A live chain: an Anvil node Crucible owns plus an RPC client to it.
#[derive(Debug)]
pub struct Chain {
    anvil: Anvil,
    rpc: Rpc,
    chain_id: u64,
    /// Gas headroom multiplier (percent) applied to estimates; see notes/chain-spike.md §6.1.
    gas_headroom_pct: u64,
    /// Makes every signed transaction unique (see `send_signed`).
    sends: std::sync::atomic::AtomicU64,
    /// Fork mode: the caching proxy the node forks from (dropped after the node).
    fork: Option<fork::ForkProxy>,
}

const RECEIPT_TIMEOUT: Duration = Duration::from_secs(15);
/// Gas limit used when estimation fails (the tx is expected to revert; it is still mined so the
/// revert is on record).
const FALLBACK_GAS: u64 = 3_000_000;

impl Chain {
    /// Starts a node from `spec`.
    pub async fn start(spec: AnvilSpec) -> Result<Self, ChainError> {
        let chain_id = spec.chain_id;
        let anvil = Anvil::spawn(spec).await?;
        let rpc = Rpc::new(anvil.url(), Duration::from_secs(30));
        Ok(Self {
            anvil,
            rpc,
            chain_id,
            gas_headroom_pct: 130,
            sends: std::sync::atomic::AtomicU64::new(0),
            fork: None,
        })
    }

    /// Keeps the fork proxy the node forks from alive as long as the chain.
    pub fn with_fork_proxy(mut self, proxy: fork::ForkProxy) -> Self {
        self.fork = Some(proxy);
        self
    }

    /// Fork mode: records that `hash` was sent to this chain (not to the upstream), so the
    /// receipt lookups Anvil forwards for it while it is pending are answered locally
    /// ([`fork::ForkProxy::mark_local`]). Code that sends through [`Self::rpc`] and polls for
    /// receipts itself must call this; [`Self::wait_receipt`] does. Off a fork it does nothing.
    pub fn mark_local_tx(&self, hash: B256) {
        if let Some(p) = &self.fork {
            p.mark_local(&format!("{hash:#x}"));
        }
    }

    /// Fork mode: the caching proxy the node forks from.
    pub fn fork_proxy(&self) -> Option<&fork::ForkProxy> {
        self.fork.as_ref()
    }

    /// Fork mode: upstream reads that failed since the start (0 off a fork). A sample during
    /// which this grew read an incomplete state and must not be scored.
    pub fn fork_failures(&self) -> u64 {
        self.fork.as_ref().map_or(0, fork::ForkProxy::failures)
    }

    /// The node's RPC URL.
    pub fn url(&self) -> String {
        self.anvil.url()
    }

    /// The chain id.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// The RPC client.
    pub fn rpc(&self) -> &Rpc {
        &self.rpc
    }

    /// The node process.
    pub fn anvil(&self) -> &Anvil {
        &self.anvil
    }

    /// Health check; restarts a dead or hung node from its initial state. Returns true on restart.
    pub async fn ensure_alive(&mut self) -> Result<bool, ChainError> {
        let restarted = self.anvil.ensure_alive().await?;
        if restarted {
            self.rpc = Rpc::new(self.anvil.url(), Duration::from_secs(30));
        }
        Ok(restarted)
    }

    /// Takes a snapshot of the whole state.
    pub async fn snapshot(&self) -> Result<SnapshotId, ChainError> {
        Ok(SnapshotId(self.rpc.call("evm_snapshot", json!([])).await?))
    }

    /// Restores a snapshot (consuming it).
    pub async fn revert(&self, id: &SnapshotId) -> Result<(), ChainError> {
        let ok: bool = self.rpc.call("evm_revert", json!([id.0])).await?;
        if !ok {
            return Err(ChainError::Revert(id.0.clone()));
        }
        // Under load Anvil can keep a transaction pending across a revert; it would then block
        // or corrupt the next sample. Nothing pending survives an isolation boundary.
        self.rpc
            .call_value("anvil_dropAllTransactions", json!([]))
            .await?;
        // Anvil's fee manager is not part of a snapshot: after a revert the next block's base fee
        // is whatever the reverted-away blocks left, so the gas a replay pays (and every balance
        // shown to a model) would depend on what ran before. Pin it to what EIP-1559 gives for
        // the restored head block.
        let head: Value = self
            .rpc
            .call("eth_getBlockByNumber", json!(["latest", false]))
            .await?;
        let field = |k: &str| {
            head.get(k)
                .and_then(Value::as_str)
                .map(|s| parse_quantity("eth_getBlockByNumber", s))
                .transpose()
        };
        if let (Some(base), Some(used), Some(limit)) = (
            field("baseFeePerGas")?,
            field("gasUsed")?,
            field("gasLimit")?,
        ) {
            let next = next_base_fee(base as u128, used as u128, limit as u128);
            self.rpc
                .call_value(
                    "anvil_setNextBlockBaseFeePerGas",
                    json!([format!("0x{next:x}")]),
                )
                .await?;
        }
        Ok(())
    }

    /// Mines `n` empty blocks.
    pub async fn mine(&self, n: u64) -> Result<(), ChainError> {
        self.rpc
            .call_value("anvil_mine", json!([format!("0x{n:x}")]))
            .await?;
        Ok(())
    }

    /// Moves time forward by `secs` (takes effect at the next block).
    pub async fn increase_time(&self, secs: u64) -> Result<(), ChainError> {
        self.rpc
            .call_value("evm_increaseTime", json!([secs]))
            .await?;
        Ok(())
    }

    /// Fixes the next block's timestamp.
    pub async fn set_next_timestamp(&self, ts: u64) -> Result<(), ChainError> {
        self.rpc
            .call_value("evm_setNextBlockTimestamp", json!([ts]))
            .await?;
        Ok(())
    }

    /// Makes every following block exactly `secs` later than the previous one (deterministic time).
    pub async fn set_block_interval(&self, secs: u64) -> Result<(), ChainError> {
        self.rpc
            .call_value("anvil_setBlockTimestampInterval", json!([secs]))
            .await?;
        Ok(())
    }

    /// Latest block number.
    pub async fn block_number(&self) -> Result<u64, ChainError> {
        let n: String = self.rpc.call("eth_blockNumber", json!([])).await?;
        parse_quantity("eth_blockNumber", &n)
    }

    /// Latest block timestamp.
    pub async fn timestamp(&self) -> Result<u64, ChainError> {
        let b: Value = self
            .rpc
            .call("eth_getBlockByNumber", json!(["latest", false]))
            .await?;
        parse_quantity(
            "eth_getBlockByNumber",
            b.get("timestamp").and_then(Value::as_str).unwrap_or(""),
        )
    }

    /// Setup cheat: sets an account's native balance.
    pub async fn set_balance(&self, who: Address, wei: U256) -> Result<(), ChainError> {
        self.rpc
            .call_value("anvil_setBalance", json!([who, format!("0x{wei:x}")]))
            .await?;
        Ok(())
    }

    /// Setup cheat: writes one storage slot.
    pub async fn set_storage(
        &self,
        who: Address,
        slot: B256,
        value: B256,
    ) -> Result<(), ChainError> {
        self.rpc
            .call_value("anvil_setStorageAt", json!([who, slot, value]))
            .await?;
        Ok(())
    }

    /// Setup cheat: sets an account's code.
    pub async fn set_code(&self, who: Address, code: &Bytes) -> Result<(), ChainError> {
        self.rpc
            .call_value("anvil_setCode", json!([who, code]))
            .await?;
        Ok(())
    }

    /// Setup cheat: sets an account's nonce.
    pub async fn set_nonce(&self, who: Address, nonce: u64) -> Result<(), ChainError> {
        self.rpc
            .call_value("anvil_setNonce", json!([who, format!("0x{nonce:x}")]))
            .await?;
        Ok(())
    }

    /// Setup cheat: sends `tx` as `from` without its key (impersonation), waits for the receipt.
    pub async fn send_as(&self, from: Address, tx: &TxRequest) -> Result<Receipt, ChainError> {
        self.rpc
            .call_value("anvil_impersonateAccount", json!([from]))
            .await?;
        let mut body = tx.to_json(from);
        if tx.gas.is_none() {
            body["gas"] = json!(format!(
                "0x{:x}",
                self.estimate_gas(from, tx).await.unwrap_or(FALLBACK_GAS)
            ));
        }
        let sent: Result<B256, _> = self.rpc.call("eth_sendTransaction", json!([body])).await;
        let _ = self
            .rpc
            .call_value("anvil_stopImpersonatingAccount", json!([from]))
            .await;
        let receipt = self.wait_receipt(sent?).await?;
        Ok(receipt)
    }

    /// Signs `tx` with `signer` (EIP-1559, this chain's id, pending nonce), sends it and waits for
    /// the receipt. A transaction that reverts is still mined and returned with `success: false`
    /// and the reason; only infrastructure problems are errors.
    pub async fn send_signed(
        &self,
        signer: &PrivateKeySigner,
        tx: &TxRequest,
    ) -> Result<Receipt, ChainError> {
        let from = signer.address();
        // Simulate first: with pruned history this is the only moment the revert data exists.
        let simulated = self.call_from(from, tx).await;
        let gas_limit = match tx.gas {
            Some(g) => g,
            None => match self.estimate_gas(from, tx).await {
                Ok(g) => g,
                Err(_) => FALLBACK_GAS,
            },
        };
        // Every send waits for its receipt, so the mined nonce is the next one; "pending" could
        // count a transaction stuck in the pool.
        let nonce: String = self
            .rpc
            .call("eth_getTransactionCount", json!([from, "latest"]))
            .await?;
        let base_fee = self.base_fee().await?;
        let priority = 1_000_000_000u128;
        // Replaying byte-identical content after `evm_revert` (re-executing a stored answer on the
        // same snapshot) sometimes never gets mined: Anvil still knows the hash. A few wei more
        // in the fee cap make every send unique without changing what it costs (the price paid
        // is base fee + tip, below the cap).
        let salt = self
            .sends
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed) as u128
            % 1_000_000;
        let unsigned = TxEip1559 {
            chain_id: self.chain_id,
            nonce: parse_quantity("eth_getTransactionCount", &nonce)?,
            gas_limit,
            max_fee_per_gas: base_fee * 2 + priority + salt,
            max_priority_fee_per_gas: priority,
            to: tx.to.map_or(TxKind::Create, TxKind::Call),
            value: tx.value,
            access_list: Default::default(),
            input: tx.data.clone(),
        };
        let sig = signer
            .sign_hash_sync(&unsigned.signature_hash())
            .map_err(|e| ChainError::Spawn(format!("signing failed: {e}")))?;
        let raw = TxEnvelope::from(unsigned.into_signed(sig)).encoded_2718();
        let hash: B256 = self
            .rpc
            .call("eth_sendRawTransaction", json!([Bytes::from(raw)]))
            .await?;
        let mut receipt = self.wait_receipt(hash).await?;
        receipt.gas_limit = gas_limit;
        if !receipt.success {
            receipt.revert_reason = Some(match simulated {
                Err(e) => match e.revert_data() {
                    Some(data) => decode_revert(&data),
                    None => e.to_string(),
                },
                Ok(_) if receipt.gas_used >= gas_limit => "out of gas".to_string(),
                Ok(_) => "reverted (no reason given)".to_string(),
            });
        }
        Ok(receipt)
    }

    /// The base fee of the latest block.
    async fn base_fee(&self) -> Result<u128, ChainError> {
        let b: Value = self
            .rpc
            .call("eth_getBlockByNumber", json!(["latest", false]))
            .await?;
        Ok(b.get("baseFeePerGas")
            .and_then(Value::as_str)
            .map(|s| parse_quantity("eth_getBlockByNumber", s))
            .transpose()?
            .unwrap_or(0) as u128)
    }

    /// Estimates gas for `tx` from `from`, with headroom.
    pub async fn estimate_gas(&self, from: Address, tx: &TxRequest) -> Result<u64, ChainError> {
        let g: String = self
            .rpc
            .call("eth_estimateGas", json!([tx.to_json(from)]))
            .await?;
        let g = parse_quantity("eth_estimateGas", &g)?;
        Ok(g * self.gas_headroom_pct / 100 + 10_000)
    }

    /// Polls for a receipt (Anvil may answer a send before the block is committed).
    pub async fn wait_receipt(&self, hash: B256) -> Result<Receipt, ChainError> {
        self.mark_local_tx(hash);
        let started = Instant::now();
        loop {
            let r: Value = self
                .rpc
                .call_value("eth_getTransactionReceipt", json!([hash]))
                .await?;
            if !r.is_null() {
                return parse_receipt(hash, &r);
            }
            if started.elapsed() > RECEIPT_TIMEOUT {
                return Err(ChainError::ReceiptTimeout(hash, RECEIPT_TIMEOUT));
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// `eth_call` of `tx` from `from` on the latest state.
    pub async fn call_from(&self, from: Address, tx: &TxRequest) -> Result<Bytes, ChainError> {
        self.rpc
            .call("eth_call", json!([tx.to_json(from), "latest"]))
            .await
    }

    /// `eth_call` of a view function.
    pub async fn view(&self, to: Address, data: impl Into<Bytes>) -> Result<Bytes, ChainError> {
        self.call_from(Address::ZERO, &TxRequest::call(to, data))
            .await
    }

    async fn view_decoded<C: SolCall>(
        &self,
        to: Address,
        call: C,
    ) -> Result<C::Return, ChainError> {
        let out = self.view(to, call.abi_encode()).await?;
        C::abi_decode_returns(&out).map_err(|e| ChainError::Decode {
            method: format!("eth_call {to}"),
            message: e.to_string(),
        })
    }

    /// Native balance in wei.
    pub async fn balance(&self, who: Address) -> Result<U256, ChainError> {
        self.rpc
            .call("eth_getBalance", json!([who, "latest"]))
            .await
    }

    /// Account nonce.
    pub async fn nonce(&self, who: Address) -> Result<u64, ChainError> {
        let n: String = self
            .rpc
            .call("eth_getTransactionCount", json!([who, "latest"]))
            .await?;
        parse_quantity("eth_getTransactionCount", &n)
    }

    /// Deployed code.
    pub async fn code(&self, who: Address) -> Result<Bytes, ChainError> {
        self.rpc.call("eth_getCode", json!([who, "latest"])).await
    }

    /// One storage slot.
    pub async fn storage(&self, who: Address, slot: B256) -> Result<B256, ChainError> {
        self.rpc
            .call("eth_getStorageAt", json!([who, slot, "latest"]))
            .await
    }

    /// ERC-20 balance.
    pub async fn erc20_balance(&self, token: Address, owner: Address) -> Result<U256, ChainError> {
        self.view_decoded(token, IErc20::balanceOfCall { owner })
            .await
    }

    /// ERC-20 allowance.
    pub async fn erc20_allowance(
        &self,
        token: Address,
        owner: Address,
        spender: Address,
    ) -> Result<U256, ChainError> {
        self.view_decoded(token, IErc20::allowanceCall { owner, spender })
            .await
    }

    /// ERC-721 owner of `id`.
    pub async fn erc721_owner(&self, token: Address, id: U256) -> Result<Address, ChainError> {
        self.view_decoded(token, IErc721::ownerOfCall { id }).await
    }

    /// ERC-721 single-token approval of `id`.
    pub async fn erc721_approved(&self, token: Address, id: U256) -> Result<Address, ChainError> {
        self.view_decoded(token, IErc721::getApprovedCall { id })
            .await
    }

    /// ERC-721/1155 operator approval.
    pub async fn approved_for_all(
        &self,
        token: Address,
        owner: Address,
        operator: Address,
    ) -> Result<bool, ChainError> {
        self.view_decoded(token, IErc721::isApprovedForAllCall { owner, operator })
            .await
    }

    /// ERC-1155 balance.
    pub async fn erc1155_balance(
        &self,
        token: Address,
        owner: Address,
        id: U256,
    ) -> Result<U256, ChainError> {
        self.view_decoded(token, IErc1155::balanceOfCall { owner, id })
            .await
    }

    /// The whole state as Anvil dumps it (decompressed JSON: `accounts`, `blocks`, …).
    pub async fn dump_state(&self) -> Result<Value, ChainError> {
        let hex: String = self.rpc.call("anvil_dumpState", json!([])).await?;
        let gz = alloy::primitives::hex::decode(hex.trim_start_matches("0x")).map_err(|e| {
            ChainError::Decode {
                method: "anvil_dumpState".into(),
                message: e.to_string(),
            }
        })?;
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut text)
            .map_err(|e| ChainError::Decode {
                method: "anvil_dumpState".into(),
                message: format!("gunzip: {e}"),
            })?;
        serde_json::from_str(&text).map_err(|e| ChainError::Decode {
            method: "anvil_dumpState".into(),
            message: e.to_string(),
        })
    }
}

/// Decodes revert data: `Error(string)`, `Panic(uint256)`, or the raw hex.
pub fn decode_revert(data: &[u8]) -> String {
    use alloy::sol_types::{Panic, Revert, SolError};
    if let Ok(r) = Revert::abi_decode(data) {
        return r.reason;
    }
    if let Ok(p) = Panic::abi_decode(data) {
        return format!("panic 0x{:x}", p.code);
    }
    if data.is_empty() {
        "reverted (no reason given)".into()
    } else {
        format!("custom error 0x{}", alloy::primitives::hex::encode(data))
    }
}

fn parse_quantity(method: &str, s: &str) -> Result<u64, ChainError> {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).map_err(|e| ChainError::Decode {
        method: method.to_string(),
        message: format!("quantity {s:?}: {e}"),
    })
}

fn parse_receipt(hash: B256, r: &Value) -> Result<Receipt, ChainError> {
    let q = |k: &str| -> Result<u64, ChainError> {
        parse_quantity(
            "eth_getTransactionReceipt",
            r.get(k).and_then(Value::as_str).unwrap_or("0x0"),
        )
    };
    let logs = serde_json::from_value::<Vec<LogEntry>>(r.get("logs").cloned().unwrap_or(json!([])))
        .map_err(|e| ChainError::Decode {
            method: "eth_getTransactionReceipt".into(),
            message: e.to_string(),
        })?;
    Ok(Receipt {
        tx_hash: hash,
        success: q("status")? == 1,
        gas_used: q("gasUsed")?,
        gas_limit: 0,
        block_number: q("blockNumber")?,
        contract_address: r
            .get("contractAddress")
            .and_then(|v| serde_json::from_value(v.clone()).ok()),
        logs,
        revert_reason: None,
    })
}

/// EIP-1559's base fee of the block after one with `base` fee that used `used` of `limit` gas
/// (elasticity 2, change denominator 8).
pub fn next_base_fee(base: u128, used: u128, limit: u128) -> u128 {
    let target = limit / 2;
    if target == 0 || used == target {
        return base;
    }
    if used > target {
        base + (base * (used - target) / target / 8).max(1)
    } else {
        base - base * (target - used) / target / 8
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn next_base_fee_follows_eip_1559() {
        // (base, used, limit) → next: at target unchanged; full block +12.5 %; empty −12.5 %;
        // the increase is at least 1 wei.
        let cases = [
            (
                1_000_000_000u128,
                15_000_000u128,
                30_000_000u128,
                1_000_000_000u128,
            ),
            (1_000_000_000, 30_000_000, 30_000_000, 1_125_000_000),
            (1_000_000_000, 0, 30_000_000, 875_000_000),
            (7, 15_000_001, 30_000_000, 8),
            (5, 0, 0, 5),
        ];
        for (base, used, limit, want) in cases {
            assert_eq!(
                super::next_base_fee(base, used, limit),
                want,
                "{base} {used} {limit}"
            );
        }
    }
}
