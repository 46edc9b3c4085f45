//! What a task file says: [`TaskSpec`] and the types it is made of (parameters and their seeded
//! sampling rules, setup steps, amount expressions, chain reads, check families, solutions and the
//! composite block). These types are the format: serde reads them and the JSON Schema is generated
//! from them ([`super::schema_json`]). They hold no behaviour beyond naming a check's family;
//! semantic rules live in `validate`, file access in `load`.

use std::collections::BTreeMap;

use crate::paper::PaperPart;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The task format version this build reads.
pub const FORMAT_VERSION: u32 = 1;

/// Atomic (one answer) or composite (rounds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// One model call, one transaction or query answer.
    Atomic,
    /// A planning call plus rounds (the composite protocol).
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

/// How precisely a template states the task (the reference runner's `nl_template_scores.json`
/// labels: precise, moderate, vague).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TemplateLabel {
    /// Every value and contract is named.
    Precise,
    /// Some detail is left to the reader.
    Moderate,
    /// The reader must infer most of the detail.
    Vague,
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
    /// Natural-language templates (at least 3; at least 1 for an imported task) with `{param}`
    /// placeholders.
    pub templates: Vec<String>,
    /// Optional clarity label per template (same length as `templates`), for the reference
    /// runner's natural-language difficulty selection; empty when the task has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub template_labels: Vec<TemplateLabel>,
    /// Optional task description: the "context for this task" that naive mode adds to the
    /// prompt (lines); empty: naive mode derives one from the title, workflow and checks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub description: Vec<String>,
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
    /// Set on a task converted from another benchmark's file (`crucible quest import-bank`):
    /// where it came from. An imported task keeps its source's wording as written, so it may have
    /// fewer than 3 templates (at least 1); a hand-written task leaves this out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<String>,
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
    /// The paper's scoring component this check belongs to (`success`, `address`, `signature`,
    /// `state`, `value`); when omitted, the family's usual one (see docs/fidelity.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper: Option<PaperPart>,
    /// A guard: the check holds when nothing happens ("stake kept", "implementation
    /// untouched"), so it earns its points only when some other, non-guard state check passes
    /// (Crucible's scoring; the paper's counts it as any check). Without it, an agent that does
    /// nothing collects a guard's points; `crucible selftest --exploits` finds such checks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guard: bool,
    /// What is checked.
    pub check: Check,
}

impl CheckSpec {
    /// The paper component: as declared, or the family's default.
    pub fn paper_part(&self) -> PaperPart {
        self.paper
            .unwrap_or_else(|| PaperPart::default_for(&self.check))
    }
}

/// The check families (one variant per family; evaluated by the check module).
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

/// Composite-only fields (run by the composite protocol).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompositeSpec {
    /// The workflow pattern (`approve-swap`, `batch-transfer`, …; the paper's Fig. 5/7 group
    /// composites by it): reports group composite samples by it. Empty: the subcategory stands in.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub pattern: String,
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
