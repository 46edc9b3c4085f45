//! The QuestBench task file format: what a task JSON says ([`TaskSpec`], versioned, with a JSON
//! Schema generated from these types) and the validated [`Task`] the rest of the engine uses.
//!
//! A task names its templates, typed parameters with seeded sampling rules, an optional setup
//! block applied after the snapshot revert, an answer schema for query tasks, and declarative
//! checks whose weights sum to 100, and for composites the workflow, K_opt and the round budget.
//! Loading names the file and the field that is wrong.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::QuestError;

/// The task format version this build reads.
pub const FORMAT_VERSION: u32 = 1;

/// Atomic (one answer) or composite (rounds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// One model call, one transaction or query answer.
    Atomic,
    /// A planning call plus rounds (see [`super::composite`]).
    Composite,
}

/// Difficulty label of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Difficulty {
    /// easy
    Easy,
    /// easy-medium
    EasyMedium,
    /// medium
    Medium,
    /// hard
    Hard,
}

/// A task file as written.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    /// Format version; must equal [`FORMAT_VERSION`].
    pub format: u32,
    /// Stable id (same as the reference catalogue where the meaning is the same).
    pub id: String,
    /// Atomic or composite.
    pub kind: Kind,
    /// Paper category (`basic_transactions`, `defi_operations`, …).
    pub category: String,
    /// Paper subcategory (`native_transfer`, `erc20_operations`, …).
    pub subcategory: String,
    /// Difficulty label.
    pub difficulty: Difficulty,
    /// One-line summary for listings.
    pub title: String,
    /// Natural-language templates (at least 3) with `{param}` placeholders.
    pub templates: Vec<String>,
    /// Typed parameters, sampled in this order.
    #[serde(default)]
    pub parameters: Vec<ParamSpec>,
    /// Preconditions applied after the snapshot revert, before the model's code runs.
    #[serde(default)]
    pub setup: Vec<SetupStep>,
    /// For query tasks: the fields the returned answer object must hold.
    #[serde(default)]
    pub answer: Option<AnswerSchema>,
    /// Scored checks; weights sum to 100.
    pub checks: Vec<CheckSpec>,
    /// Reference and known-wrong solutions, relative to the task file's directory.
    pub solutions: Solutions,
    /// Composite-only fields.
    #[serde(default)]
    pub composite: Option<CompositeSpec>,
}

/// One typed parameter and how it is sampled.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    /// Placeholder name used in templates and checks.
    pub name: String,
    /// Value type.
    #[serde(rename = "type")]
    pub ty: ParamType,
    /// Display unit appended nowhere; documentation for the prompt author.
    #[serde(default)]
    pub unit: Option<String>,
    /// Sampling rule.
    pub sample: Sample,
}

/// A parameter's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParamType {
    /// A decimal number kept as text with a fixed number of decimals (never a float).
    Decimal,
    /// A whole number.
    Integer,
    /// A 20-byte address.
    Address,
    /// Free text.
    String,
    /// true/false.
    Bool,
}

/// A seeded sampling rule.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "method", rename_all = "snake_case", deny_unknown_fields)]
pub enum Sample {
    /// Uniform over the grid `min, min + 10^-decimals, …, max` (decimal text bounds).
    Range {
        /// Lower bound, decimal text.
        min: String,
        /// Upper bound, decimal text.
        max: String,
        /// Digits after the point.
        decimals: u32,
    },
    /// Uniform over `min, min + step, …` up to `max`.
    IntRange {
        /// Lower bound.
        min: i64,
        /// Upper bound.
        max: i64,
        /// Step (≥ 1).
        #[serde(default = "one")]
        step: i64,
    },
    /// One of the listed values (text for decimals, numbers for integers, addresses or manifest
    /// names for addresses, …).
    List {
        /// The choices.
        values: Vec<serde_json::Value>,
    },
    /// Always this value.
    Fixed {
        /// The value.
        value: serde_json::Value,
    },
    /// An address from the universe manifest: a contract, `pair:A/B`, or an account
    /// (`agent` is the seeded agent of the instance).
    Manifest {
        /// Manifest name.
        name: String,
    },
    /// A fresh address derived from the seed (nobody holds its key).
    Derived,
    /// A fresh address whose key is derived from the seed and held by the harness (it can sign
    /// EIP-712 messages such as permits; never shown to the model).
    Signer,
    /// An EIP-2612 permit signature (0x r‖s‖v) by an earlier `signer` parameter, for a token
    /// whose EIP-712 domain is (name, version, chain id, token address); nonce 0.
    Permit {
        /// Token: an earlier address parameter (without `$`).
        token: String,
        /// Domain name.
        name: String,
        /// Domain version.
        version: String,
        /// Owner: an earlier `signer` parameter.
        owner: String,
        /// Spender: an earlier address parameter.
        spender: String,
        /// Value: an earlier decimal parameter, scaled by `decimals`.
        value: String,
        /// Token decimals.
        decimals: u32,
        /// Deadline: an earlier integer parameter.
        deadline: String,
    },
    /// Random text of `length` characters from a charset.
    Text {
        /// Number of characters.
        length: usize,
        /// `alphanumeric` or `alphanumeric_space`.
        #[serde(default = "alnum")]
        charset: String,
    },
}

fn deployer() -> String {
    "deployer".into()
}
fn one() -> i64 {
    1
}
fn alnum() -> String {
    "alphanumeric".into()
}

/// A reference to an address in checks and setup: `agent` (the seeded agent), `zero`, `$param`,
/// a manifest contract or pair name (`USDT`, `pair:USDT/BUSD`) or `account:NAME` (a universe
/// account: `deployer`, `second`, or `account:agent`, the universe's funded agent).
pub type AddrRef = String;

/// An expected amount: an expression over sampled parameters and pre-state.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Expr {
    /// A parameter in base units: `value × 10^decimals` (exact decimal arithmetic).
    Units {
        /// Parameter name.
        param: String,
        /// Token decimals.
        decimals: u32,
    },
    /// A literal amount in base units (decimal text).
    Literal(String),
    /// A chain quantity read before the transaction (or at validation time for query tasks).
    Read(Read),
    /// `percent` (an integer parameter) per cent of a chain quantity read before the transaction.
    PercentOf {
        /// Integer parameter holding the percentage.
        percent: String,
        /// The quantity.
        of: Read,
    },
    /// Sum of the parts.
    Sum(Vec<Expr>),
    /// First minus second (saturating at 0).
    Sub(Box<Expr>, Box<Expr>),
}

/// A chain quantity.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Read {
    /// Native balance.
    NativeBalance {
        /// Whose.
        of: AddrRef,
    },
    /// ERC-20 `balanceOf`.
    Erc20Balance {
        /// Token.
        token: AddrRef,
        /// Whose.
        of: AddrRef,
    },
    /// ERC-20 `allowance(owner, spender)`.
    Erc20Allowance {
        /// Token.
        token: AddrRef,
        /// Owner.
        owner: AddrRef,
        /// Spender.
        spender: AddrRef,
    },
    /// ERC-1155 `balanceOf(of, id)`.
    Erc1155Balance {
        /// Token.
        token: AddrRef,
        /// Whose.
        of: AddrRef,
        /// Token id parameter or literal.
        id: Box<Expr>,
    },
    /// A no-argument view returning one uint word.
    ViewUint {
        /// Contract.
        target: AddrRef,
        /// Signature, e.g. `counter()` (or `userInfo(address)` with `of`).
        signature: String,
        /// The single address argument of the view, if it takes one (e.g. a staker for
        /// `userInfo(address)`); the first returned word is read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        of: Option<AddrRef>,
        /// A uint argument after `of`, if the view takes one (e.g. a token id for
        /// `ownerOf(uint256)`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Box<Expr>>,
    },
    /// The latest block number.
    BlockNumber,
    /// An account's transaction count (nonce of the latest block).
    Nonce {
        /// Whose.
        of: AddrRef,
    },
    /// `baseFeePerGas` of the latest block (wei).
    BaseFee,
    /// The node's `eth_gasPrice` (wei).
    GasPrice,
    /// One 32-byte word of a no-argument view's return data (e.g. word 1 of a pair's
    /// `getReserves()` is `reserve1`).
    ViewWord {
        /// Contract.
        target: AddrRef,
        /// Signature, e.g. `getReserves()`.
        signature: String,
        /// Zero-based word index.
        word: u8,
    },
    /// A Uniswap-V2-style router quote: `getAmountsOut(amount, path)` → the last element
    /// (`side: out`) or `getAmountsIn(amount, path)` → the first element (`side: in`).
    Quote {
        /// Router.
        router: AddrRef,
        /// Which quote.
        side: QuoteSide,
        /// Amount in (for `out`) or wanted out (for `in`), base units.
        amount: Box<Expr>,
        /// Token path, at least 2 entries.
        path: Vec<AddrRef>,
    },
    /// Uniswap-V2 `addLiquidity` arithmetic on a pair's current state: the router takes the
    /// desired amounts at the pool ratio (`quote`), the pair mints
    /// `min(usedA × supply / reserveA, usedB × supply / reserveB)`.
    LiquidityAdd {
        /// Pair (LP token).
        pair: AddrRef,
        /// Token A (the other pair token is B).
        token_a: AddrRef,
        /// Desired amount of A, base units.
        amount_a: Box<Expr>,
        /// Desired amount of B, base units.
        amount_b: Box<Expr>,
        /// Which figure.
        yields: LiquidityYield,
    },
    /// Uniswap-V2 `burn` arithmetic: what burning `liquidity` LP returns of `token`
    /// (`liquidity × balanceOf(pair) / totalSupply`).
    LiquidityRemove {
        /// Pair (LP token).
        pair: AddrRef,
        /// One of the pair's tokens.
        token: AddrRef,
        /// LP amount burned, base units.
        liquidity: Box<Expr>,
    },
}

/// What a [`Read::LiquidityAdd`] yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LiquidityYield {
    /// LP tokens minted.
    Lp,
    /// Amount of token A the router takes.
    UsedA,
    /// Amount of token B the router takes.
    UsedB,
}

/// Which router quote a [`Read::Quote`] asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QuoteSide {
    /// `getAmountsOut`: what `amount` in buys at the end of the path.
    Out,
    /// `getAmountsIn`: what must go in for `amount` out.
    In,
}

/// A precondition step (applied in order after the snapshot revert).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "step", rename_all = "snake_case", deny_unknown_fields)]
pub enum SetupStep {
    /// Sets an account's native balance.
    Native {
        /// Whose.
        account: AddrRef,
        /// New balance in wei.
        amount: Expr,
    },
    /// An account (by impersonation; the deployer, the whale, unless `from` says otherwise)
    /// transfers tokens to another.
    Erc20 {
        /// Sender (default `deployer`).
        #[serde(default = "deployer")]
        from: AddrRef,
        /// Token.
        token: AddrRef,
        /// Recipient.
        to: AddrRef,
        /// Amount in base units.
        amount: Expr,
    },
    /// `owner` approves `spender` (by impersonation).
    Allowance {
        /// Token.
        token: AddrRef,
        /// Owner (impersonated; given 1 native coin for gas when it has less).
        owner: AddrRef,
        /// Spender.
        spender: AddrRef,
        /// Allowance in base units.
        amount: Expr,
    },
    /// An account transfers an ERC-721 token (by impersonation; default sender the deployer).
    Erc721 {
        /// Sender (default `deployer`).
        #[serde(default = "deployer")]
        from: AddrRef,
        /// Collection.
        token: AddrRef,
        /// Recipient.
        to: AddrRef,
        /// Token id.
        id: Expr,
    },
    /// An account transfers ERC-1155 tokens (by impersonation; default sender the deployer).
    Erc1155 {
        /// Sender (default `deployer`).
        #[serde(default = "deployer")]
        from: AddrRef,
        /// Collection.
        token: AddrRef,
        /// Recipient.
        to: AddrRef,
        /// Token id.
        id: Expr,
        /// Amount.
        amount: Expr,
    },
    /// The owner of an ERC-721 token (impersonated) approves `approved` for it (`approve`).
    Erc721Approve {
        /// Token owner (impersonated; given 1 native coin for gas when it has less).
        owner: AddrRef,
        /// Collection.
        token: AddrRef,
        /// Token id.
        id: Expr,
        /// The approved address.
        approved: AddrRef,
    },
    /// Advances block time.
    TimeAdvance {
        /// Seconds.
        seconds: u64,
    },
    /// `account` (impersonated) approves `pool` for `amount` of `token` and calls
    /// `deposit(amount)` on it: a stake that exists before the agent acts.
    Stake {
        /// Staker (default the seeded agent).
        #[serde(default = "agent_ref")]
        account: AddrRef,
        /// Staking contract with `deposit(uint256)`.
        pool: AddrRef,
        /// Token the pool pulls.
        token: AddrRef,
        /// Amount in base units.
        amount: Expr,
    },
}

fn agent_ref() -> AddrRef {
    "agent".into()
}

/// The answer object a query task must return.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerSchema {
    /// Field name → what it holds (type and unit), shown in the prompt.
    pub fields: BTreeMap<String, String>,
}

/// How close an actual amount must be to the expected one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Relative tolerance in basis points of the expected value (100 = 1 %).
    #[serde(default)]
    pub rel_bps: u32,
    /// Absolute tolerance in base units (decimal text).
    #[serde(default)]
    pub abs: Option<String>,
}

/// Which way a balance moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Balance goes up by the expected amount.
    Increase,
    /// Balance goes down by the expected amount.
    Decrease,
}

/// One scored check as written.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    /// Short name shown in verdicts.
    pub name: String,
    /// Points (all checks sum to 100).
    pub weight: u32,
    /// What is checked.
    pub check: Check,
}

/// The check families (one variant per family; evaluation in [`super::check`]).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "family", rename_all = "snake_case", deny_unknown_fields)]
pub enum Check {
    /// The transaction was mined with status 1.
    TxSuccess,
    /// The transaction's `to` is this address.
    TxTo {
        /// Expected target.
        target: AddrRef,
    },
    /// The calldata starts with the selector of one of these signatures (all correct overloads).
    Selector {
        /// Accepted function signatures, e.g. `transfer(address,uint256)`.
        accepted: Vec<String>,
    },
    /// The calldata is empty (a plain value transfer).
    EmptyCalldata,
    /// The calldata contains the UTF-8 bytes of a text parameter.
    CalldataContains {
        /// Text parameter.
        param: String,
    },
    /// The transaction's value.
    TxValue {
        /// Expected wei.
        expected: Expr,
        /// Tolerance.
        #[serde(default)]
        tolerance: Tolerance,
    },
    /// Native balance change of an account; `exclude_gas` adds the agent's gas cost back.
    NativeDelta {
        /// Whose balance.
        account: AddrRef,
        /// Up or down.
        direction: Direction,
        /// Magnitude in wei.
        expected: Expr,
        /// Add the fee the agent paid back before comparing (the agent's own balance).
        #[serde(default)]
        exclude_gas: bool,
        /// Tolerance.
        #[serde(default)]
        tolerance: Tolerance,
    },
    /// ERC-20 balance change of an account.
    Erc20Delta {
        /// Token.
        token: AddrRef,
        /// Whose balance.
        account: AddrRef,
        /// Up or down.
        direction: Direction,
        /// Magnitude in base units.
        expected: Expr,
        /// Tolerance.
        #[serde(default)]
        tolerance: Tolerance,
    },
    /// `allowance(owner, spender)` after the transaction.
    AllowanceEquals {
        /// Token.
        token: AddrRef,
        /// Owner.
        owner: AddrRef,
        /// Spender.
        spender: AddrRef,
        /// Expected allowance (exact unless a tolerance is given).
        expected: Expr,
        /// Tolerance.
        #[serde(default)]
        tolerance: Tolerance,
    },
    /// ERC-721 `ownerOf(id)` after the transaction.
    NftOwner {
        /// Collection.
        token: AddrRef,
        /// Token id.
        id: Expr,
        /// Expected owner.
        owner: AddrRef,
    },
    /// ERC-721 `getApproved(id)` after the transaction.
    NftApproved {
        /// Collection.
        token: AddrRef,
        /// Token id.
        id: Expr,
        /// Expected approved address.
        approved: AddrRef,
    },
    /// ERC-721/1155 `isApprovedForAll(owner, operator)` after the transaction.
    NftOperator {
        /// Collection.
        token: AddrRef,
        /// Owner.
        owner: AddrRef,
        /// Operator.
        operator: AddrRef,
        /// Expected flag.
        approved: bool,
    },
    /// ERC-1155 balance change.
    Erc1155Delta {
        /// Collection.
        token: AddrRef,
        /// Whose balance.
        account: AddrRef,
        /// Token id.
        id: Expr,
        /// Up or down.
        direction: Direction,
        /// Magnitude.
        expected: Expr,
    },
    /// A no-argument uint view equals an expected value after the transaction.
    ViewEquals {
        /// Contract.
        target: AddrRef,
        /// Signature, e.g. `counter()` (or `userInfo(address)` with `of`).
        signature: String,
        /// Expected value (pre-state reads are taken before the transaction).
        expected: Expr,
        /// The single address argument of the view, if it takes one; the first returned word is
        /// compared.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        of: Option<AddrRef>,
    },
    /// A field of a query answer equals a value read from the chain at validation time.
    AnswerEquals {
        /// Answer field.
        field: String,
        /// Expected value.
        expected: Expr,
        /// Tolerance.
        #[serde(default)]
        tolerance: Tolerance,
    },
    /// A text field of a query answer equals the string a view returns at validation time
    /// (exact, after trimming surrounding whitespace).
    AnswerTextEquals {
        /// Answer field.
        field: String,
        /// Contract.
        target: AddrRef,
        /// Signature of a view returning `string`, e.g. `name()` or `tokenURI(uint256)`.
        signature: String,
        /// A uint argument, if the view takes one (e.g. the token id of `tokenURI(uint256)`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Expr>,
    },
}

impl Check {
    /// The family name (the serde tag).
    pub fn family(&self) -> &'static str {
        match self {
            Check::TxSuccess => "tx_success",
            Check::TxTo { .. } => "tx_to",
            Check::Selector { .. } => "selector",
            Check::EmptyCalldata => "empty_calldata",
            Check::CalldataContains { .. } => "calldata_contains",
            Check::TxValue { .. } => "tx_value",
            Check::NativeDelta { .. } => "native_delta",
            Check::Erc20Delta { .. } => "erc20_delta",
            Check::AllowanceEquals { .. } => "allowance_equals",
            Check::NftOwner { .. } => "nft_owner",
            Check::NftApproved { .. } => "nft_approved",
            Check::NftOperator { .. } => "nft_operator",
            Check::Erc1155Delta { .. } => "erc1155_delta",
            Check::ViewEquals { .. } => "view_equals",
            Check::AnswerEquals { .. } => "answer_equals",
            Check::AnswerTextEquals { .. } => "answer_text_equals",
        }
    }
}

/// Solutions shipped with a task.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Solutions {
    /// The reference solution (must score 100 on every seed).
    pub reference: String,
    /// Known-wrong answers (each must score below the pass threshold).
    pub wrong: Vec<WrongSpec>,
}

/// One known-wrong answer.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WrongSpec {
    /// File, relative to the task file's directory.
    pub file: String,
    /// The mistake, in a few words (wrong recipient, wrong units, …).
    pub mistake: String,
    /// The check families this answer exercises (together the wrong answers cover every family the
    /// task uses).
    pub families: Vec<String>,
}

/// Composite-only fields (run by [`super::composite`]).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompositeSpec {
    /// Ordered atomic operation ids.
    pub workflow: Vec<String>,
    /// K_opt: the optimal number of execution rounds.
    pub optimal_steps: u32,
    /// Max rounds = K_opt × this.
    pub max_rounds_multiplier: u32,
    /// The atomic operation(s) whose end state is scored.
    pub key_operations: Vec<String>,
    /// Names of checks that must all pass for the episode to pass (the key operations' end
    /// state): when one fails, the base score is capped at 50.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
}

/// A validated task, with its solution files resolved.
#[derive(Debug, Clone)]
pub struct Task {
    /// The spec as written (already validated).
    pub spec: TaskSpec,
    /// Where it was loaded from.
    pub path: PathBuf,
}

impl Task {
    /// The task id.
    pub fn id(&self) -> &str {
        &self.spec.id
    }

    /// Whether the task expects a query answer instead of a transaction.
    pub fn is_query(&self) -> bool {
        self.spec.answer.is_some()
    }

    /// Reads the reference solution's source.
    pub fn reference_source(&self) -> Result<String, QuestError> {
        self.read_relative(&self.spec.solutions.reference)
    }

    /// Reads a file next to the task file.
    pub fn read_relative(&self, rel: &str) -> Result<String, QuestError> {
        let p = self.path.parent().unwrap_or(Path::new(".")).join(rel);
        std::fs::read_to_string(&p).map_err(|e| QuestError::Io {
            path: p.display().to_string(),
            source: e,
        })
    }

    /// Parses and validates task JSON text; `path` is used in error messages and to resolve files.
    pub fn from_json(text: &str, path: &Path) -> Result<Self, QuestError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let spec: TaskSpec =
            serde_path_to_error::deserialize(de).map_err(|e| QuestError::Load {
                file: path.display().to_string(),
                field: e.path().to_string(),
                message: e.inner().to_string(),
            })?;
        validate(&spec).map_err(|(field, message)| QuestError::Load {
            file: path.display().to_string(),
            field,
            message,
        })?;
        Ok(Self {
            spec,
            path: path.to_path_buf(),
        })
    }

    /// Loads and validates one task file.
    pub fn load(path: &Path) -> Result<Self, QuestError> {
        let text = std::fs::read_to_string(path).map_err(|e| QuestError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        let task = Self::from_json(&text, path)?;
        if task.spec.kind == Kind::Composite {
            for rel in std::iter::once(&task.spec.solutions.reference)
                .chain(task.spec.solutions.wrong.iter().map(|w| &w.file))
            {
                super::composite::check_script(&task, rel).map_err(|message| QuestError::Load {
                    file: path.display().to_string(),
                    field: "solutions".into(),
                    message: format!("{rel}: {message}"),
                })?;
            }
            return Ok(task);
        }
        for rel in std::iter::once(&task.spec.solutions.reference)
            .chain(task.spec.solutions.wrong.iter().map(|w| &w.file))
        {
            let p = path.parent().unwrap_or(Path::new(".")).join(rel);
            let load_err = |message: String| QuestError::Load {
                file: path.display().to_string(),
                field: "solutions".into(),
                message,
            };
            let src = std::fs::read_to_string(&p)
                .map_err(|_| load_err(format!("solution file {rel} does not exist")))?;
            // `{{name}}` placeholders are filled from the instance; a typo would ship a broken
            // reference, so every one must be a parameter.
            for ph in placeholders(&src) {
                if let Some(name) = ph.strip_prefix('{') {
                    if !task.spec.parameters.iter().any(|q| q.name == name) {
                        return Err(load_err(format!(
                            "{rel}: placeholder {{{{{name}}}}} is not a parameter"
                        )));
                    }
                }
            }
        }
        Ok(task)
    }
}

/// Loads every `*.json` task under `dir` (recursively; composite scripts `*.rounds.json` are
/// solutions, not tasks), sorted by id; ids must be unique.
pub fn load_dir(dir: &Path) -> Result<Vec<Task>, QuestError> {
    let mut files = Vec::new();
    collect_json(dir, &mut files)?;
    let mut tasks = Vec::new();
    for f in files {
        tasks.push(Task::load(&f)?);
    }
    tasks.sort_by(|a, b| a.spec.id.cmp(&b.spec.id));
    for w in tasks.windows(2) {
        if w[0].spec.id == w[1].spec.id {
            return Err(QuestError::Load {
                file: w[1].path.display().to_string(),
                field: "id".into(),
                message: format!("duplicate task id {:?}", w[1].spec.id),
            });
        }
    }
    Ok(tasks)
}

/// Whether `path` names a task file: `*.json`, but not a composite script (`*.rounds.json`) nor
/// the generated schema (`task.schema.json`).
pub fn is_task_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".json") && !name.ends_with(".rounds.json") && name != "task.schema.json"
}

fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), QuestError> {
    let rd = std::fs::read_dir(dir).map_err(|e| QuestError::Io {
        path: dir.display().to_string(),
        source: e,
    })?;
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_json(&p, out)?;
        } else if is_task_file(&p) {
            out.push(p);
        }
    }
    Ok(())
}

/// The JSON Schema of the task format, pretty-printed with a trailing newline.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(TaskSpec);
    let mut s = serde_json::to_string_pretty(&schema).unwrap_or_default();
    s.push('\n');
    s
}

type Invalid = (String, String);

fn bad(field: impl Into<String>, message: impl Into<String>) -> Invalid {
    (field.into(), message.into())
}

/// Semantic validation after deserialisation: returns (field path, message) of the first problem.
fn validate(spec: &TaskSpec) -> Result<(), Invalid> {
    if spec.format != FORMAT_VERSION {
        return Err(bad(
            "format",
            format!(
                "unsupported format version {} (this build reads {FORMAT_VERSION})",
                spec.format
            ),
        ));
    }
    if spec.id.is_empty()
        || !spec
            .id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(bad("id", "id must be non-empty [A-Za-z0-9_]"));
    }
    if spec.templates.len() < 3 {
        return Err(bad(
            "templates",
            format!(
                "at least 3 templates required, found {}",
                spec.templates.len()
            ),
        ));
    }
    let mut names = BTreeSet::new();
    for (i, p) in spec.parameters.iter().enumerate() {
        let field = format!("parameters[{i}]");
        if !names.insert(p.name.as_str()) {
            return Err(bad(
                format!("{field}.name"),
                format!("duplicate parameter {:?}", p.name),
            ));
        }
        if p.name == "agent" {
            return Err(bad(format!("{field}.name"), "\"agent\" is reserved"));
        }
        validate_sample(p).map_err(|m| bad(format!("{field}.sample"), m))?;
    }
    for (i, t) in spec.templates.iter().enumerate() {
        for ph in placeholders(t) {
            if !names.contains(ph.as_str()) {
                return Err(bad(
                    format!("templates[{i}]"),
                    format!("placeholder {{{ph}}} is not a parameter"),
                ));
            }
        }
    }
    let params: BTreeMap<&str, ParamType> = spec
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.ty))
        .collect();
    for (i, s) in spec.setup.iter().enumerate() {
        check_setup(s, &params).map_err(|m| bad(format!("setup[{i}]"), m))?;
    }
    if spec.checks.is_empty() {
        return Err(bad("checks", "a task needs at least one check"));
    }
    let total: u32 = spec.checks.iter().map(|c| c.weight).sum();
    if total != 100 {
        return Err(bad(
            "checks",
            format!("check weights sum to {total}, expected 100"),
        ));
    }
    let mut families = BTreeSet::new();
    for (i, c) in spec.checks.iter().enumerate() {
        families.insert(c.check.family());
        check_check(&c.check, &params, spec.answer.as_ref())
            .map_err(|m| bad(format!("checks[{i}].check"), m))?;
        let is_answer = matches!(
            c.check,
            Check::AnswerEquals { .. } | Check::AnswerTextEquals { .. }
        );
        if spec.kind == Kind::Composite {
            if is_answer && spec.answer.is_none() {
                return Err(bad(
                    format!("checks[{i}].check"),
                    "answer checks need an answer schema",
                ));
            }
            if matches!(
                c.check,
                Check::TxSuccess
                    | Check::TxTo { .. }
                    | Check::Selector { .. }
                    | Check::EmptyCalldata
                    | Check::CalldataContains { .. }
                    | Check::TxValue { .. }
            ) {
                return Err(bad(
                    format!("checks[{i}].check"),
                    format!(
                        "a composite is scored on its end state; {} looks at one transaction",
                        c.check.family()
                    ),
                ));
            }
        } else if is_answer != spec.answer.is_some() {
            return Err(bad(
                format!("checks[{i}].check"),
                if is_answer {
                    "answer checks need an answer schema"
                } else {
                    "a query task is scored by answer_equals / answer_text_equals checks only"
                },
            ));
        }
    }
    let mut covered = BTreeSet::new();
    for (i, w) in spec.solutions.wrong.iter().enumerate() {
        for f in &w.families {
            if !families.contains(f.as_str()) {
                return Err(bad(
                    format!("solutions.wrong[{i}].families"),
                    format!("family {f:?} is not used by this task's checks"),
                ));
            }
            covered.insert(f.as_str());
        }
    }
    if let Some(missing) = families.iter().find(|f| !covered.contains(*f)) {
        return Err(bad(
            "solutions.wrong",
            format!("no known-wrong answer covers the check family {missing:?}"),
        ));
    }
    match (spec.kind, &spec.composite) {
        (Kind::Composite, None) => {
            return Err(bad("composite", "a composite task needs a composite block"))
        }
        (Kind::Atomic, Some(_)) => {
            return Err(bad("composite", "an atomic task has no composite block"))
        }
        (Kind::Composite, Some(c)) => {
            if c.optimal_steps == 0 || c.max_rounds_multiplier == 0 {
                return Err(bad(
                    "composite",
                    "optimal_steps and max_rounds_multiplier must be ≥ 1",
                ));
            }
            if let Some(r) = c
                .required
                .iter()
                .find(|r| !spec.checks.iter().any(|k| &k.name == *r))
            {
                return Err(bad(
                    "composite.required",
                    format!("{r:?} is not the name of a check"),
                ));
            }
            if c.key_operations.iter().any(|k| !c.workflow.contains(k)) {
                return Err(bad(
                    "composite.key_operations",
                    "every key operation must be a workflow step",
                ));
            }
        }
        (Kind::Atomic, None) => {}
    }
    Ok(())
}

/// `{name}` placeholders of a template.
pub fn placeholders(t: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        match after.find('}') {
            Some(j) => {
                out.push(after[..j].to_string());
                rest = &after[j + 1..];
            }
            None => break,
        }
    }
    out
}

/// Longest random text parameter (a prompt is not a place for megabytes of noise).
const MAX_TEXT_LENGTH: usize = 4096;

fn validate_sample(p: &ParamSpec) -> Result<(), String> {
    use ParamType as T;
    match (&p.sample, p.ty) {
        (Sample::Range { min, max, decimals }, T::Decimal) => {
            let lo =
                super::instance::decimal_units(min, *decimals).map_err(|e| format!("min: {e}"))?;
            let hi =
                super::instance::decimal_units(max, *decimals).map_err(|e| format!("max: {e}"))?;
            if lo > hi {
                return Err(format!("min {min} is above max {max}"));
            }
            Ok(())
        }
        (Sample::IntRange { min, max, step }, T::Integer) => {
            if *step < 1 || min > max {
                return Err(format!("empty range [{min}, {max}] step {step}"));
            }
            if max.checked_sub(*min).is_none() {
                return Err(format!("range [{min}, {max}] is too wide"));
            }
            Ok(())
        }
        (Sample::List { values }, _) => {
            if values.is_empty() {
                return Err("list has no values".into());
            }
            values.iter().try_for_each(|v| literal_ok(p.ty, v))
        }
        (Sample::Fixed { value }, _) => literal_ok(p.ty, value),
        (Sample::Manifest { name }, T::Address) => {
            if name.is_empty() {
                Err("manifest name is empty".into())
            } else {
                Ok(())
            }
        }
        (Sample::Derived | Sample::Signer, T::Address) => Ok(()),
        (Sample::Permit { .. }, T::String) => Ok(()),
        (Sample::Text { length, charset }, T::String) => {
            if *length == 0 || *length > MAX_TEXT_LENGTH {
                return Err(format!("length must be 1..={MAX_TEXT_LENGTH}"));
            }
            if charset != "alphanumeric" && charset != "alphanumeric_space" {
                return Err(format!("unknown charset {charset:?}"));
            }
            Ok(())
        }
        (s, t) => Err(format!(
            "sampling method {} does not fit type {t:?}",
            serde_json::to_value(s)
                .ok()
                .and_then(|v| v.get("method").cloned())
                .unwrap_or_default()
        )),
    }
}

fn literal_ok(ty: ParamType, v: &serde_json::Value) -> Result<(), String> {
    let ok = match ty {
        ParamType::Decimal => v
            .as_str()
            .is_some_and(|s| super::instance::decimal_units(s, 30).is_ok()),
        ParamType::Integer => v.as_i64().is_some(),
        // An address literal or a manifest name (resolved when the instance is sampled).
        ParamType::Address => v.as_str().is_some_and(|s| !s.is_empty()),
        ParamType::String => v.is_string(),
        ParamType::Bool => v.is_boolean(),
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "value {v} is not a valid {ty:?} (decimals are text)"
        ))
    }
}

fn check_ref(r: &str, params: &BTreeMap<&str, ParamType>) -> Result<(), String> {
    if let Some(p) = r.strip_prefix('$') {
        match params.get(p) {
            Some(ParamType::Address) => Ok(()),
            Some(t) => Err(format!("${p} is a {t:?} parameter, not an address")),
            None => Err(format!("${p} is not a parameter")),
        }
    } else if r.is_empty() {
        Err("empty address reference".into())
    } else {
        Ok(())
    }
}

fn check_expr(e: &Expr, params: &BTreeMap<&str, ParamType>) -> Result<(), String> {
    match e {
        Expr::Units { param, .. } => match params.get(param.as_str()) {
            Some(ParamType::Decimal | ParamType::Integer) => Ok(()),
            Some(t) => Err(format!("{param} is a {t:?} parameter, not a number")),
            None => Err(format!("{param} is not a parameter")),
        },
        Expr::Literal(s) => super::instance::decimal_units(s, 0)
            .map(|_| ())
            .map_err(|e| format!("literal {s:?}: {e}")),
        Expr::Read(r) => check_read(r, params),
        Expr::PercentOf { percent, of } => {
            match params.get(percent.as_str()) {
                Some(ParamType::Integer) => {}
                _ => return Err(format!("{percent} is not an integer parameter")),
            }
            check_read(of, params)
        }
        Expr::Sum(parts) => parts.iter().try_for_each(|p| check_expr(p, params)),
        Expr::Sub(a, b) => {
            check_expr(a, params)?;
            check_expr(b, params)
        }
    }
}

fn check_read(r: &Read, params: &BTreeMap<&str, ParamType>) -> Result<(), String> {
    match r {
        Read::NativeBalance { of } => check_ref(of, params),
        Read::Erc20Balance { token, of } => {
            check_ref(token, params)?;
            check_ref(of, params)
        }
        Read::Erc20Allowance {
            token,
            owner,
            spender,
        } => {
            check_ref(token, params)?;
            check_ref(owner, params)?;
            check_ref(spender, params)
        }
        Read::Erc1155Balance { token, of, id } => {
            check_ref(token, params)?;
            check_ref(of, params)?;
            check_expr(id, params)
        }
        Read::ViewUint {
            target,
            signature,
            of,
            id,
        } => {
            check_ref(target, params)?;
            if let Some(of) = of {
                check_ref(of, params)?;
            }
            if let Some(id) = id {
                check_expr(id, params)?;
            }
            check_signature(signature)
        }
        Read::BlockNumber => Ok(()),
        Read::Nonce { of } => check_ref(of, params),
        Read::BaseFee | Read::GasPrice => Ok(()),
        Read::ViewWord {
            target, signature, ..
        } => {
            check_ref(target, params)?;
            check_signature(signature)
        }
        Read::Quote {
            router,
            amount,
            path,
            ..
        } => {
            check_ref(router, params)?;
            check_expr(amount, params)?;
            if path.len() < 2 {
                return Err("a quote path needs at least 2 tokens".into());
            }
            path.iter().try_for_each(|t| check_ref(t, params))
        }
        Read::LiquidityAdd {
            pair,
            token_a,
            amount_a,
            amount_b,
            ..
        } => {
            check_ref(pair, params)?;
            check_ref(token_a, params)?;
            check_expr(amount_a, params)?;
            check_expr(amount_b, params)
        }
        Read::LiquidityRemove {
            pair,
            token,
            liquidity,
        } => {
            check_ref(pair, params)?;
            check_ref(token, params)?;
            check_expr(liquidity, params)
        }
    }
}

fn check_signature(s: &str) -> Result<(), String> {
    let ok = s
        .find('(')
        .is_some_and(|i| i > 0 && s.ends_with(')') && !s.contains(' '));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{s:?} is not a function signature like name(type,…)"
        ))
    }
}

fn check_setup(s: &SetupStep, params: &BTreeMap<&str, ParamType>) -> Result<(), String> {
    match s {
        SetupStep::Native { account, amount } => {
            check_ref(account, params)?;
            check_expr(amount, params)
        }
        SetupStep::Erc20 {
            from,
            token,
            to,
            amount,
        } => {
            check_ref(from, params)?;
            check_ref(token, params)?;
            check_ref(to, params)?;
            check_expr(amount, params)
        }
        SetupStep::Allowance {
            token,
            owner,
            spender,
            amount,
        } => {
            check_ref(token, params)?;
            check_ref(owner, params)?;
            check_ref(spender, params)?;
            check_expr(amount, params)
        }
        SetupStep::Erc721 {
            from,
            token,
            to,
            id,
        } => {
            check_ref(from, params)?;
            check_ref(token, params)?;
            check_ref(to, params)?;
            check_expr(id, params)
        }
        SetupStep::Erc1155 {
            from,
            token,
            to,
            id,
            amount,
        } => {
            check_ref(from, params)?;
            check_ref(token, params)?;
            check_ref(to, params)?;
            check_expr(id, params)?;
            check_expr(amount, params)
        }
        SetupStep::Erc721Approve {
            owner,
            token,
            id,
            approved,
        } => {
            check_ref(owner, params)?;
            check_ref(token, params)?;
            check_ref(approved, params)?;
            check_expr(id, params)
        }
        SetupStep::TimeAdvance { .. } => Ok(()),
        SetupStep::Stake {
            account,
            pool,
            token,
            amount,
        } => {
            check_ref(account, params)?;
            check_ref(pool, params)?;
            check_ref(token, params)?;
            check_expr(amount, params)
        }
    }
}

fn check_check(
    c: &Check,
    params: &BTreeMap<&str, ParamType>,
    answer: Option<&AnswerSchema>,
) -> Result<(), String> {
    let tol = |t: &Tolerance| match &t.abs {
        Some(a) => super::instance::decimal_units(a, 0)
            .map(|_| ())
            .map_err(|e| format!("tolerance.abs: {e}")),
        None => Ok(()),
    };
    match c {
        Check::TxSuccess | Check::EmptyCalldata => Ok(()),
        Check::TxTo { target } => check_ref(target, params),
        Check::Selector { accepted } => {
            if accepted.is_empty() {
                return Err("accepted has no signatures".into());
            }
            accepted.iter().try_for_each(|s| check_signature(s))
        }
        Check::CalldataContains { param } => match params.get(param.as_str()) {
            Some(ParamType::String) => Ok(()),
            _ => Err(format!("{param} is not a string parameter")),
        },
        Check::TxValue {
            expected,
            tolerance,
        } => {
            tol(tolerance)?;
            check_expr(expected, params)
        }
        Check::NativeDelta {
            account,
            expected,
            tolerance,
            ..
        } => {
            tol(tolerance)?;
            check_ref(account, params)?;
            check_expr(expected, params)
        }
        Check::Erc20Delta {
            token,
            account,
            expected,
            tolerance,
            ..
        } => {
            tol(tolerance)?;
            check_ref(token, params)?;
            check_ref(account, params)?;
            check_expr(expected, params)
        }
        Check::AllowanceEquals {
            token,
            owner,
            spender,
            expected,
            tolerance,
        } => {
            tol(tolerance)?;
            check_ref(token, params)?;
            check_ref(owner, params)?;
            check_ref(spender, params)?;
            check_expr(expected, params)
        }
        Check::NftOwner { token, id, owner } => {
            check_ref(token, params)?;
            check_ref(owner, params)?;
            check_expr(id, params)
        }
        Check::NftApproved {
            token,
            id,
            approved,
        } => {
            check_ref(token, params)?;
            check_ref(approved, params)?;
            check_expr(id, params)
        }
        Check::NftOperator {
            token,
            owner,
            operator,
            ..
        } => {
            check_ref(token, params)?;
            check_ref(owner, params)?;
            check_ref(operator, params)
        }
        Check::Erc1155Delta {
            token,
            account,
            id,
            expected,
            ..
        } => {
            check_ref(token, params)?;
            check_ref(account, params)?;
            check_expr(id, params)?;
            check_expr(expected, params)
        }
        Check::ViewEquals {
            target,
            signature,
            expected,
            of,
        } => {
            check_ref(target, params)?;
            if let Some(of) = of {
                check_ref(of, params)?;
            }
            check_signature(signature)?;
            check_expr(expected, params)
        }
        Check::AnswerEquals {
            field,
            expected,
            tolerance,
        } => {
            tol(tolerance)?;
            if !answer.is_some_and(|a| a.fields.contains_key(field)) {
                return Err(format!(
                    "answer field {field:?} is not in the answer schema"
                ));
            }
            check_expr(expected, params)
        }
        Check::AnswerTextEquals {
            field,
            target,
            signature,
            id,
        } => {
            if !answer.is_some_and(|a| a.fields.contains_key(field)) {
                return Err(format!(
                    "answer field {field:?} is not in the answer schema"
                ));
            }
            check_ref(target, params)?;
            check_signature(signature)?;
            match id {
                Some(id) => check_expr(id, params),
                None => Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> serde_json::Value {
        serde_json::json!({
            "format": 1, "id": "t", "kind": "atomic", "category": "c", "subcategory": "s",
            "difficulty": "easy", "title": "t",
            "templates": ["Send {amount} to {to}", "Pay {to} {amount}", "Give {amount} BNB to {to}"],
            "parameters": [
                {"name": "to", "type": "address", "sample": {"method": "derived"}},
                {"name": "amount", "type": "decimal", "sample": {"method": "range", "min": "0.001", "max": "0.1", "decimals": 3}}
            ],
            "checks": [
                {"name": "ok", "weight": 40, "check": {"family": "tx_success"}},
                {"name": "to", "weight": 60, "check": {"family": "tx_to", "target": "$to"}}
            ],
            "solutions": {"reference": "r.ts", "wrong": [
                {"file": "w.ts", "mistake": "reverts", "families": ["tx_success", "tx_to"]}
            ]}
        })
    }

    fn load(v: serde_json::Value) -> Result<Task, String> {
        Task::from_json(&v.to_string(), Path::new("x.json")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_valid_task_loads() {
        load(base()).unwrap();
    }

    #[test]
    fn bad_tasks_name_the_field() {
        type Edit = fn(&mut serde_json::Value);
        let cases: Vec<(Edit, &str)> = vec![
            (|v| v["format"] = 2.into(), "format"),
            (
                |v| v["templates"].as_array_mut().unwrap().truncate(2),
                "templates",
            ),
            (
                |v| v["checks"][0]["weight"] = 30.into(),
                "weights sum to 90",
            ),
            (
                |v| v["templates"][0] = "Send {amt}".into(),
                "{amt} is not a parameter",
            ),
            (
                |v| v["parameters"][1]["sample"]["min"] = "1.5".into(),
                "above max",
            ),
            (
                |v| v["parameters"][1]["sample"]["min"] = "abc".into(),
                "parameters[1].sample",
            ),
            (
                |v| v["checks"][1]["check"]["target"] = "$amount".into(),
                "not an address",
            ),
            (
                |v| v["checks"][1]["check"]["target"] = "$nope".into(),
                "checks[1].check",
            ),
            (
                |v| v["solutions"]["wrong"][0]["families"] = serde_json::json!(["tx_success"]),
                "covers the check family \"tx_to\"",
            ),
            (|v| v["difficulty"] = "trivial".into(), "difficulty"),
            (|v| v["extra"] = 1.into(), "unknown field"),
            (
                |v| {
                    v["parameters"][0]["sample"] = serde_json::json!({"method": "range", "min": "1", "max": "2", "decimals": 0})
                },
                "does not fit type Address",
            ),
        ];
        for (edit, needle) in cases {
            let mut v = base();
            edit(&mut v);
            let e = load(v).expect_err(needle);
            assert!(e.contains("x.json"), "{e}");
            assert!(e.contains(needle), "{needle:?} not in {e}");
        }
    }

    #[test]
    fn placeholders_are_found() {
        assert_eq!(placeholders("a {x} b {y}{z}"), vec!["x", "y", "z"]);
        assert!(placeholders("none").is_empty());
    }
}
