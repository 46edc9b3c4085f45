//! The offline instance generator: a pure function of (seed, count, address book) that writes
//! Intent2Tx instances — intent text from templates, ground truth in the paper's schema — for every
//! category the implemented contracts support.
//!
//! Intent-synthesis rules (the paper's): colloquial wording for common actions (transfers,
//! approvals, wrapping), precise wording for DeFi (swaps with limits and deadlines, lending,
//! liquidity, staking, vaults), explicit ids, addresses and raw values for niche calls (NFTs,
//! governance). Multi-step instances chain related actions of one sender and join their clauses
//! with "then" / "and".
//!
//! Generation never touches a chain. The chain-aware layer executes each candidate from the
//! universe snapshot and drops the ones that revert by passing an [`InstanceFilter`] to
//! [`generate_filtered`]; [`generate`] keeps every candidate. The universe state the amounts assume
//! is [`FUNDING`] (documented in docs/intent2tx.md).

use std::collections::BTreeMap;

use alloy::dyn_abi::DynSolValue;
use alloy::dyn_abi::JsonAbiExt;
use alloy::json_abi::Function;
use alloy::primitives::{keccak256, Address, U256};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::book::AddressBook;
use super::schema::{Call, Instance, Metadata, Param, Truth};
use super::value::{format_units, parse_address, parse_units};
use super::IntentError;

/// The sender of every generated instance: Anvil's dev account 0.
pub const SENDER: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

/// Recipients: Anvil's dev accounts 1–9.
pub const RECIPIENTS: [&str; 9] = [
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
    "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
    "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
    "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
    "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
    "0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f",
    "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
];

/// Swap deadline written into every router intent (unix time, year 2030).
pub const DEADLINE: u64 = 1_900_000_000;

/// The universe state the generated amounts assume, one line per fact. The chain-aware filter
/// drops any instance that still reverts.
pub const FUNDING: &[&str] = &[
    "sender (Anvil dev account 0) holds 100 ETH, 100000 USDT, 100000 USDC, 100000 DAI, 10 WBTC, 50 WETH, 5000 LINK, 5000 UNI, 500 AAVE",
    "sender holds 10 stETH (staked with Lido by the fixture)",
    "dev account 1 has approved the sender for 1000 USDC and 1000 DAI (transferFrom)",
    "sender has standing max allowances on every token for both V2 routers, the Aave V3 pool, the Comet market and both vaults",
    "Uniswap V2 has WETH pairs with USDT, USDC, DAI, WBTC, LINK, UNI and AAVE plus USDC/DAI and USDC/USDT; SushiSwap has WETH pairs with USDC, DAI and WBTC; prices near ETH 3000, WBTC 90000, LINK 15, UNI 8, AAVE 200, stablecoins 1 (the universe's pools)",
    "sender holds LP tokens of every Uniswap V2 pair above (half the deployer's, at most 1e18; approved to the router)",
    "Aave V3: sender has supplied 20 WETH and 50000 USDC and owes 5000 DAI and 5000 USDT at the variable rate",
    "Compound V3 USDC: sender has supplied 10000 USDC and 5 WETH",
    "sender holds 10000 shares of Crucible_DAI_Vault and of Crucible_USDC_Vault (share price 1)",
    "Crucible_Governor: sender has enough delegated votes to propose; fixture proposals 1-3 are Active and 101-103 have Succeeded (see fixture_proposal)",
    "CryptoPunks: sender owns punks 5-49; punks 50-54 are offered to anyone by dev account 1 for 2 ETH each (the market has punks 0-99 only)",
    "Crucible_Collectibles (ERC-721): sender owns token ids 1-20; Crucible_Items (ERC-1155): sender holds 1000, 500 and 100 of ids 1, 2 and 3",
];

/// CryptoPunks the sender owns (the fixture moves them from the deployer).
pub const PUNKS_OWNED: std::ops::Range<u32> = 5..50;
/// CryptoPunks dev account 1 offers for 2 ETH each.
pub const PUNKS_OFFERED: std::ops::Range<u32> = 50..55;
/// Crucible_Collectibles (ERC-721) token ids the sender owns.
pub const NFT_IDS: std::ops::RangeInclusive<u32> = 1..=20;
/// Crucible_Items (ERC-1155) ids the sender holds at least 100 of.
pub const ITEM_IDS: std::ops::RangeInclusive<u32> = 1..=3;

/// Options of one generation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenerateOptions {
    /// RNG seed; same seed, count and book → byte-identical output.
    pub seed: u64,
    /// Number of instances to return.
    pub count: usize,
    /// Probability that an instance is multi-step.
    pub multi_fraction: f64,
}

impl GenerateOptions {
    /// Options with the default multi-step fraction (0.2).
    pub fn new(seed: u64, count: usize) -> Self {
        Self {
            seed,
            count,
            multi_fraction: 0.2,
        }
    }
}

/// Decides whether a generated candidate is kept; the chain-aware layer implements it by executing
/// the ground truth and rejecting candidates that revert.
pub trait InstanceFilter {
    /// Whether to keep this candidate.
    fn keep(&mut self, instance: &Instance) -> bool;
}

/// Any `FnMut(&Instance) -> bool` is a filter.
impl<F: FnMut(&Instance) -> bool> InstanceFilter for F {
    fn keep(&mut self, instance: &Instance) -> bool {
        self(instance)
    }
}

/// Most instances one call may generate (keeps a typo in `--count` from exhausting memory).
pub const MAX_COUNT: usize = 10_000_000;

/// Keeps every candidate (the static generator).
#[derive(Debug, Clone, Copy, Default)]
pub struct KeepAll;

impl InstanceFilter for KeepAll {
    fn keep(&mut self, _: &Instance) -> bool {
        true
    }
}

/// How a dataset splits over categories, sub-categories, styles and step counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Distribution {
    /// Instances per category.
    pub categories: BTreeMap<String, usize>,
    /// Instances per sub-category.
    pub sub_categories: BTreeMap<String, usize>,
    /// Instances per intent style (colloquial, precise, explicit).
    pub styles: BTreeMap<String, usize>,
    /// Single-step instances.
    pub single_step: usize,
    /// Multi-step instances.
    pub multi_step: usize,
}

impl Distribution {
    /// Counts a dataset.
    pub fn of(instances: &[Instance]) -> Self {
        let mut d = Distribution::default();
        for i in instances {
            *d.categories.entry(i.metadata.category.clone()).or_default() += 1;
            if let Some(s) = &i.metadata.sub_category {
                *d.sub_categories.entry(s.clone()).or_default() += 1;
            }
            if let Some(s) = i.metadata.extra.get("style").and_then(Value::as_str) {
                *d.styles.entry(s.to_string()).or_default() += 1;
            }
            if i.ground_truth.is_multi() {
                d.multi_step += 1;
            } else {
                d.single_step += 1;
            }
        }
        d
    }
}

/// A generated dataset.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The instances, in generation order.
    pub instances: Vec<Instance>,
    /// Their distribution.
    pub distribution: Distribution,
    /// Candidates the filter rejected.
    pub rejected: usize,
}

/// Generates `count` instances, keeping every candidate.
pub fn generate(opts: GenerateOptions, book: &AddressBook) -> Result<Generated, IntentError> {
    generate_filtered(opts, book, &mut KeepAll)
}

/// Generates candidates in a fixed seeded order until `count` pass `filter` (at most `20·count + 100`
/// candidates are drawn). With a deterministic filter the output is deterministic.
pub fn generate_filtered(
    opts: GenerateOptions,
    book: &AddressBook,
    filter: &mut dyn InstanceFilter,
) -> Result<Generated, IntentError> {
    if !(0.0..=1.0).contains(&opts.multi_fraction) {
        return Err(IntentError::InvalidOption(format!(
            "multi_fraction {} is not in [0, 1]",
            opts.multi_fraction
        )));
    }
    if opts.count > MAX_COUNT {
        return Err(IntentError::InvalidOption(format!(
            "count {} is above the maximum {MAX_COUNT}",
            opts.count
        )));
    }
    check_book(book)?;
    let mut g = Gen {
        book,
        rng: ChaCha8Rng::seed_from_u64(opts.seed),
    };
    let mut instances = Vec::with_capacity(opts.count.min(1 << 16));
    let mut rejected = 0;
    let max = opts.count.saturating_mul(20).saturating_add(100);
    let mut index = 0usize;
    while instances.len() < opts.count {
        if index >= max {
            return Err(IntentError::InvalidOption(format!(
                "the filter rejected {rejected} of {index} candidates; only {} kept",
                instances.len()
            )));
        }
        let multi = g.rng.random_bool(opts.multi_fraction);
        let draft = if multi { g.multi() } else { g.single() };
        let inst = draft.into_instance(opts.seed, index);
        index += 1;
        if filter.keep(&inst) {
            instances.push(inst);
        } else {
            rejected += 1;
        }
    }
    let distribution = Distribution::of(&instances);
    tracing::debug!(target: "intent::generate", seed = opts.seed, count = opts.count, rejected, "generated");
    Ok(Generated {
        instances,
        distribution,
        rejected,
    })
}

/// The contracts and functions the templates use; a book without them cannot generate.
fn check_book(book: &AddressBook) -> Result<(), IntentError> {
    let needed: &[(&str, &[&str])] = &[
        ("USDC", &["transfer", "approve"]),
        ("WETH", &["deposit", "withdraw", "transfer", "approve"]),
        (
            "Uniswap_V2_Router",
            &[
                "swapExactETHForTokens",
                "addLiquidityETH",
                "removeLiquidity",
            ],
        ),
        ("SushiSwap_Router", &["swapExactTokensForTokens"]),
        (
            "Aave_V3_Lending_Pool",
            &["supply", "withdraw", "borrow", "repay"],
        ),
        ("Lido_stETH", &["submit", "transfer"]),
        ("Compound_V3_USDC_Market", &["supply", "withdraw"]),
        ("Crucible_DAI_Vault", &["deposit", "withdraw", "redeem"]),
        ("Crucible_USDC_Vault", &["deposit"]),
        ("Crucible_Governor", &["propose", "castVote", "execute"]),
        (
            "CryptoPunks",
            &["transferPunk", "offerPunkForSale", "buyPunk"],
        ),
        (
            "Crucible_Collectibles",
            &["safeTransferFrom", "setApprovalForAll"],
        ),
        ("Crucible_Items", &["safeTransferFrom", "setApprovalForAll"]),
    ];
    for (name, fns) in needed {
        let e = book.by_name(name).ok_or_else(|| {
            IntentError::Book(format!("the generator needs {name}, which the book lacks"))
        })?;
        for f in *fns {
            if !e.has_function(f) {
                return Err(IntentError::Book(format!(
                    "the generator needs {name}.{f}, which the book lacks"
                )));
            }
        }
    }
    for t in TOKENS {
        if book.by_name(t.0).and_then(|e| e.decimals).is_none() {
            return Err(IntentError::Book(format!(
                "the generator needs token {} with decimals",
                t.0
            )));
        }
    }
    Ok(())
}

/// Tokens with a reference USD price and human amounts a funded sender can move.
const TOKENS: &[(&str, f64, &[&str])] = &[
    ("USDT", 1.0, &["50", "100", "250", "500", "1000", "2500"]),
    ("USDC", 1.0, &["50", "100", "250", "500", "1000", "2500"]),
    ("DAI", 1.0, &["50", "100", "250", "500", "1000", "2500"]),
    ("WBTC", 90000.0, &["0.01", "0.02", "0.05", "0.1"]),
    ("WETH", 3000.0, &["0.05", "0.1", "0.25", "0.5", "1"]),
    ("LINK", 15.0, &["10", "25", "50", "100"]),
    ("UNI", 8.0, &["10", "25", "50", "100"]),
    ("AAVE", 200.0, &["1", "2", "5"]),
];
const ETH_AMOUNTS: &[&str] = &["0.05", "0.1", "0.25", "0.5", "1", "2"];
const UNI_WETH_PAIRS: &[&str] = &["USDT", "USDC", "DAI", "WBTC", "LINK", "UNI", "AAVE"];
const SUSHI_WETH_PAIRS: &[&str] = &["USDC", "DAI", "WBTC"];

fn price(token: &str) -> f64 {
    TOKENS
        .iter()
        .find(|t| t.0 == token)
        .map(|t| t.1)
        .unwrap_or(1.0)
}

fn amounts(token: &str) -> &'static [&'static str] {
    TOKENS
        .iter()
        .find(|t| t.0 == token)
        .map(|t| t.2)
        .unwrap_or(&["1"])
}

/// The fixture proposals the universe creates: `(id number, targets, values, calldatas, description)`.
/// Ids 1–3 are Active, 101–103 have Succeeded. Each targets one dev account with no call data.
pub fn fixture_proposal(n: u64) -> (Vec<String>, Vec<String>, Vec<String>, String) {
    let target = RECIPIENTS[(n as usize) % RECIPIENTS.len()].to_string();
    (
        vec![target],
        vec!["0".into()],
        vec!["0x".into()],
        format!("Crucible fixture proposal #{n}"),
    )
}

/// OpenZeppelin Governor's `hashProposal(targets, values, calldatas, keccak256(description))`.
pub fn proposal_id(
    targets: &[String],
    values: &[String],
    calldatas: &[String],
    description: &str,
) -> U256 {
    let t = targets
        .iter()
        .map(|a| DynSolValue::Address(parse_address(&json!(a)).unwrap_or(Address::ZERO)))
        .collect();
    let v = values
        .iter()
        .map(|x| DynSolValue::Uint(U256::from_str_radix(x, 10).unwrap_or_default(), 256))
        .collect();
    let c = calldatas
        .iter()
        .map(|h| DynSolValue::Bytes(hex::decode(h.trim_start_matches("0x")).unwrap_or_default()))
        .collect();
    let d = DynSolValue::FixedBytes(keccak256(description.as_bytes()), 32);
    let enc = DynSolValue::Tuple(vec![
        DynSolValue::Array(t),
        DynSolValue::Array(v),
        DynSolValue::Array(c),
        d,
    ])
    .abi_encode_params();
    U256::from_be_bytes(keccak256(enc).0)
}

struct Step {
    call: Call,
    /// Imperative clause, lower-case first letter, no final punctuation.
    clause: String,
}

struct Draft {
    steps: Vec<Step>,
    category: &'static str,
    sub_category: &'static str,
    style: &'static str,
    template: &'static str,
    /// Framing of a single-step intent: `{}` is replaced by the clause.
    frame: &'static str,
    /// Joiners between multi-step clauses.
    joiners: Vec<&'static str>,
}

impl Draft {
    fn into_instance(self, seed: u64, index: usize) -> Instance {
        let intent = if self.steps.len() == 1 {
            let c = &self.steps[0].clause;
            let framed = self.frame.replace("{}", c);
            capitalize(&framed)
        } else {
            let mut s = capitalize(&self.steps[0].clause);
            for (i, step) in self.steps.iter().enumerate().skip(1) {
                s.push_str(self.joiners.get(i - 1).copied().unwrap_or(", then "));
                s.push_str(&step.clause);
            }
            s.push('.');
            s
        };
        let k = self.steps.len();
        let calls: Vec<Call> = self.steps.into_iter().map(|s| s.call).collect();
        let ground_truth = if k == 1 {
            Truth::Single(calls.into_iter().next().expect("one step"))
        } else {
            Truth::Multi(calls)
        };
        let mut extra = Map::new();
        extra.insert("style".into(), json!(self.style));
        extra.insert("template".into(), json!(self.template));
        extra.insert("steps".into(), json!(k));
        extra.insert("source".into(), json!("crucible-generator"));
        extra.insert("seed".into(), json!(seed));
        extra.insert("index".into(), json!(index));
        Instance {
            id: format!("gen-{seed}-{index:05}"),
            intent,
            ground_truth,
            metadata: Metadata {
                category: self.category.into(),
                sub_category: Some(self.sub_category.into()),
                sender: Some(SENDER.into()),
                extra,
            },
        }
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// Rounds down to two significant digits and formats with at most `decimals` places.
fn round_amount(x: f64, decimals: u8) -> String {
    if x <= 0.0 || !x.is_finite() {
        return "0".into();
    }
    let exp = x.log10().floor() as i32;
    let places = (1 - exp).max(0).min(decimals as i32) as usize;
    let scale = 10f64.powi(exp - 1);
    let v = (x / scale).floor() * scale;
    let s = format!("{v:.places$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

struct Gen<'a> {
    book: &'a AddressBook,
    rng: ChaCha8Rng,
}

impl Gen<'_> {
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.rng.random_range(0..xs.len())]
    }

    fn recipient(&mut self) -> &'static str {
        self.pick(&RECIPIENTS)
    }

    fn addr(&self, name: &str) -> String {
        self.book.expect(name).address.to_checksum(None)
    }

    fn decimals(&self, token: &str) -> u8 {
        self.book.expect(token).decimals.unwrap_or(18)
    }

    fn units(&self, token: &str, human: &str) -> String {
        parse_units(human, self.decimals(token))
            .map(|u| u.to_string())
            .unwrap_or_else(|| "0".into())
    }

    fn function(&self, contract: &str, function: &str, arity: usize) -> Function {
        self.book
            .expect(contract)
            .functions
            .iter()
            .find(|f| f.name == function && f.inputs.len() == arity)
            .cloned()
            .unwrap_or_else(|| {
                panic!("{contract}.{function}/{arity} is in the book (checked by check_book)")
            })
    }

    /// A call whose parameter names and types come from the book's ABI.
    fn call(&self, contract: &str, function: &str, vals: Vec<Value>, value: &str) -> Call {
        let f = self.function(contract, function, vals.len());
        let params = f
            .inputs
            .iter()
            .zip(vals)
            .map(|(i, v)| (i.name.clone(), Param::new(&i.selector_type(), v)))
            .collect();
        Call {
            contract: contract.into(),
            contract_address: self.addr(contract),
            function: function.into(),
            params,
            value: serde_json::from_str(value).unwrap_or(json!(0)),
        }
    }

    // ---- single-step builders (each returns a clause and the call) ----

    fn transfer(&mut self, token: &str, human: &str, to: &str) -> Step {
        let raw = self.units(token, human);
        let clause = match self.rng.random_range(0..3) {
            0 => format!("send {human} {token} to {to}"),
            1 => format!("transfer {human} {token} to {to}"),
            _ => format!("pay {to} {human} {token}"),
        };
        Step {
            call: self.call(token, "transfer", vec![json!(to), json!(raw)], "0"),
            clause,
        }
    }

    fn approve(&mut self, token: &str, human: &str, spender: &str) -> Step {
        let raw = self.units(token, human);
        let clause = match self.rng.random_range(0..2) {
            0 => format!("let {} spend up to {human} of my {token}", pretty(spender)),
            _ => format!("approve {} to use {human} {token}", pretty(spender)),
        };
        Step {
            call: self.call(
                token,
                "approve",
                vec![json!(self.addr(spender)), json!(raw)],
                "0",
            ),
            clause,
        }
    }

    fn wrap(&mut self, human: &str) -> Step {
        let clause = match self.rng.random_range(0..2) {
            0 => format!("wrap {human} ETH into WETH"),
            _ => format!("turn {human} of my ETH into WETH"),
        };
        Step {
            call: self.call("WETH", "deposit", vec![], human),
            clause,
        }
    }

    fn unwrap(&mut self, human: &str) -> Step {
        let raw = self.units("WETH", human);
        Step {
            call: self.call("WETH", "withdraw", vec![json!(raw)], "0"),
            clause: format!("unwrap {human} WETH back to ETH"),
        }
    }

    fn path(&self, tokens: &[&str]) -> Value {
        Value::Array(tokens.iter().map(|t| json!(self.addr(t))).collect())
    }

    fn path_text(tokens: &[&str]) -> String {
        tokens.join(" → ")
    }

    /// Expected output of `amount_in` of `a` in `b` at the reference prices.
    fn quote(a: &str, amount_in: f64, b: &str) -> f64 {
        amount_in * price(a) / price(b)
    }

    fn swap_exact_eth(&mut self, dex: &str, human: &str, token: &str, to: &str) -> Step {
        let min = round_amount(
            0.5 * Self::quote("WETH", human.parse().unwrap_or(0.0), token),
            self.decimals(token),
        );
        let p = ["WETH", token];
        let call = self.call(
            dex,
            "swapExactETHForTokens",
            vec![
                json!(self.units(token, &min)),
                self.path(&p),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            human,
        );
        let clause = format!(
            "swap exactly {human} ETH for at least {min} {token} on {} (path {}), sending the {token} to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(&p)
        );
        Step { call, clause }
    }

    fn swap_exact_tokens_for_eth(&mut self, dex: &str, token: &str, human: &str, to: &str) -> Step {
        let min = round_amount(
            0.5 * Self::quote(token, human.parse().unwrap_or(0.0), "WETH"),
            18,
        );
        let p = [token, "WETH"];
        let call = self.call(
            dex,
            "swapExactTokensForETH",
            vec![
                json!(self.units(token, human)),
                json!(self.units("WETH", &min)),
                self.path(&p),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "sell exactly {human} {token} for at least {min} ETH on {} (path {}), ETH to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(&p)
        );
        Step { call, clause }
    }

    fn swap_exact_tokens(&mut self, dex: &str, path: &[&str], human: &str, to: &str) -> Step {
        let (a, b) = (path[0], path[path.len() - 1]);
        let min = round_amount(
            0.5 * Self::quote(a, human.parse().unwrap_or(0.0), b),
            self.decimals(b),
        );
        let call = self.call(
            dex,
            "swapExactTokensForTokens",
            vec![
                json!(self.units(a, human)),
                json!(self.units(b, &min)),
                self.path(path),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "swap exactly {human} {a} for at least {min} {b} on {} routing {}, output to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(path)
        );
        Step { call, clause }
    }

    fn swap_eth_for_exact(&mut self, dex: &str, token: &str, human_out: &str, to: &str) -> Step {
        let max_in = round_amount(
            2.0 * Self::quote(token, human_out.parse().unwrap_or(0.0), "WETH"),
            18,
        );
        let p = ["WETH", token];
        let call = self.call(
            dex,
            "swapETHForExactTokens",
            vec![
                json!(self.units(token, human_out)),
                self.path(&p),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            &max_in,
        );
        let clause = format!(
            "buy exactly {human_out} {token} with ETH on {}, sending up to {max_in} ETH (path {}), tokens to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(&p)
        );
        Step { call, clause }
    }

    fn swap_tokens_for_exact_eth(
        &mut self,
        dex: &str,
        token: &str,
        human_out: &str,
        to: &str,
    ) -> Step {
        let max_in = round_amount(
            2.0 * Self::quote("WETH", human_out.parse().unwrap_or(0.0), token),
            self.decimals(token),
        );
        let p = [token, "WETH"];
        let call = self.call(
            dex,
            "swapTokensForExactETH",
            vec![
                json!(self.units("WETH", human_out)),
                json!(self.units(token, &max_in)),
                self.path(&p),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "get exactly {human_out} ETH by selling at most {max_in} {token} on {} (path {}), ETH to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(&p)
        );
        Step { call, clause }
    }

    fn swap_tokens_for_exact(
        &mut self,
        dex: &str,
        path: &[&str],
        human_out: &str,
        to: &str,
    ) -> Step {
        let (a, b) = (path[0], path[path.len() - 1]);
        let max_in = round_amount(
            2.0 * Self::quote(b, human_out.parse().unwrap_or(0.0), a),
            self.decimals(a),
        );
        let call = self.call(
            dex,
            "swapTokensForExactTokens",
            vec![
                json!(self.units(b, human_out)),
                json!(self.units(a, &max_in)),
                self.path(path),
                json!(to),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "buy exactly {human_out} {b} paying at most {max_in} {a} on {} routing {}, output to {to}, deadline {DEADLINE}",
            pretty(dex),
            Self::path_text(path)
        );
        Step { call, clause }
    }

    fn add_liquidity_eth(&mut self, token: &str) -> Step {
        let eth = self.pick(&["0.1", "0.25", "0.5"]);
        let tok = round_amount(
            Self::quote("WETH", eth.parse().unwrap_or(0.0), token),
            self.decimals(token),
        );
        let call = self.call(
            "Uniswap_V2_Router",
            "addLiquidityETH",
            vec![
                json!(self.addr(token)),
                json!(self.units(token, &tok)),
                json!("0"),
                json!("0"),
                json!(SENDER),
                json!(DEADLINE.to_string()),
            ],
            eth,
        );
        let clause = format!(
            "add liquidity to the Uniswap V2 {token}/ETH pool with {tok} {token} and {eth} ETH, minimum amounts 0, LP tokens to me, deadline {DEADLINE}"
        );
        Step { call, clause }
    }

    fn add_liquidity(&mut self, a: &str, b: &str) -> Step {
        let ha = self.pick(amounts(a));
        let hb = round_amount(
            Self::quote(a, ha.parse().unwrap_or(0.0), b),
            self.decimals(b),
        );
        let call = self.call(
            "Uniswap_V2_Router",
            "addLiquidity",
            vec![
                json!(self.addr(a)),
                json!(self.addr(b)),
                json!(self.units(a, ha)),
                json!(self.units(b, &hb)),
                json!("0"),
                json!("0"),
                json!(SENDER),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "provide {ha} {a} and {hb} {b} as liquidity on Uniswap V2 (tokenA {a}, tokenB {b}), minimums 0, LP tokens to me, deadline {DEADLINE}"
        );
        Step { call, clause }
    }

    fn remove_liquidity_eth(&mut self, token: &str) -> Step {
        let lp = self.pick(&[
            "1000000000000000",
            "10000000000000000",
            "100000000000000000",
        ]);
        let call = self.call(
            "Uniswap_V2_Router",
            "removeLiquidityETH",
            vec![
                json!(self.addr(token)),
                json!(lp),
                json!("0"),
                json!("0"),
                json!(SENDER),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "remove {lp} units (base units) of my Uniswap V2 {token}/WETH LP tokens and take the {token} and ETH out, minimums 0, to me, deadline {DEADLINE}"
        );
        Step { call, clause }
    }

    fn remove_liquidity(&mut self, a: &str, b: &str) -> Step {
        let lp = self.pick(&[
            "1000000000000000",
            "10000000000000000",
            "100000000000000000",
        ]);
        let call = self.call(
            "Uniswap_V2_Router",
            "removeLiquidity",
            vec![
                json!(self.addr(a)),
                json!(self.addr(b)),
                json!(lp),
                json!("0"),
                json!("0"),
                json!(SENDER),
                json!(DEADLINE.to_string()),
            ],
            "0",
        );
        let clause = format!(
            "withdraw {lp} base units of my Uniswap V2 {a}/{b} liquidity (tokenA {a}, tokenB {b}), minimums 0, to me, deadline {DEADLINE}"
        );
        Step { call, clause }
    }

    fn aave(&mut self, action: &str, token: &str, human: &str) -> Step {
        let raw = self.units(token, human);
        let asset = json!(self.addr(token));
        let (vals, clause) = match action {
            "supply" => (
                vec![asset, json!(raw), json!(SENDER), json!("0")],
                format!("supply {human} {token} to Aave V3 for my own account, referral code 0"),
            ),
            "withdraw" => (
                vec![asset, json!(raw), json!(SENDER)],
                format!("withdraw {human} {token} from my Aave V3 position to my wallet"),
            ),
            "borrow" => (
                vec![asset, json!(raw), json!("2"), json!("0"), json!(SENDER)],
                format!("borrow {human} {token} from Aave V3 at the variable rate (mode 2), referral code 0, on my own behalf"),
            ),
            _ => (
                vec![asset, json!(raw), json!("2"), json!(SENDER)],
                format!("repay {human} {token} of my variable-rate (mode 2) Aave V3 debt"),
            ),
        };
        Step {
            call: self.call("Aave_V3_Lending_Pool", action, vals, "0"),
            clause,
        }
    }

    fn comet(&mut self, action: &str, token: &str, human: &str) -> Step {
        let raw = self.units(token, human);
        let clause = if action == "supply" {
            format!("supply {human} {token} to the Compound V3 USDC market")
        } else {
            format!("withdraw {human} {token} from the Compound V3 USDC market")
        };
        Step {
            call: self.call(
                "Compound_V3_USDC_Market",
                action,
                vec![json!(self.addr(token)), json!(raw)],
                "0",
            ),
            clause,
        }
    }

    fn stake(&mut self, human: &str) -> Step {
        let clause = match self.rng.random_range(0..2) {
            0 => format!("stake {human} ETH with Lido, no referral (zero address)"),
            _ => {
                format!("deposit {human} ETH into Lido for stETH with the zero address as referral")
            }
        };
        Step {
            call: self.call(
                "Lido_stETH",
                "submit",
                vec![json!(Address::ZERO.to_checksum(None))],
                human,
            ),
            clause,
        }
    }

    fn steth_transfer(&mut self, human: &str, to: &str) -> Step {
        let raw = self.units("Lido_stETH", human);
        Step {
            call: self.call("Lido_stETH", "transfer", vec![json!(to), json!(raw)], "0"),
            clause: format!("send {human} stETH to {to}"),
        }
    }

    fn vault(&mut self, action: &str, vault: &str, human: &str, to: &str) -> Step {
        let token = self
            .book
            .expect(vault)
            .underlying
            .clone()
            .unwrap_or_else(|| "DAI".into());
        let raw = self.units(vault, human);
        let (vals, clause) = match action {
            "deposit" => (
                vec![json!(raw), json!(to)],
                format!("deposit {human} {token} into {vault} ({}) with {to} receiving the shares", self.addr(vault)),
            ),
            "withdraw" => (
                vec![json!(raw), json!(to), json!(SENDER)],
                format!("withdraw {human} {token} worth of assets from my {vault} ({}) position, sending them to {to}", self.addr(vault)),
            ),
            _ => (
                vec![json!(raw), json!(to), json!(SENDER)],
                format!("redeem {human} of my {vault} ({}) shares, assets to {to}", self.addr(vault)),
            ),
        };
        Step {
            call: self.call(vault, action, vals, "0"),
            clause,
        }
    }

    fn propose(&mut self, n: usize) -> Step {
        let to = self.recipient();
        let human = self.pick(&["1000", "5000", "25000"]);
        let raw = self.units("USDC", human);
        let transfer = self.function("USDC", "transfer", 2);
        let calldata = transfer
            .abi_encode_input(&[
                DynSolValue::Address(parse_address(&json!(to)).unwrap_or(Address::ZERO)),
                DynSolValue::Uint(U256::from_str_radix(&raw, 10).unwrap_or_default(), 256),
            ])
            .map(|d| format!("0x{}", hex::encode(d)))
            .unwrap_or_default();
        let description = format!("Grant #{n}: send {human} USDC to {to}");
        let usdc = self.addr("USDC");
        let call = self.call(
            "Crucible_Governor",
            "propose",
            vec![
                json!([usdc]),
                json!(["0"]),
                json!([calldata]),
                json!(description),
            ],
            "0",
        );
        let clause = format!(
            "create a proposal on Crucible_Governor ({}) with targets [{usdc}], values [0], calldatas [{calldata}] and description \"{description}\"",
            self.addr("Crucible_Governor")
        );
        Step { call, clause }
    }

    fn cast_vote(&mut self) -> Step {
        let n = self.rng.random_range(1..=3u64);
        let (t, v, c, d) = fixture_proposal(n);
        let id = proposal_id(&t, &v, &c, &d);
        let (support, word) = self.pick(&[(1u8, "for"), (0, "against"), (2, "abstain")]);
        let call = self.call(
            "Crucible_Governor",
            "castVote",
            vec![json!(id.to_string()), json!(support.to_string())],
            "0",
        );
        let clause = format!(
            "cast a vote {word} (support = {support}) on proposal {id} in Crucible_Governor at {}",
            self.addr("Crucible_Governor")
        );
        Step { call, clause }
    }

    fn execute(&mut self) -> Step {
        let n = self.rng.random_range(101..=103u64);
        let (t, v, c, d) = fixture_proposal(n);
        let hash = keccak256(d.as_bytes());
        let call = self.call(
            "Crucible_Governor",
            "execute",
            vec![json!(t), json!(v), json!(c), json!(format!("{hash}"))],
            "0",
        );
        let clause = format!(
            "execute the succeeded proposal on Crucible_Governor ({}) with targets [{}], values [0], calldatas [0x] and description hash {hash}",
            self.addr("Crucible_Governor"),
            t[0]
        );
        Step { call, clause }
    }

    fn punk(&mut self, action: &str) -> Step {
        let punks = self.addr("CryptoPunks");
        match action {
            "transferPunk" => {
                let id = self.rng.random_range(PUNKS_OWNED);
                let to = self.recipient();
                Step {
                    call: self.call(
                        "CryptoPunks",
                        "transferPunk",
                        vec![json!(to), json!(id.to_string())],
                        "0",
                    ),
                    clause: format!("transfer CryptoPunk #{id} (contract {punks}) to {to}"),
                }
            }
            "offerPunkForSale" => {
                let id = self.rng.random_range(PUNKS_OWNED);
                let eth = self.pick(&["5", "10", "42.5", "80"]);
                let wei = parse_units(eth, 18).unwrap_or_default();
                Step {
                    call: self.call("CryptoPunks", "offerPunkForSale", vec![json!(id.to_string()), json!(wei.to_string())], "0"),
                    clause: format!("list CryptoPunk #{id} on the CryptoPunks market ({punks}) for a minimum price of {wei} wei"),
                }
            }
            _ => {
                let id = self.rng.random_range(PUNKS_OFFERED);
                Step {
                    call: self.call("CryptoPunks", "buyPunk", vec![json!(id.to_string())], "2"),
                    clause: format!("buy CryptoPunk #{id} from the CryptoPunks market ({punks}), paying its 2 ETH asking price"),
                }
            }
        }
    }

    fn nft(&mut self, action: &str) -> Step {
        let to = self.recipient();
        match action {
            "erc721" => {
                let id = self.rng.random_range(NFT_IDS);
                let c = self.addr("Crucible_Collectibles");
                Step {
                    call: self.call("Crucible_Collectibles", "safeTransferFrom", vec![json!(SENDER), json!(to), json!(id.to_string())], "0"),
                    clause: format!("safely transfer Crucible_Collectibles NFT #{id} (ERC-721 at {c}) from my address {SENDER} to {to}"),
                }
            }
            "erc721data" => {
                let id = self.rng.random_range(NFT_IDS);
                let c = self.addr("Crucible_Collectibles");
                let data = format!("0x{:08x}", self.rng.random::<u32>());
                Step {
                    call: self.call("Crucible_Collectibles", "safeTransferFrom", vec![json!(SENDER), json!(to), json!(id.to_string()), json!(data)], "0"),
                    clause: format!("safely transfer Crucible_Collectibles token #{id} ({c}) from {SENDER} to {to} with data {data}"),
                }
            }
            "erc1155" => {
                let id = self.rng.random_range(ITEM_IDS);
                let n = self.rng.random_range(1..=20u32);
                let c = self.addr("Crucible_Items");
                Step {
                    call: self.call("Crucible_Items", "safeTransferFrom", vec![json!(SENDER), json!(to), json!(id.to_string()), json!(n.to_string()), json!("0x")], "0"),
                    clause: format!("send {n} of Crucible_Items id {id} (ERC-1155 at {c}) from {SENDER} to {to} with empty data (0x)"),
                }
            }
            _ => {
                let contract = self.pick(&["Crucible_Collectibles", "Crucible_Items"]);
                let approved = self.rng.random_bool(0.7);
                let c = self.addr(contract);
                let verb = if approved { "approve" } else { "revoke" };
                Step {
                    call: self.call(contract, "setApprovalForAll", vec![json!(to), json!(approved)], "0"),
                    clause: format!("{verb} operator {to} for all my {contract} tokens ({c}), approved = {approved}"),
                }
            }
        }
    }

    // ---- templates ----

    fn single(&mut self) -> Draft {
        const T: &[(&str, u32)] = &[
            ("transfer", 6),
            ("transfer_from", 1),
            ("weth_transfer", 2),
            ("steth_transfer", 1),
            ("approve", 4),
            ("revoke", 2),
            ("nft_approval", 1),
            ("wrap", 2),
            ("unwrap", 2),
            ("swap_eth", 2),
            ("swap_to_eth", 2),
            ("swap_tokens", 2),
            ("swap_multihop", 2),
            ("swap_eth_exact", 1),
            ("swap_exact_eth_out", 1),
            ("swap_exact_out", 1),
            ("add_liquidity_eth", 1),
            ("add_liquidity", 1),
            ("remove_liquidity_eth", 1),
            ("remove_liquidity", 1),
            ("aave_supply", 1),
            ("aave_withdraw", 1),
            ("aave_borrow", 1),
            ("aave_repay", 1),
            ("comet_supply", 1),
            ("comet_withdraw", 1),
            ("lido", 2),
            ("vault_deposit", 1),
            ("vault_withdraw", 1),
            ("vault_redeem", 1),
            ("gov_propose", 1),
            ("gov_vote", 1),
            ("gov_execute", 1),
            ("punk_transfer", 1),
            ("punk_offer", 1),
            ("punk_buy", 1),
            ("erc721", 1),
            ("erc721_data", 1),
            ("erc1155", 1),
        ];
        let total: u32 = T.iter().map(|t| t.1).sum();
        let mut r = self.rng.random_range(0..total);
        let mut name = T[0].0;
        for (n, w) in T {
            if r < *w {
                name = n;
                break;
            }
            r -= w;
        }
        let colloquial = ["{}.", "could you {}?", "please {}.", "I want to {}."];
        let frame = |g: &mut Self, style: &str| -> &'static str {
            if style == "colloquial" {
                g.pick(&colloquial)
            } else {
                "{}."
            }
        };
        let (step, category, sub, style) = match name {
            "transfer" => {
                let (t, _, am) = self.pick(TOKENS);
                let h = self.pick(am);
                let to = self.recipient();
                (
                    self.transfer(t, h, to),
                    "Transfer",
                    "TokenTransfer",
                    "colloquial",
                )
            }
            "transfer_from" => {
                let t = self.pick(&["USDC", "DAI"]);
                let h = self.pick(&["50", "100", "250"]);
                let from = RECIPIENTS[0];
                let to = self.pick(&RECIPIENTS[1..]);
                let raw = self.units(t, h);
                let clause = format!("move {h} {t} from {from}, who has approved me, to {to}");
                let call = self.call(
                    t,
                    "transferFrom",
                    vec![json!(from), json!(to), json!(raw)],
                    "0",
                );
                (
                    Step { call, clause },
                    "Transfer",
                    "DelegatedTransfer",
                    "colloquial",
                )
            }
            "weth_transfer" => {
                let h = self.pick(amounts("WETH"));
                let to = self.recipient();
                (
                    self.transfer("WETH", h, to),
                    "Transfer",
                    "TokenTransfer",
                    "colloquial",
                )
            }
            "steth_transfer" => {
                let h = self.pick(&["0.1", "0.5", "1"]);
                let to = self.recipient();
                (
                    self.steth_transfer(h, to),
                    "Transfer",
                    "TokenTransfer",
                    "colloquial",
                )
            }
            "approve" | "revoke" => {
                let (t, _, am) = self.pick(TOKENS);
                let spender = self.pick(&[
                    "Uniswap_V2_Router",
                    "SushiSwap_Router",
                    "Aave_V3_Lending_Pool",
                    "Compound_V3_USDC_Market",
                ]);
                if name == "approve" {
                    let h = self.pick(am);
                    (
                        self.approve(t, h, spender),
                        "TokenLifecycle",
                        "Approval",
                        "colloquial",
                    )
                } else {
                    let mut s = self.approve(t, "0", spender);
                    s.clause = format!(
                        "revoke {}'s allowance on my {t} (set it to 0)",
                        pretty(spender)
                    );
                    (s, "TokenLifecycle", "RevokeApproval", "colloquial")
                }
            }
            "nft_approval" => (
                self.nft("approval"),
                "TokenLifecycle",
                "NFTApproval",
                "explicit",
            ),
            "wrap" => {
                let h = self.pick(ETH_AMOUNTS);
                (self.wrap(h), "AssetTransformation", "Wrap", "colloquial")
            }
            "unwrap" => {
                let h = self.pick(amounts("WETH"));
                (
                    self.unwrap(h),
                    "AssetTransformation",
                    "Unwrap",
                    "colloquial",
                )
            }
            "swap_eth" => {
                let dex = self.pick(&["Uniswap_V2_Router", "SushiSwap_Router"]);
                let t = self.pick(if dex == "SushiSwap_Router" {
                    SUSHI_WETH_PAIRS
                } else {
                    UNI_WETH_PAIRS
                });
                let h = self.pick(ETH_AMOUNTS);
                let to = if self.rng.random_bool(0.6) {
                    SENDER
                } else {
                    self.recipient()
                };
                (
                    self.swap_exact_eth(dex, h, t, to),
                    "Swap",
                    "ETHForTokens",
                    "precise",
                )
            }
            "swap_to_eth" => {
                let dex = self.pick(&["Uniswap_V2_Router", "SushiSwap_Router"]);
                let t = self.pick(if dex == "SushiSwap_Router" {
                    SUSHI_WETH_PAIRS
                } else {
                    UNI_WETH_PAIRS
                });
                let h = self.pick(amounts(t));
                (
                    self.swap_exact_tokens_for_eth(dex, t, h, SENDER),
                    "Swap",
                    "TokensForETH",
                    "precise",
                )
            }
            "swap_tokens" => {
                let t = self.pick(UNI_WETH_PAIRS);
                let (path, h) = if self.rng.random_bool(0.5) {
                    (vec![t, "WETH"], self.pick(amounts(t)))
                } else {
                    (vec!["WETH", t], self.pick(amounts("WETH")))
                };
                (
                    self.swap_exact_tokens("Uniswap_V2_Router", &path, h, SENDER),
                    "Swap",
                    "TokenSwap",
                    "precise",
                )
            }
            "swap_multihop" => {
                let a = self.pick(UNI_WETH_PAIRS);
                let mut b = self.pick(UNI_WETH_PAIRS);
                if a == b {
                    b = if a == "DAI" { "USDC" } else { "DAI" };
                }
                let h = self.pick(amounts(a));
                (
                    self.swap_exact_tokens("Uniswap_V2_Router", &[a, "WETH", b], h, SENDER),
                    "Swap",
                    "MultiHopSwap",
                    "precise",
                )
            }
            "swap_eth_exact" => {
                let t = self.pick(UNI_WETH_PAIRS);
                let h = self.pick(amounts(t));
                (
                    self.swap_eth_for_exact("Uniswap_V2_Router", t, h, SENDER),
                    "Swap",
                    "ExactOutput",
                    "precise",
                )
            }
            "swap_exact_eth_out" => {
                let t = self.pick(UNI_WETH_PAIRS);
                let h = self.pick(&["0.05", "0.1", "0.25"]);
                (
                    self.swap_tokens_for_exact_eth("Uniswap_V2_Router", t, h, SENDER),
                    "Swap",
                    "ExactOutput",
                    "precise",
                )
            }
            "swap_exact_out" => {
                let t = self.pick(UNI_WETH_PAIRS);
                let h = self.pick(&["0.05", "0.1", "0.25"]);
                (
                    self.swap_tokens_for_exact("Uniswap_V2_Router", &[t, "WETH"], h, SENDER),
                    "Swap",
                    "ExactOutput",
                    "precise",
                )
            }
            "add_liquidity_eth" => {
                let t = self.pick(UNI_WETH_PAIRS);
                (
                    self.add_liquidity_eth(t),
                    "Liquidity",
                    "AddLiquidity",
                    "precise",
                )
            }
            "add_liquidity" => {
                let b = self.pick(&["DAI", "USDT"]);
                (
                    self.add_liquidity("USDC", b),
                    "Liquidity",
                    "AddLiquidity",
                    "precise",
                )
            }
            "remove_liquidity_eth" => {
                let t = self.pick(UNI_WETH_PAIRS);
                (
                    self.remove_liquidity_eth(t),
                    "Liquidity",
                    "RemoveLiquidity",
                    "precise",
                )
            }
            "remove_liquidity" => {
                let b = self.pick(&["DAI", "USDT"]);
                (
                    self.remove_liquidity("USDC", b),
                    "Liquidity",
                    "RemoveLiquidity",
                    "precise",
                )
            }
            "aave_supply" | "aave_withdraw" | "aave_borrow" | "aave_repay" => {
                let action = &name[5..];
                let t = match action {
                    "withdraw" => self.pick(&["WETH", "USDC"]),
                    "repay" => self.pick(&["DAI", "USDT"]),
                    _ => self.pick(&["USDC", "DAI", "USDT", "WETH", "WBTC", "LINK"]),
                };
                let h = match (action, t) {
                    ("withdraw", "WETH") => self.pick(&["0.5", "1", "2"]),
                    (_, t) => self.pick(amounts(t)),
                };
                let sub = match action {
                    "supply" => "Supply",
                    "withdraw" => "Withdraw",
                    "borrow" => "Borrow",
                    _ => "Repay",
                };
                (self.aave(action, t, h), "Lending", sub, "precise")
            }
            "comet_supply" | "comet_withdraw" => {
                let action = &name[6..];
                let t = self.pick(&["USDC", "WETH"]);
                let h = if t == "WETH" {
                    self.pick(&["0.1", "0.5", "1"])
                } else {
                    self.pick(amounts("USDC"))
                };
                (
                    self.comet(action, t, h),
                    "Lending",
                    if action == "supply" {
                        "Supply"
                    } else {
                        "Withdraw"
                    },
                    "precise",
                )
            }
            "lido" => {
                let h = self.pick(ETH_AMOUNTS);
                (self.stake(h), "Staking", "Stake", "precise")
            }
            "vault_deposit" | "vault_withdraw" | "vault_redeem" => {
                let action = &name[6..];
                let v = self.pick(&["Crucible_DAI_Vault", "Crucible_USDC_Vault"]);
                let h = self.pick(&["100", "250", "500", "1000"]);
                let to = if self.rng.random_bool(0.7) {
                    SENDER
                } else {
                    self.recipient()
                };
                let sub = match action {
                    "deposit" => "VaultDeposit",
                    "withdraw" => "VaultWithdraw",
                    _ => "VaultRedeem",
                };
                (self.vault(action, v, h, to), "Vault", sub, "precise")
            }
            "gov_propose" => {
                let n = self.rng.random_range(1..1000);
                (self.propose(n), "Governance", "CreateProposal", "explicit")
            }
            "gov_vote" => (self.cast_vote(), "Governance", "Vote", "explicit"),
            "gov_execute" => (self.execute(), "Governance", "ExecuteProposal", "explicit"),
            "punk_transfer" => (self.punk("transferPunk"), "NFT", "NFTTransfer", "explicit"),
            "punk_offer" => (
                self.punk("offerPunkForSale"),
                "NFT",
                "NFTListing",
                "explicit",
            ),
            "punk_buy" => (self.punk("buyPunk"), "NFT", "NFTPurchase", "explicit"),
            "erc721" => (self.nft("erc721"), "NFT", "NFTTransfer", "explicit"),
            "erc721_data" => (self.nft("erc721data"), "NFT", "NFTTransfer", "explicit"),
            _ => (self.nft("erc1155"), "NFT", "MultiTokenTransfer", "explicit"),
        };
        let frame = frame(self, style);
        Draft {
            steps: vec![step],
            category,
            sub_category: sub,
            style,
            template: name,
            frame,
            joiners: vec![],
        }
    }

    fn join(&mut self, n: usize) -> Vec<&'static str> {
        (0..n)
            .map(|_| self.pick(&[", then ", " and then ", " and ", ", and "]))
            .collect()
    }

    fn multi(&mut self) -> Draft {
        const M: &[&str] = &[
            "approve_swap",
            "wrap_transfer",
            "approve_supply",
            "approve_vault",
            "swap_transfer",
            "stake_transfer",
            "wrap_approve_supply",
            "approve_comet",
            "withdraw_transfer",
            "borrow_swap",
        ];
        let name = self.pick(M);
        let (steps, category, sub, style): (Vec<Step>, &str, &str, &str) = match name {
            "approve_swap" => {
                let t = self.pick(UNI_WETH_PAIRS);
                let h = self.pick(amounts(t));
                let dex = "Uniswap_V2_Router";
                let a = self.approve(t, h, dex);
                let s = if self.rng.random_bool(0.5) {
                    self.swap_exact_tokens_for_eth(dex, t, h, SENDER)
                } else {
                    let b = if t == "DAI" { "USDC" } else { "DAI" };
                    self.swap_exact_tokens(dex, &[t, "WETH", b], h, SENDER)
                };
                (vec![a, s], "Swap", "ApproveAndSwap", "precise")
            }
            "wrap_transfer" => {
                let h = self.pick(ETH_AMOUNTS);
                let to = self.recipient();
                let w = self.wrap(h);
                let mut t = self.transfer("WETH", h, to);
                t.clause = format!("send that {h} WETH to {to}");
                (
                    vec![w, t],
                    "AssetTransformation",
                    "WrapAndTransfer",
                    "colloquial",
                )
            }
            "approve_supply" => {
                let t = self.pick(&["USDC", "DAI", "WBTC", "LINK"]);
                let h = self.pick(amounts(t));
                let a = self.approve(t, h, "Aave_V3_Lending_Pool");
                let s = self.aave("supply", t, h);
                (vec![a, s], "Lending", "ApproveAndSupply", "precise")
            }
            "approve_vault" => {
                let v = self.pick(&["Crucible_DAI_Vault", "Crucible_USDC_Vault"]);
                let token = self
                    .book
                    .expect(v)
                    .underlying
                    .clone()
                    .unwrap_or_else(|| "DAI".into());
                let h = self.pick(&["100", "250", "500", "1000"]);
                let a = self.approve(&token, h, v);
                let d = self.vault("deposit", v, h, SENDER);
                (vec![a, d], "Vault", "ApproveAndDeposit", "precise")
            }
            "swap_transfer" => {
                let t = self.pick(UNI_WETH_PAIRS);
                let h = self.pick(ETH_AMOUNTS);
                let to = self.recipient();
                let s = self.swap_exact_eth("Uniswap_V2_Router", h, t, SENDER);
                let min = parse_units_back(&s.call, "amountOutMin", self.decimals(t));
                let mut tr = self.transfer(t, &min, to);
                tr.clause = format!("forward {min} {t} of the proceeds to {to}");
                (vec![s, tr], "Swap", "SwapAndTransfer", "precise")
            }
            "stake_transfer" => {
                let h = self.pick(&["1", "2"]);
                let half = if h == "1" { "0.5" } else { "1" };
                let to = self.recipient();
                let s = self.stake(h);
                let mut t = self.steth_transfer(half, to);
                t.clause = format!("send {half} stETH of it to {to}");
                (vec![s, t], "Staking", "StakeAndTransfer", "precise")
            }
            "wrap_approve_supply" => {
                let h = self.pick(&["0.5", "1", "2"]);
                let w = self.wrap(h);
                let a = self.approve("WETH", h, "Aave_V3_Lending_Pool");
                let s = self.aave("supply", "WETH", h);
                (vec![w, a, s], "Lending", "WrapApproveSupply", "precise")
            }
            "approve_comet" => {
                let h = self.pick(amounts("USDC"));
                let a = self.approve("USDC", h, "Compound_V3_USDC_Market");
                let s = self.comet("supply", "USDC", h);
                (vec![a, s], "Lending", "ApproveAndSupply", "precise")
            }
            "withdraw_transfer" => {
                let h = self.pick(amounts("USDC"));
                let to = self.recipient();
                let w = self.aave("withdraw", "USDC", h);
                let mut t = self.transfer("USDC", h, to);
                t.clause = format!("send the {h} USDC to {to}");
                (vec![w, t], "Lending", "WithdrawAndTransfer", "precise")
            }
            _ => {
                let h = self.pick(&["100", "250", "500"]);
                let b = self.aave("borrow", "DAI", h);
                let s = self.swap_exact_tokens_for_eth("Uniswap_V2_Router", "DAI", h, SENDER);
                (vec![b, s], "Lending", "BorrowAndSwap", "precise")
            }
        };
        let joiners = self.join(steps.len() - 1);
        Draft {
            steps,
            category,
            sub_category: sub,
            style,
            template: name,
            frame: "{}.",
            joiners,
        }
    }
}

/// The human amount of a uint parameter of `call` (for chaining a step's output into the next).
fn parse_units_back(call: &Call, param: &str, decimals: u8) -> String {
    let raw = call
        .param(param)
        .and_then(|p| super::value::parse_uint(&p.val))
        .unwrap_or_default();
    format_units(raw, decimals)
}

/// How contracts are named in intents.
fn pretty(name: &str) -> &str {
    match name {
        "Uniswap_V2_Router" => "Uniswap V2",
        "SushiSwap_Router" => "SushiSwap",
        "Aave_V3_Lending_Pool" => "Aave V3",
        "Compound_V3_USDC_Market" => "the Compound V3 USDC market",
        "Lido_stETH" => "Lido",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::encode_call;

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let book = AddressBook::builtin();
        let a = generate(GenerateOptions::new(7, 200), &book).unwrap();
        let b = generate(GenerateOptions::new(7, 200), &book).unwrap();
        let c = generate(GenerateOptions::new(8, 200), &book).unwrap();
        let ser = |g: &Generated| serde_json::to_string(&g.instances).unwrap();
        assert_eq!(ser(&a), ser(&b));
        assert_ne!(ser(&a), ser(&c));
        assert_eq!(a.instances.len(), 200);
    }

    #[test]
    fn every_ground_truth_encodes_and_every_category_appears() {
        let book = AddressBook::builtin();
        let g = generate(GenerateOptions::new(1, 1500), &book).unwrap();
        for inst in &g.instances {
            for call in inst.ground_truth.steps() {
                encode_call(&book, call)
                    .unwrap_or_else(|e| panic!("{}: {e}\n{}", inst.id, inst.intent));
            }
        }
        let cats: Vec<&str> = g
            .distribution
            .categories
            .keys()
            .map(|s| s.as_str())
            .collect();
        assert_eq!(
            cats,
            [
                "AssetTransformation",
                "Governance",
                "Lending",
                "Liquidity",
                "NFT",
                "Staking",
                "Swap",
                "TokenLifecycle",
                "Transfer",
                "Vault"
            ]
        );
        assert!(
            g.distribution.multi_step > 200 && g.distribution.single_step > 1000,
            "{:?}",
            g.distribution
        );
        assert_eq!(g.distribution.styles.len(), 3);
        assert!(g.distribution.sub_categories.contains_key("MultiHopSwap"));
        assert!(g
            .distribution
            .sub_categories
            .contains_key("ExecuteProposal"));
    }

    #[test]
    fn multi_step_intents_are_joined_with_then_or_and() {
        let book = AddressBook::builtin();
        let g = generate(
            GenerateOptions {
                seed: 3,
                count: 50,
                multi_fraction: 1.0,
            },
            &book,
        )
        .unwrap();
        for inst in &g.instances {
            assert!(inst.ground_truth.steps().len() >= 2);
            assert!(
                inst.intent.contains(" then ") || inst.intent.contains(" and "),
                "{}",
                inst.intent
            );
        }
    }

    #[test]
    fn intents_state_every_address_of_the_truth_they_do_not_get_from_the_book() {
        // A model can only be right if the intent (plus the book and the sender) determines the
        // call: every address param is the sender, a book contract, or written in the intent.
        let book = AddressBook::builtin();
        let g = generate(GenerateOptions::new(11, 600), &book).unwrap();
        for inst in &g.instances {
            for call in inst.ground_truth.steps() {
                for (name, p) in &call.params {
                    let vals: Vec<&Value> = match &p.val {
                        Value::Array(a) if p.ty == "address[]" => a.iter().collect(),
                        v if p.ty == "address" => vec![v],
                        _ => vec![],
                    };
                    for v in vals {
                        let a = parse_address(v).unwrap();
                        let known = a == Address::ZERO
                            || book.by_address(a).is_some()
                            || inst
                                .intent
                                .to_lowercase()
                                .contains(&format!("{a:?}").to_lowercase())
                            || format!("{a:?}").eq_ignore_ascii_case(SENDER);
                        assert!(
                            known,
                            "{}: {name} = {v} not derivable from {:?}",
                            inst.id, inst.intent
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn proposal_id_matches_ethers() {
        // ethers v6: keccak256(AbiCoder.encode(["address[]","uint256[]","bytes[]","bytes32"], …)).
        let (t, v, c, d) = fixture_proposal(1);
        assert_eq!(
            t,
            vec!["0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC".to_string()]
        );
        let t = vec![RECIPIENTS[0].to_string()];
        assert_eq!(
            proposal_id(&t, &v, &c, &d).to_string(),
            "108462518634278918271967719812963544776782739973781732869309673317775109066160"
        );
    }

    #[test]
    fn amounts_round_to_two_significant_digits() {
        let cases = [
            (1234.5, 6, "1200"),
            (0.0004166, 8, "0.00041"),
            (0.5, 18, "0.5"),
            (0.0, 6, "0"),
            (99.9, 6, "99"),
        ];
        for (x, d, want) in cases {
            assert_eq!(round_amount(x, d), want, "{x}");
        }
    }

    #[test]
    fn bad_options_are_rejected() {
        let book = AddressBook::builtin();
        let e = generate(
            GenerateOptions {
                seed: 1,
                count: 1,
                multi_fraction: 1.5,
            },
            &book,
        )
        .unwrap_err();
        assert!(e.to_string().contains("multi_fraction 1.5"));
        struct RejectAll;
        impl InstanceFilter for RejectAll {
            fn keep(&mut self, _: &Instance) -> bool {
                false
            }
        }
        let e = generate(GenerateOptions::new(1, MAX_COUNT + 1), &book).unwrap_err();
        assert!(e.to_string().contains("above the maximum"));
        // A closure is a filter: keep only single-step transfers.
        let mut only_transfers = |i: &Instance| {
            i.ground_truth
                .steps()
                .iter()
                .all(|c| c.function == "transfer")
        };
        let g = generate_filtered(GenerateOptions::new(5, 20), &book, &mut only_transfers).unwrap();
        assert_eq!(g.instances.len(), 20);
        assert!(g.rejected > 0);
        let e = generate_filtered(GenerateOptions::new(1, 2), &book, &mut RejectAll).unwrap_err();
        assert!(e.to_string().contains("rejected 140 of 140"), "{e}");
    }
}
