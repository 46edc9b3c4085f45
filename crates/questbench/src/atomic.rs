//! The atomic protocol: prompt → one answer → TypeScript block → sandbox → transaction-shape
//! validation → the harness signs with the seeded agent key and sends → checks → score (0–100,
//! pass ≥ 60) with an outcome class. Every sample starts from the same snapshot. Also the
//! self-test that runs every task's reference and known-wrong solutions.

use std::time::{Duration, Instant};

use alloy::primitives::{Address, Bytes, U256};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::Mutex;

use super::check::{CheckResult, Evidence, Probe, SentTx};
use super::instance::Instance;
use super::paper::{self, PaperTolerance};
use super::task::{SetupStep, Task};
use super::QuestError;
use crucible_chain::gate::{Gate, RefusedCall};
use crucible_chain::sandbox::{Call, FailureKind, Prepared, Sandbox, SandboxError};
use crucible_chain::universe::{self, Manifest, Profile};
use crucible_chain::{Chain, SnapshotId, TxRequest};
use crucible_core::Config;

/// Points needed to pass a task.
pub const PASS_THRESHOLD: u32 = 60;

/// Native balance every agent starts a sample with (100 BNB), before the task's setup.
pub const AGENT_START_WEI: u128 = 100_000_000_000_000_000_000;

/// Sandbox processes kept starting in the background (composite rounds use them back to back).
const PREPARED_AHEAD: usize = 2;

/// Check families about the transaction's form rather than what it did.
const FORM_FAMILIES: [&str; 6] = [
    "tx_success",
    "tx_to",
    "selector",
    "empty_calldata",
    "calldata_contains",
    "tx_value",
];

/// Crucible's points for an atomic sample's checks, and whether the transaction reached the
/// task. Form checks (status, target, selector, calldata, value) earn their points only when it
/// did: its target check passed, or — a task without one — some state check passed. Otherwise a
/// harmless mined transaction (nothing sent to itself) would collect the status and calldata
/// points of every task; the exploit agents ([`crate::exploits`]) check that it does not. The
/// paper's scheme ([`crate::paper`]) is left as the paper defines it.
///
/// Guard checks (see [`crate::task::CheckSpec::guard`]) earn their points only with progress:
/// some non-guard state check passed ([`guarded`]).
pub fn points(checks: &[CheckResult]) -> (u32, bool) {
    let form = |c: &CheckResult| FORM_FAMILIES.contains(&c.family.as_str());
    let has_form = checks.iter().any(form);
    let reached = !has_form
        || match checks.iter().find(|c| c.family == "tx_to") {
            Some(to) => to.passed,
            None => checks.iter().any(|c| !form(c) && !c.guard && c.passed),
        };
    let progress = progress(checks);
    let score = checks
        .iter()
        .filter(|c| c.passed && (reached || !form(c)) && (progress || !c.guard))
        .map(|c| c.weight)
        .sum();
    (score, reached)
}

/// Whether a check that is neither a form check nor a guard passed (the state moved towards
/// the goal); guards count only then.
pub fn progress(checks: &[CheckResult]) -> bool {
    checks
        .iter()
        .any(|c| c.passed && !c.guard && !FORM_FAMILIES.contains(&c.family.as_str()))
}

/// The points of `checks` with guard checks counted only when there was progress
/// ([`progress`]).
pub fn guarded(checks: &[CheckResult]) -> u32 {
    let progress = progress(checks);
    checks
        .iter()
        .filter(|c| c.passed && (progress || !c.guard))
        .map(|c| c.weight)
        .sum()
}

/// Largest gas limit a model may ask for.
const MAX_GAS: u64 = 30_000_000;

/// How a sample ended (`Other` is what a stored verdict without one reads as).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every check passed exactly.
    Exact,
    /// Every check passed, at least one only within its tolerance.
    ToleranceDeviation,
    /// The transaction was mined successfully but its effects are wrong.
    #[default]
    Other,
    /// The transaction reverted.
    Revert,
    /// The answer is not a valid module/transaction/answer object.
    SchemaInvalid,
    /// The module threw or failed to load, or the node rejected the transaction.
    ExecutionFailure,
    /// The module ran out of time.
    Timeout,
    /// The module tried to leave the sandbox or exhausted its resources.
    SandboxViolation,
}

impl Outcome {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Exact => "exact",
            Outcome::ToleranceDeviation => "tolerance_deviation",
            Outcome::Other => "other",
            Outcome::Revert => "revert",
            Outcome::SchemaInvalid => "schema_invalid",
            Outcome::ExecutionFailure => "execution_failure",
            Outcome::Timeout => "timeout",
            Outcome::SandboxViolation => "sandbox_violation",
        }
    }
}

impl From<Outcome> for crucible_core::Outcome {
    fn from(o: Outcome) -> Self {
        use crucible_core::Outcome as O;
        match o {
            Outcome::Exact => O::Exact,
            Outcome::ToleranceDeviation => O::ToleranceDeviation,
            Outcome::Other => O::Other,
            Outcome::Revert => O::Revert,
            Outcome::SchemaInvalid => O::SchemaInvalid,
            Outcome::ExecutionFailure => O::ExecutionFailure,
            Outcome::Timeout => O::Timeout,
            Outcome::SandboxViolation => O::SandboxViolation,
        }
    }
}

/// Time spent in each stage of a sample.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Stages {
    /// Revert to the snapshot, fund the agent, apply the setup.
    pub revert_setup_ms: f64,
    /// Sandbox start to result.
    pub sandbox_ms: f64,
    /// Sign, send and receipt.
    pub send_ms: f64,
    /// Pre- and post-state reads of the checks.
    pub checks_ms: f64,
}

/// The scored result of one sample. Read back from stored details leniently: a field an older
/// store lacks reads as its default.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Verdict {
    /// 0–100, Crucible's weights.
    pub score: u32,
    /// score ≥ 60.
    pub passed: bool,
    /// 0–100, the paper's scheme ([`crate::paper`]) over the same checks.
    pub paper_score: u32,
    /// Outcome class.
    pub outcome: Outcome,
    /// Why (schema_invalid reason, revert reason, failure message), empty on success.
    pub reason: String,
    /// Every check with expected vs actual (empty when nothing was executed).
    pub checks: Vec<CheckResult>,
    /// The transaction as sent (tx tasks that got that far).
    pub tx: Option<Value>,
    /// The module's logs.
    pub logs: String,
    /// Stage timings (not part of the verdict's meaning; varies run to run).
    pub stages: Stages,
    /// Calls the RPC gate refused while the module ran (cheat methods, sends): attempts to
    /// win without doing the task. Never scored; shown to reviewers and counted per model.
    pub refused_calls: Vec<RefusedCall>,
}

impl Verdict {
    fn failed(outcome: Outcome, reason: impl Into<String>, stages: Stages, logs: String) -> Self {
        Self {
            score: 0,
            passed: false,
            paper_score: 0,
            outcome,
            reason: reason.into(),
            checks: Vec::new(),
            tx: None,
            logs,
            stages,
            refused_calls: Vec::new(),
        }
    }
}

/// A booted universe with its gate and sandbox, and the snapshot every sample starts from.
#[derive(Debug)]
pub struct Harness {
    pub(super) chain: Chain,
    pub(super) manifest: Manifest,
    pub(super) gate: Gate,
    sandbox: Sandbox,
    pub(super) base: Mutex<SnapshotId>,
    pub(super) genesis_time: u64,
    /// The transfer tolerance of the paper scoring.
    pub(super) paper_tolerance: PaperTolerance,
    /// The next sandbox processes ([`PREPARED_AHEAD`] of them), started while the current sample
    /// runs (composite rounds take them back to back).
    next:
        Mutex<std::collections::VecDeque<tokio::task::JoinHandle<Result<Prepared, SandboxError>>>>,
}

impl Harness {
    /// Boots the bsc universe, starts the gate and prepares the sandbox.
    pub async fn start(config: &Config) -> Result<Self, QuestError> {
        Self::boot(config, None, PREPARED_AHEAD).await
    }

    /// [`Self::start`] (or [`Self::start_fork`] with `fork`) keeping `prepared_ahead` sandbox
    /// processes ready instead of two: one is enough where a model's answer takes longer than
    /// preparing the next (a pool of many parked chains), and each costs ≈ 50 MiB.
    pub async fn boot(
        config: &Config,
        fork: Option<&crucible_chain::fork::ForkTarget>,
        prepared_ahead: usize,
    ) -> Result<Self, QuestError> {
        let (chain, manifest) = match fork {
            Some(t) => {
                let (chain, manifest, _, _) =
                    universe::boot_fork_cached(config, Profile::Bsc, t).await?;
                (chain, manifest)
            }
            None => universe::boot(config, Profile::Bsc).await?,
        };
        Self::on_chain_with(config, chain, manifest, prepared_ahead.max(1)).await
    }

    /// Fork mode: forks `target` (through its persistent cache) at its block, deploys the test
    /// contracts the fork lacks from the bsc universe's genesis at their manifest addresses and
    /// funds the universe accounts ([`universe::overlay`]), then starts as [`Self::start`] does.
    /// Errors before anything runs when the RPC is unreachable, serves another chain or lacks
    /// the block.
    pub async fn start_fork(
        config: &Config,
        target: &crucible_chain::fork::ForkTarget,
    ) -> Result<Self, QuestError> {
        Self::boot(config, Some(target), PREPARED_AHEAD).await
    }

    /// Starts on an already booted bsc chain (the universe or a fork laid over with it).
    pub async fn on_chain(
        config: &Config,
        chain: Chain,
        manifest: Manifest,
    ) -> Result<Self, QuestError> {
        Self::on_chain_with(config, chain, manifest, PREPARED_AHEAD).await
    }

    async fn on_chain_with(
        config: &Config,
        chain: Chain,
        manifest: Manifest,
        prepared_ahead: usize,
    ) -> Result<Self, QuestError> {
        let gate = Gate::start(&chain.url()).await?;
        let sandbox = Sandbox::new(config)?;
        chain.set_block_interval(1).await?;
        let genesis_time = chain.timestamp().await?;
        let base = chain.snapshot().await?;
        let h = Self {
            chain,
            manifest,
            gate,
            sandbox,
            base: Mutex::new(base),
            genesis_time,
            paper_tolerance: PaperTolerance::default(),
            next: Mutex::new(std::collections::VecDeque::new()),
        };
        {
            let mut next = h.next.lock().await;
            for _ in 0..prepared_ahead {
                next.push_back(h.spawn_prepare());
            }
        }
        Ok(h)
    }

    /// Scores the paper scheme with the reference runner's tighter transfer tolerance (0.1 %)
    /// instead of the paper's 1 %.
    pub fn with_paper_tolerance(mut self, mode: PaperTolerance) -> Self {
        self.paper_tolerance = mode;
        self
    }

    fn spawn_prepare(&self) -> tokio::task::JoinHandle<Result<Prepared, SandboxError>> {
        let sandbox = self.sandbox.clone();
        let url = self.gate.url();
        tokio::spawn(async move { sandbox.prepare(&url).await })
    }

    /// A ready sandbox process (the oldest one prepared in the background, or a fresh one), and
    /// a replacement started in the background.
    pub(super) async fn take_prepared(&self) -> Result<Prepared, QuestError> {
        let mut next = self.next.lock().await;
        let prepared = match next.pop_front() {
            Some(h) => match h.await {
                Ok(p) => p,
                Err(e) => Err(SandboxError::Io(format!("prepare task failed: {e}"))),
            },
            None => self.sandbox.prepare(&self.gate.url()).await,
        };
        next.push_back(self.spawn_prepare());
        Ok(prepared?)
    }

    /// The chain the samples run on (its Anvil's pid lets a host stop it if the host is killed).
    pub fn chain(&self) -> &Chain {
        &self.chain
    }

    /// Fork mode: fails (as infrastructure) when an upstream read failed since `before` (a
    /// reading of [`Chain::fork_failures`] taken when the sample started): the sample saw an
    /// incomplete state and must be retried, not scored. Off a fork this never fails.
    pub fn check_fork(&self, before: u64) -> Result<(), QuestError> {
        let now = self.chain.fork_failures();
        if now > before {
            return Err(crucible_chain::ChainError::Fork(format!(
                "{} read(s) from the fork RPC failed during the sample; it is retried, not scored",
                now - before
            ))
            .into());
        }
        Ok(())
    }

    /// The universe manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// `deployedContracts` as passed to every module.
    pub fn deployed_contracts(&self) -> Value {
        json!(self.manifest.address_book())
    }

    /// Samples an instance of `task`.
    pub fn instance(&self, task: &Task, seed: u64) -> Result<Instance, QuestError> {
        Instance::new(task, seed, &self.manifest)
    }

    /// Samples an instance of `task` choosing among the templates labelled as `nl` says.
    pub fn instance_with(
        &self,
        task: &Task,
        seed: u64,
        nl: super::prompt::NlDifficulty,
    ) -> Result<Instance, QuestError> {
        Instance::with_difficulty(task, seed, &self.manifest, nl)
    }

    /// Fails unless the sandbox can resolve `viem` (for runs whose prompts ask for it).
    pub fn require_viem(&self) -> Result<(), QuestError> {
        Ok(self.sandbox.require_viem()?)
    }

    /// Runs one answer (the model's full reply text) on a fresh copy of the snapshot.
    pub async fn run_answer(
        &self,
        task: &Task,
        inst: &Instance,
        answer: &str,
    ) -> Result<Verdict, QuestError> {
        let mut base = self.base.lock().await;
        // Stray requests of an earlier module (none are expected) are not this sample's.
        self.gate.take_refused();
        let mut v = self
            .run_answer_locked(&mut base, task, inst, answer)
            .await?;
        v.refused_calls = self.gate.take_refused();
        Ok(v)
    }

    /// [`Harness::run_answer`] with the base snapshot held.
    async fn run_answer_locked(
        &self,
        base: &mut SnapshotId,
        task: &Task,
        inst: &Instance,
        answer: &str,
    ) -> Result<Verdict, QuestError> {
        let mut stages = Stages::default();
        let t0 = Instant::now();
        self.chain.revert(base).await?;
        *base = self.chain.snapshot().await?;
        self.chain
            .set_next_timestamp(self.genesis_time + 60)
            .await?;
        self.apply_setup(task, inst).await?;
        stages.revert_setup_ms = ms(t0.elapsed());

        let probe = Probe {
            chain: &self.chain,
            manifest: &self.manifest,
            instance: inst,
        };
        let Some(code) = extract_code(answer) else {
            return Ok(Verdict::failed(
                Outcome::SchemaInvalid,
                "no TypeScript code block in the answer",
                stages,
                String::new(),
            ));
        };
        let t1 = Instant::now();
        let pre = probe.before(&task.spec.checks).await?;
        let mut checks_time = t1.elapsed();

        let t2 = Instant::now();
        let call = Call {
            provider_url: self.gate.url(),
            agent_address: inst.agent.to_checksum(None),
            deployed_contracts: self.deployed_contracts(),
            now_ms: Some(self.chain.timestamp().await?.saturating_mul(1000)),
        };
        let run = self.take_prepared().await?.run(&code, &call).await?;
        stages.sandbox_ms = ms(t2.elapsed());
        let logs = run.logs.clone();
        let value = match run.outcome {
            Ok(v) => v,
            Err(f) => {
                let (outcome, reason) = classify_failure(&f);
                stages.checks_ms = ms(checks_time);
                return Ok(Verdict::failed(outcome, reason, stages, logs));
            }
        };

        let (evidence, tx_json) = if let Some(schema) = &task.spec.answer {
            let Some(obj) = value.as_object() else {
                stages.checks_ms = ms(checks_time);
                return Ok(Verdict::failed(
                    Outcome::SchemaInvalid,
                    format!("the answer is not an object: {}", short(&value)),
                    stages,
                    logs,
                ));
            };
            if let Some(missing) = schema.fields.keys().find(|k| !obj.contains_key(*k)) {
                stages.checks_ms = ms(checks_time);
                return Ok(Verdict::failed(
                    Outcome::SchemaInvalid,
                    format!("the answer has no field {missing:?}"),
                    stages,
                    logs,
                ));
            }
            (Evidence::Answer(value.clone()), None)
        } else {
            let req = match validate_tx(&value) {
                Ok(r) => r,
                Err(reason) => {
                    stages.checks_ms = ms(checks_time);
                    return Ok(Verdict::failed(
                        Outcome::SchemaInvalid,
                        reason,
                        stages,
                        logs,
                    ));
                }
            };
            let t3 = Instant::now();
            let sent = self.chain.send_signed(inst.signer(), &req).await;
            stages.send_ms = ms(t3.elapsed());
            let receipt = match sent {
                Ok(r) => r,
                Err(e) if e.is_node_gone() => return Err(e.into()),
                Err(e) => {
                    stages.checks_ms = ms(checks_time);
                    return Ok(Verdict::failed(
                        Outcome::ExecutionFailure,
                        format!("the node rejected the transaction: {e}"),
                        stages,
                        logs,
                    ));
                }
            };
            let fee = self.fee_paid(&receipt).await?;
            let to = req.to.unwrap_or_default();
            let tx_json = self.mined_tx_json(&req, &receipt).await;
            (
                Evidence::Tx(SentTx {
                    to,
                    data: req.data.clone(),
                    value: req.value,
                    receipt,
                    fee,
                }),
                Some(tx_json),
            )
        };

        let t4 = Instant::now();
        let checks = probe
            .after(&task.spec, &pre, &evidence, self.paper_tolerance)
            .await?;
        checks_time += t4.elapsed();
        stages.checks_ms = ms(checks_time);
        let (score, reached) = points(&checks);
        let reverted = matches!(&evidence, Evidence::Tx(t) if !t.receipt.success);
        let (outcome, reason) = if reverted {
            let r = match &evidence {
                Evidence::Tx(t) => t.receipt.revert_reason.clone().unwrap_or_default(),
                Evidence::Answer(_) | Evidence::Episode { .. } => String::new(),
            };
            (Outcome::Revert, r)
        } else if score == 100 && checks.iter().all(|c| c.exact) {
            (Outcome::Exact, String::new())
        } else if score == 100 {
            (Outcome::ToleranceDeviation, String::new())
        } else {
            let failed: Vec<&str> = checks
                .iter()
                .filter(|c| !c.passed)
                .map(|c| c.name.as_str())
                .collect();
            let unreached = if reached {
                ""
            } else {
                "; the transaction did not reach the task (wrong target, no effect), so its form \
                 checks (status, selector, calldata, value) earn no points"
            };
            (
                Outcome::Other,
                format!("failed checks: {}{unreached}", failed.join(", ")),
            )
        };
        Ok(Verdict {
            score,
            passed: score >= PASS_THRESHOLD,
            paper_score: paper::atomic_score(&checks),
            outcome,
            reason,
            checks,
            tx: tx_json,
            logs,
            stages,
            refused_calls: Vec::new(),
        })
    }

    /// The stored form of a mined transaction: what was sent, the receipt's status, gas and
    /// revert reason, its logs, and what it changed ([`crucible_chain::StateDiff`], `null` when
    /// the node could not trace it). The chain inspector reads it. No hash: it depends on the
    /// fee salt of the send, and a seeded sample must store the same bytes however it is
    /// scheduled.
    pub(super) async fn mined_tx_json(
        &self,
        req: &TxRequest,
        receipt: &crucible_chain::Receipt,
    ) -> Value {
        let state_diff = match self.chain.state_diff(receipt.tx_hash).await {
            Ok(d) => serde_json::to_value(d).unwrap_or(Value::Null),
            Err(e) => {
                tracing::debug!(target: "quest::atomic", hash = %receipt.tx_hash, error = %e, "no state diff");
                Value::Null
            }
        };
        json!({
            "to": req.to.unwrap_or_default().to_checksum(None),
            "data": req.data.to_string(),
            "value": req.value.to_string(),
            "gas_limit": receipt.gas_limit,
            "gas_used": receipt.gas_used,
            "status": receipt.success,
            "revert_reason": receipt.revert_reason,
            "logs": receipt.logs,
            "state_diff": state_diff,
        })
    }

    pub(super) async fn fee_paid(&self, r: &crucible_chain::Receipt) -> Result<U256, QuestError> {
        let v = self
            .chain
            .rpc()
            .call_value("eth_getTransactionReceipt", json!([r.tx_hash]))
            .await?;
        let price = v
            .get("effectiveGasPrice")
            .and_then(Value::as_str)
            .and_then(|s| U256::from_str_radix(s.trim_start_matches("0x"), 16).ok())
            .unwrap_or_default();
        Ok(price * U256::from(r.gas_used))
    }

    pub(super) async fn apply_setup(&self, task: &Task, inst: &Instance) -> Result<(), QuestError> {
        let c = &self.chain;
        c.set_balance(inst.agent, U256::from(AGENT_START_WEI))
            .await?;
        let probe = Probe {
            chain: c,
            manifest: &self.manifest,
            instance: inst,
        };
        for step in &task.spec.setup {
            match step {
                SetupStep::Native { account, amount } => {
                    let who = inst.resolve(account, &self.manifest)?;
                    c.set_balance(who, probe.eval(amount).await?).await?;
                }
                SetupStep::Erc20 {
                    from,
                    token,
                    to,
                    amount,
                } => {
                    let from = inst.resolve(from, &self.manifest)?;
                    self.top_up_gas(from).await?;
                    let token = inst.resolve(token, &self.manifest)?;
                    let to = inst.resolve(to, &self.manifest)?;
                    let amount = probe.eval(amount).await?;
                    let data = encode_addr_uint("transfer(address,uint256)", to, amount);
                    self.setup_send(task, from, token, data, "erc20 funding")
                        .await?;
                }
                SetupStep::Allowance {
                    token,
                    owner,
                    spender,
                    amount,
                } => {
                    let token = inst.resolve(token, &self.manifest)?;
                    let owner = inst.resolve(owner, &self.manifest)?;
                    let spender = inst.resolve(spender, &self.manifest)?;
                    let amount = probe.eval(amount).await?;
                    self.top_up_gas(owner).await?;
                    let data = encode_addr_uint("approve(address,uint256)", spender, amount);
                    self.setup_send(task, owner, token, data, "allowance")
                        .await?;
                }
                SetupStep::Erc721 {
                    from,
                    token,
                    to,
                    id,
                } => {
                    let from = inst.resolve(from, &self.manifest)?;
                    let token = inst.resolve(token, &self.manifest)?;
                    let to = inst.resolve(to, &self.manifest)?;
                    let id = probe.eval(id).await?;
                    self.top_up_gas(from).await?;
                    let mut data =
                        super::check::selector("transferFrom(address,address,uint256)").to_vec();
                    data.extend_from_slice(&word(from));
                    data.extend_from_slice(&word(to));
                    data.extend_from_slice(&id.to_be_bytes::<32>());
                    self.setup_send(task, from, token, data, "erc721 transfer")
                        .await?;
                }
                SetupStep::Erc721Approve {
                    owner,
                    token,
                    id,
                    approved,
                } => {
                    let owner = inst.resolve(owner, &self.manifest)?;
                    let token = inst.resolve(token, &self.manifest)?;
                    let approved = inst.resolve(approved, &self.manifest)?;
                    let id = probe.eval(id).await?;
                    self.top_up_gas(owner).await?;
                    let data = encode_addr_uint("approve(address,uint256)", approved, id);
                    self.setup_send(task, owner, token, data, "erc721 approval")
                        .await?;
                }
                SetupStep::Erc1155 {
                    from,
                    token,
                    to,
                    id,
                    amount,
                } => {
                    let from = inst.resolve(from, &self.manifest)?;
                    let token = inst.resolve(token, &self.manifest)?;
                    let to = inst.resolve(to, &self.manifest)?;
                    let id = probe.eval(id).await?;
                    let amount = probe.eval(amount).await?;
                    self.top_up_gas(from).await?;
                    let mut data = super::check::selector(
                        "safeTransferFrom(address,address,uint256,uint256,bytes)",
                    )
                    .to_vec();
                    data.extend_from_slice(&word(from));
                    data.extend_from_slice(&word(to));
                    data.extend_from_slice(&id.to_be_bytes::<32>());
                    data.extend_from_slice(&amount.to_be_bytes::<32>());
                    data.extend_from_slice(&U256::from(0xa0u64).to_be_bytes::<32>());
                    data.extend_from_slice(&[0u8; 32]);
                    self.setup_send(task, from, token, data, "erc1155 transfer")
                        .await?;
                }
                SetupStep::TimeAdvance { seconds } => {
                    // The block interval is pinned to 1 s, which overrides `evm_increaseTime`:
                    // fix the next block's timestamp instead (deterministic).
                    let now = c.timestamp().await?;
                    c.set_next_timestamp(now.saturating_add(*seconds)).await?;
                    c.mine(1).await?;
                }
                SetupStep::Stake {
                    account,
                    pool,
                    token,
                    amount,
                } => {
                    let account = inst.resolve(account, &self.manifest)?;
                    let pool = inst.resolve(pool, &self.manifest)?;
                    let token = inst.resolve(token, &self.manifest)?;
                    let amount = probe.eval(amount).await?;
                    self.top_up_gas(account).await?;
                    let data = encode_addr_uint("approve(address,uint256)", pool, amount);
                    self.setup_send(task, account, token, data, "stake approval")
                        .await?;
                    let mut data = super::check::selector("deposit(uint256)").to_vec();
                    data.extend_from_slice(&amount.to_be_bytes::<32>());
                    self.setup_send(task, account, pool, data, "stake deposit")
                        .await?;
                }
            }
        }
        Ok(())
    }

    /// Gives `who` one native coin for gas when it has less: setup transactions are sent as the
    /// task's accounts, which may start empty.
    async fn top_up_gas(&self, who: Address) -> Result<(), QuestError> {
        let one_coin = U256::from(10u64).pow(U256::from(18u64));
        if self.chain.balance(who).await? < one_coin {
            self.chain.set_balance(who, one_coin).await?;
        }
        Ok(())
    }

    async fn setup_send(
        &self,
        task: &Task,
        from: Address,
        to: Address,
        data: Vec<u8>,
        what: &str,
    ) -> Result<(), QuestError> {
        let r = self.chain.send_as(from, &TxRequest::call(to, data)).await?;
        if !r.success {
            return Err(QuestError::Instance {
                task: task.id().into(),
                field: Some("setup".into()),
                message: format!(
                    "setup step ({what}) reverted: {}",
                    r.revert_reason.unwrap_or_default()
                ),
            });
        }
        Ok(())
    }
}

/// The outcome class and reason text of a sandbox failure.
pub(super) fn classify_failure(f: &crucible_chain::sandbox::Failure) -> (Outcome, String) {
    let outcome = match f.kind {
        FailureKind::NoExport | FailureKind::WrongSignature => Outcome::SchemaInvalid,
        FailureKind::Timeout => Outcome::Timeout,
        FailureKind::PermissionDenied | FailureKind::Memory | FailureKind::OutputTooLarge => {
            Outcome::SandboxViolation
        }
        FailureKind::LoadError | FailureKind::Threw | FailureKind::Crashed => {
            Outcome::ExecutionFailure
        }
    };
    let kind = serde_json::to_value(f.kind).unwrap_or_default();
    let reason = format!("{}: {}", kind.as_str().unwrap_or("failure"), f.message);
    (outcome, reason)
}

pub(super) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub(super) fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 200 {
        format!("{}…", &s[..s.floor_char_boundary(200)])
    } else {
        s
    }
}

fn word(a: Address) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a.as_slice());
    w
}

fn encode_addr_uint(sig: &str, a: Address, v: U256) -> Vec<u8> {
    let mut d = super::check::selector(sig).to_vec();
    d.extend_from_slice(&[0u8; 12]);
    d.extend_from_slice(a.as_slice());
    d.extend_from_slice(&v.to_be_bytes::<32>());
    d
}

/// The canonical contracts named in every prompt.
const CANONICAL: [(&str, &str); 6] = [
    ("WBNB", "WBNB"),
    ("USDT", "USDT (BSC-USD, 18 decimals)"),
    ("BUSD", "BUSD"),
    ("CAKE", "CAKE"),
    ("PancakeRouter", "PancakeSwap V2 Router"),
    ("PancakeFactory", "PancakeSwap V2 Factory"),
];

/// The environment section of the composite prompt: chain id, signing rule, canonical contracts
/// and the `deployedContracts` keys.
pub fn environment(manifest: &Manifest) -> String {
    let mut p = String::from("## Environment\n");
    p.push_str(&format!(
        "- A local BNB Smart Chain node, chain id {}. TypeScript with ethers v6 (`import {{ ethers }} from \"ethers\"`). \
         In modules, `providerUrl` is a read-only JSON-RPC endpoint and `agentAddress` is your account.\n",
        manifest.chain_id
    ));
    p.push_str(
        "- The platform ignores `from`, fills nonce and chain id, signs with your key and \
         sends an EIP-1559 transaction with maxPriorityFeePerGas = 1 gwei and \
         maxFeePerGas ≤ 2 × the latest block's baseFeePerGas + 1.001 gwei; it uses your \
         `gasLimit` if you give one, otherwise an estimate.\n",
    );
    p.push_str("- Canonical contracts:\n");
    for (name, label) in CANONICAL {
        if let Ok(a) = manifest.contract(name) {
            p.push_str(&format!("  - {label}: {}\n", a.to_checksum(None)));
        }
    }
    let keys: Vec<String> = manifest.address_book().keys().cloned().collect();
    p.push_str(&format!(
        "- `deployedContracts` keys: {}\n",
        keys.join(", ")
    ));
    p
}

/// The exact prompt the model receives for an instance.
pub fn prompt(task: &Task, inst: &Instance, manifest: &Manifest) -> String {
    let mut p = String::new();
    p.push_str(
        "You are a blockchain developer. Write a TypeScript module that completes the task below \
         on BNB Smart Chain.\n\n",
    );
    p.push_str("## Environment\n");
    p.push_str(&format!(
        "- A local BNB Smart Chain node, chain id {}. TypeScript with ethers v6 (`import {{ ethers }} from \"ethers\"`).\n",
        manifest.chain_id
    ));
    p.push_str(
        "- Export `async function executeSkill(providerUrl: string, agentAddress: string, \
         deployedContracts: Record<string, string>)`. `providerUrl` is a read-only JSON-RPC \
         endpoint; `agentAddress` is your account.\n",
    );
    if task.is_query() {
        p.push_str(
            "- This is a query task: return ONE plain object with exactly the fields listed under \
             \"Answer schema\" (integers as decimal strings or bigints). Nothing is sent.\n",
        );
    } else {
        p.push_str(
            "- Return ONE unsigned transaction request `{ to, data?, value?, gasLimit? }` \
             (`to` required; `value` in wei as a bigint or decimal string; `data` as 0x-hex). \
             If the task needs several transactions, return only the first.\n",
        );
        p.push_str(
            "- The platform ignores `from`, fills nonce and chain id, signs with your key and \
             sends an EIP-1559 transaction with maxPriorityFeePerGas = 1 gwei and \
             maxFeePerGas ≤ 2 × the latest block's baseFeePerGas + 1.001 gwei; it uses your \
             `gasLimit` if you give one, otherwise an estimate.\n",
        );
    }
    p.push_str("- Canonical contracts:\n");
    for (name, label) in CANONICAL {
        if let Ok(a) = manifest.contract(name) {
            p.push_str(&format!("  - {label}: {}\n", a.to_checksum(None)));
        }
    }
    let keys: Vec<String> = manifest.address_book().keys().cloned().collect();
    p.push_str(&format!(
        "- `deployedContracts` keys: {}\n",
        keys.join(", ")
    ));
    if let Some(schema) = &task.spec.answer {
        p.push_str("\n## Answer schema\n");
        for (k, v) in &schema.fields {
            p.push_str(&format!("- `{k}`: {v}\n"));
        }
    }
    p.push_str("\n## Rules\n");
    p.push_str("- Use exactly the amounts and addresses the task gives; do not ask questions.\n");
    p.push_str("- Answer with one ```typescript code block containing the whole module.\n");
    p.push_str(&format!("\n## Task\n{}\n", inst.text));
    p
}

/// The first non-empty fenced block tagged typescript/ts/javascript/js (or untagged); blocks in
/// other languages are skipped. `None` when there is none.
pub fn extract_code(answer: &str) -> Option<String> {
    let mut rest = answer;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let line_end = after.find('\n')?;
        let tag = after[..line_end].trim().to_ascii_lowercase();
        let body = &after[line_end + 1..];
        let close = body.find("```");
        let (code, next) = match close {
            Some(c) => (&body[..c], &body[c + 3..]),
            None => (body, ""),
        };
        let ok_tag = matches!(
            tag.as_str(),
            "" | "ts" | "typescript" | "js" | "javascript" | "tsx"
        );
        if ok_tag && !code.trim().is_empty() {
            return Some(code.to_string());
        }
        rest = next;
    }
    None
}

/// Checks the returned object is a transaction request and converts it; the error is the
/// schema_invalid reason.
pub(crate) fn validate_tx(v: &Value) -> Result<TxRequest, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| format!("the return value is not a transaction object: {}", short(v)))?;
    let to = match obj.get("to") {
        None | Some(Value::Null) => {
            return Err("the transaction has no `to` (a transaction task needs one)".into())
        }
        Some(Value::String(s)) => s
            .parse::<Address>()
            .map_err(|_| format!("`to` is not an address: {s:?}"))?,
        Some(other) => return Err(format!("`to` is not an address: {other}")),
    };
    let data = match obj.get("data") {
        None | Some(Value::Null) => Bytes::new(),
        Some(Value::String(s)) => {
            let h = s
                .strip_prefix("0x")
                .ok_or_else(|| format!("`data` is not 0x-hex: {}", short(&json!(s))))?;
            Bytes::from(
                hex::decode(h)
                    .map_err(|_| format!("`data` is not valid hex: {}", short(&json!(s))))?,
            )
        }
        Some(other) => return Err(format!("`data` is not 0x-hex: {}", short(other))),
    };
    let value = match obj.get("value") {
        None | Some(Value::Null) => U256::ZERO,
        Some(x) => quantity(x).ok_or_else(|| format!("`value` is not a wei amount: {x}"))?,
    };
    let gas = match obj.get("gasLimit").or_else(|| obj.get("gas")) {
        None | Some(Value::Null) => None,
        Some(x) => {
            let g = quantity(x).ok_or_else(|| format!("`gasLimit` is not a number: {x}"))?;
            let g: u64 = g
                .try_into()
                .ok()
                .filter(|g| (21_000..=MAX_GAS).contains(g))
                .ok_or_else(|| format!("`gasLimit` {g} is outside 21000..={MAX_GAS}"))?;
            Some(g)
        }
    };
    let mut req = TxRequest::call(to, data).with_value(value);
    if let Some(g) = gas {
        req = req.with_gas(g);
    }
    Ok(req)
}

/// A non-negative integer: JSON number, decimal text or 0x-hex text.
fn quantity(v: &Value) -> Option<U256> {
    match v {
        Value::Number(n) => n.as_u64().map(U256::from),
        Value::String(s) => match s.strip_prefix("0x") {
            Some(h) if !h.is_empty() => U256::from_str_radix(h, 16).ok(),
            Some(_) => None,
            None if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                U256::from_str_radix(s, 10).ok()
            }
            None => None,
        },
        _ => None,
    }
}

/// Wraps a module as a model would answer it.
pub fn as_answer(code: &str) -> String {
    format!("```typescript\n{code}\n```\n")
}

/// One task's self-test result.
#[derive(Debug, Clone, Serialize)]
pub struct SelftestTask {
    /// Task id.
    pub id: String,
    /// Per seed.
    pub seeds: Vec<SelftestSeed>,
    /// Reference 100 on every seed and every known-wrong answer below the threshold.
    pub ok: bool,
}

/// One seed of a task's self-test.
#[derive(Debug, Clone, Serialize)]
pub struct SelftestSeed {
    /// Seed.
    pub seed: u64,
    /// The reference solution's result.
    pub reference: SelftestScore,
    /// Each known-wrong answer's result.
    pub wrong: Vec<SelftestScore>,
}

/// A score with its outcome.
#[derive(Debug, Clone, Serialize)]
pub struct SelftestScore {
    /// Solution file.
    pub file: String,
    /// The mistake it makes (empty for the reference).
    pub mistake: String,
    /// Score (composites: base × decay, rounded down).
    pub score: u32,
    /// Outcome class (atomic or composite names).
    pub outcome: String,
    /// Reason (failed checks, revert reason, …).
    pub reason: String,
}

/// The whole self-test.
#[derive(Debug, Clone, Serialize)]
pub struct SelftestReport {
    /// Per task.
    pub tasks: Vec<SelftestTask>,
    /// Totals.
    pub summary: SelftestSummary,
}

/// Self-test totals.
#[derive(Debug, Clone, Serialize)]
pub struct SelftestSummary {
    /// Tasks tested.
    pub tasks: usize,
    /// Tasks whose reference scored 100 on every seed.
    pub reference_perfect: usize,
    /// Known-wrong runs.
    pub wrong_total: usize,
    /// Known-wrong runs scoring below the threshold.
    pub wrong_rejected: usize,
}

/// Runs every task's reference and known-wrong solutions on seeds `0..seeds`.
pub async fn selftest(
    harness: &Harness,
    tasks: &[Task],
    seeds: u64,
) -> Result<SelftestReport, QuestError> {
    let mut out = Vec::new();
    let (mut perfect, mut wrong_total, mut wrong_rejected) = (0, 0, 0);
    for task in tasks {
        if task.spec.kind == super::task::Kind::Composite {
            let t = super::composite::selftest_task(harness, task, seeds).await?;
            let ref_ok = t.seeds.iter().all(|s| s.reference.score == 100);
            for s in &t.seeds {
                for w in &s.wrong {
                    wrong_total += 1;
                    if w.score < PASS_THRESHOLD {
                        wrong_rejected += 1;
                    }
                }
            }
            if ref_ok {
                perfect += 1;
            }
            out.push(t);
            continue;
        }
        let reference = task.reference_source()?;
        let wrongs: Vec<(String, String, String)> = task
            .spec
            .solutions
            .wrong
            .iter()
            .map(|w| {
                Ok((
                    w.file.clone(),
                    w.mistake.clone(),
                    task.read_relative(&w.file)?,
                ))
            })
            .collect::<Result<_, QuestError>>()?;
        let mut per_seed = Vec::new();
        let mut ok = true;
        let mut ref_ok = true;
        for seed in 0..seeds {
            let inst = harness.instance(task, seed)?;
            let v = harness
                .run_answer(task, &inst, &as_answer(&inst.render_solution(&reference)))
                .await?;
            ref_ok &= v.score == 100;
            let reference = score_of(&task.spec.solutions.reference, "", &v);
            let mut wrong = Vec::new();
            for (file, mistake, code) in &wrongs {
                let v = harness
                    .run_answer(task, &inst, &as_answer(&inst.render_solution(code)))
                    .await?;
                wrong_total += 1;
                if v.score < PASS_THRESHOLD {
                    wrong_rejected += 1;
                } else {
                    ok = false;
                }
                wrong.push(score_of(file, mistake, &v));
            }
            per_seed.push(SelftestSeed {
                seed,
                reference,
                wrong,
            });
        }
        if ref_ok {
            perfect += 1;
        }
        out.push(SelftestTask {
            id: task.id().into(),
            seeds: per_seed,
            ok: ok && ref_ok,
        });
    }
    Ok(SelftestReport {
        summary: SelftestSummary {
            tasks: out.len(),
            reference_perfect: perfect,
            wrong_total,
            wrong_rejected,
        },
        tasks: out,
    })
}

fn score_of(file: &str, mistake: &str, v: &Verdict) -> SelftestScore {
    SelftestScore {
        file: file.into(),
        mistake: mistake.into(),
        score: v.score,
        outcome: v.outcome.as_str().into(),
        reason: v.reason.clone(),
    }
}

/// The preview of an instance (`tasks preview`): everything but the key (composites: the
/// planning prompt, the first message the model gets).
pub fn preview(task: &Task, inst: &Instance, manifest: &Manifest) -> Value {
    preview_with(
        task,
        inst,
        manifest,
        &super::prompt::Prompting {
            set: crucible_core::PromptSet::Assisted,
            ..Default::default()
        },
    )
}

/// [`preview`] worded as `prompting` says: `messages` are the opening messages
/// (`[{role, content}]`), `prompt` their contents joined by blank lines (for the assisted set,
/// the one message).
pub fn preview_with(
    task: &Task,
    inst: &Instance,
    manifest: &Manifest,
    prompting: &super::prompt::Prompting,
) -> Value {
    let messages = super::prompt::messages(task, inst, manifest, prompting);
    let prompt: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
    json!({
        "id": task.id(),
        "seed": inst.seed,
        "template_index": inst.template_index,
        "kind": task.spec.kind,
        "prompt": prompt.join("\n\n"),
        "messages": messages,
        "prompt_set": prompting.set.as_str(),
        "library": prompting.library.as_str(),
        "naive": prompting.naive,
        "template_label": inst.template_label,
        "optimal_steps": task.spec.composite.as_ref().map_or(1, |c| c.optimal_steps),
        "params": inst.params_json(),
        "checks": task.spec.checks,
        "deployed_contracts": manifest.address_book(),
        "agent_address": inst.agent.to_checksum(None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_extraction_is_robust() {
        let cases = [
            ("```typescript\nA\n```", Some("A\n")),
            ("prose\n```ts\nB\n```\nmore", Some("B\n")),
            ("```bash\nnpm i\n```\n```ts\nC\n```", Some("C\n")),
            ("```\nD\n```", Some("D\n")),
            ("```ts\n\n```\n```js\nE\n```", Some("E\n")),
            ("```TypeScript \nF\n```", Some("F\n")),
            ("```ts\nG (unterminated)", Some("G (unterminated)")),
            ("no code here", None),
            ("```python\nx\n```", None),
        ];
        for (answer, want) in cases {
            assert_eq!(extract_code(answer).as_deref(), want, "{answer:?}");
        }
    }

    #[test]
    fn transaction_shapes_are_validated() {
        let to = "0x55d398326f99059fF775485246999027B3197955";
        let good = [
            json!({"to": to}),
            json!({"to": to, "value": "1000", "data": "0xa9059cbb"}),
            json!({"to": to, "value": "0x3e8", "gasLimit": 21000, "from": "ignored"}),
            json!({"to": to, "value": 5, "gas": "50000"}),
        ];
        for g in good {
            validate_tx(&g).unwrap_or_else(|e| panic!("{g}: {e}"));
        }
        let r = validate_tx(&json!({"to": to, "value": "0x3e8", "gasLimit": 21000})).unwrap();
        assert_eq!(r.value, U256::from(1000u64));
        assert_eq!(r.gas, Some(21000));
        let bad = [
            (json!({"success": true}), "no `to`"),
            (json!({"balances": {}}), "no `to`"),
            (json!({"type": "QUERY_RESULT", "data": {}}), "no `to`"),
            (json!("0xabc"), "not a transaction object"),
            (json!({"to": "alice"}), "`to` is not an address"),
            (
                json!({"to": to, "data": "a9059cbb"}),
                "`data` is not 0x-hex",
            ),
            (json!({"to": to, "data": "0xzz"}), "not valid hex"),
            (
                json!({"to": to, "value": "1.5"}),
                "`value` is not a wei amount",
            ),
            (
                json!({"to": to, "value": -1}),
                "`value` is not a wei amount",
            ),
            (json!({"to": to, "gasLimit": 10}), "outside"),
        ];
        for (v, needle) in bad {
            let e = validate_tx(&v).expect_err(needle);
            assert!(e.contains(needle), "{v}: {e}");
        }
    }
}
