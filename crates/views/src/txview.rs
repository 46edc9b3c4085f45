//! Transactions for people: a stored transaction (`to`, `data`, `value`, receipt fields) read
//! against the pinned universe, so the trace viewer says "USDT · approve(spender PancakeRouter,
//! amount 1,500 USDT)" instead of a hex string.
//!
//! The [`Decoder`] knows each universe's contracts by address (name, token symbol and decimals,
//! from `assets/universe/<profile>/manifest.json`) and every function of the compiled artifacts
//! (`assets/artifacts/*.json`) by selector. Amount arguments are shown in token units when the
//! call says which token they are of (see [`unit_of_arg`]); other integers are shown as they are.
//! Everything is best effort: an unknown address keeps its hex form, calldata no artifact
//! declares is "not decoded" with the reason, and a malformed stored field is left out.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use alloy::dyn_abi::{DynSolValue, JsonAbiExt};
use alloy::json_abi::{Event, Function, JsonAbi};
use alloy::primitives::{Address, B256, U256};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crucible_chain::universe::Manifest;
use crucible_chain::Profile;
use crucible_core::Config;

mod effects;
pub use effects::{
    AllowanceChange, BalanceChange, LogView, NftOwnerChange, StorageChange, TxEffects,
};

/// Longest list or tuple shown element by element; longer ones are summarised.
const MAX_ITEMS: usize = 12;

/// A transaction as the trace viewer shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TxView {
    /// Where it was found (`transaction`, `round 2`).
    pub label: String,
    /// The target: its universe name and short address (`PancakeRouter (0x10ED…024E)`), or the
    /// address.
    pub to: String,
    /// The target's full address.
    pub to_address: String,
    /// The function called (`approve(address,uint256)`), `None` for a plain transfer or
    /// calldata no known contract declares.
    pub function: Option<String>,
    /// The decoded arguments, in order.
    pub args: Vec<TxArg>,
    /// Why the calldata is not decoded (unknown selector, bad encoding), when it is not.
    pub undecoded: Option<String>,
    /// The native value sent, in coin units (`0.5 BNB`).
    pub value: String,
    /// The value's exact integer in wei.
    pub value_wei: String,
    /// Gas used, when the receipt has it.
    #[ts(type = "number | null")]
    pub gas_used: Option<u64>,
    /// Whether it succeeded (receipt status), when known.
    pub success: Option<bool>,
    /// Why it reverted, when it did and the reason is known.
    pub revert_reason: Option<String>,
    /// What it changed (balances, allowances, NFT owners, storage, logs), when recorded.
    pub effects: Option<TxEffects>,
}

/// One decoded argument.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TxArg {
    /// Its name in the ABI (`amountIn`), or `#1` when unnamed.
    pub name: String,
    /// Its Solidity type.
    pub ty: String,
    /// The value for people: an amount in token units, an address by name.
    pub text: String,
    /// The exact value when `text` is a reading of it (an integer in the smallest unit, a full
    /// address), for hovering.
    pub exact: Option<String>,
}

/// A contract of a universe, as named in its manifest.
#[derive(Debug, Clone)]
struct Known {
    name: String,
    token: Option<(String, u8)>,
}

/// Names and ABIs of the pinned universes (see the module docs).
#[derive(Debug, Default)]
pub struct Decoder {
    contracts: HashMap<(Profile, Address), Known>,
    /// Every declared function by selector (different artifacts may declare the same one).
    functions: HashMap<[u8; 4], Function>,
    /// Every declared event by topic 0; one per indexed pattern (ERC-20 and ERC-721 `Transfer`
    /// share a topic and differ in which arguments are indexed).
    events: HashMap<B256, Vec<Event>>,
}

impl Decoder {
    /// Reads the manifests and artifacts under the config's assets folder. Missing or unreadable
    /// files leave fewer names known; they are not an error.
    pub fn load(config: &Config) -> Self {
        let mut out = Self::default();
        for profile in Profile::ALL {
            let Ok(m) = Manifest::load(config, profile) else {
                continue;
            };
            out.add_manifest(profile, &m);
        }
        out.add_artifacts(&config.assets_dir().join("artifacts"));
        out
    }

    /// The decoder for a config's assets folder, read once per folder and shared.
    pub fn shared(config: &Config) -> Arc<Self> {
        static CACHE: OnceLock<Mutex<HashMap<std::path::PathBuf, Arc<Decoder>>>> = OnceLock::new();
        let key = config.assets_dir();
        let mut cache = CACHE
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        cache
            .entry(key)
            .or_insert_with(|| Arc::new(Self::load(config)))
            .clone()
    }

    fn add_manifest(&mut self, profile: Profile, m: &Manifest) {
        for c in &m.contracts {
            let token = match (&c.symbol, c.decimals) {
                (Some(s), Some(d)) => Some((s.clone(), d)),
                _ => None,
            };
            self.contracts.insert(
                (profile, c.address),
                Known {
                    name: c.name.clone(),
                    token,
                },
            );
        }
        for p in &m.pairs {
            self.contracts.insert(
                (profile, p.address),
                Known {
                    name: format!("{} pair", p.name),
                    token: None,
                },
            );
        }
        for a in &m.accounts {
            self.contracts.insert(
                (profile, a.address),
                Known {
                    name: format!("{} account", a.name),
                    token: None,
                },
            );
        }
    }

    fn add_artifacts(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for path in files {
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(v) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let Ok(abi) = serde_json::from_value::<JsonAbi>(v["abi"].clone()) else {
                continue;
            };
            for f in abi.functions() {
                self.functions
                    .entry(f.selector().0)
                    .or_insert_with(|| f.clone());
            }
            for e in abi.events() {
                let same = self.events.entry(e.selector()).or_default();
                let pattern = |e: &Event| e.inputs.iter().map(|i| i.indexed).collect::<Vec<_>>();
                if !same.iter().any(|x| pattern(x) == pattern(e)) {
                    same.push(e.clone());
                }
            }
        }
    }

    /// The people's name of `a` on `profile`: `USDT (0x55d3…7955)`, or the checksummed address.
    pub fn address(&self, profile: Profile, a: Address) -> String {
        match self.contracts.get(&(profile, a)) {
            Some(k) => format!("{} ({})", k.name, short(a)),
            None => a.to_checksum(None),
        }
    }

    /// The universe's name of `a` on `profile` (`USDT`, `PancakeRouter`), if it has one.
    pub fn name(&self, profile: Profile, a: Address) -> Option<&str> {
        self.contracts.get(&(profile, a)).map(|k| k.name.as_str())
    }

    fn token(&self, profile: Profile, a: Address) -> Option<&(String, u8)> {
        self.contracts.get(&(profile, a))?.token.as_ref()
    }

    /// Reads a stored transaction (`{"to", "data", "value", "gas_used", "status"}`); `None` when
    /// it has no readable `to`.
    pub fn tx(&self, profile: Profile, label: &str, tx: &Value) -> Option<TxView> {
        let to: Address = tx["to"].as_str()?.parse().ok()?;
        let data = tx["data"]
            .as_str()
            .and_then(|d| alloy::hex::decode(d.trim_start_matches("0x")).ok())
            .unwrap_or_default();
        let value = match &tx["value"] {
            Value::String(s) => U256::from_str_radix(s, 10).unwrap_or_default(),
            Value::Number(n) => U256::from(n.as_u64().unwrap_or(0)),
            _ => U256::ZERO,
        };
        let native = native_symbol(profile);
        let mut view = TxView {
            label: label.to_string(),
            to: self.address(profile, to),
            to_address: to.to_checksum(None),
            function: None,
            args: Vec::new(),
            undecoded: None,
            value: format!("{} {native}", token_amount(value, 18)),
            value_wei: value.to_string(),
            gas_used: tx["gas_used"].as_u64(),
            success: tx["status"].as_bool(),
            revert_reason: tx["revert_reason"].as_str().map(str::to_string),
            effects: self.effects(profile, tx),
        };
        if data.is_empty() {
            return Some(view);
        }
        let Some(selector) = data.get(..4).and_then(|s| <[u8; 4]>::try_from(s).ok()) else {
            view.undecoded = Some(format!(
                "{} bytes of calldata, too short for a function call",
                data.len()
            ));
            return Some(view);
        };
        let Some(f) = self.functions.get(&selector) else {
            view.undecoded = Some(format!(
                "selector 0x{} is not a function of any contract in the universe",
                alloy::hex::encode(selector)
            ));
            return Some(view);
        };
        view.function = Some(f.signature());
        match f.abi_decode_input(&data[4..]) {
            Ok(values) => {
                view.args = self.args(profile, to, f, &values);
            }
            Err(e) => {
                view.undecoded = Some(format!(
                    "the arguments do not decode as {}: {e}",
                    f.signature()
                ));
            }
        }
        Some(view)
    }

    fn args(
        &self,
        profile: Profile,
        to: Address,
        f: &Function,
        values: &[DynSolValue],
    ) -> Vec<TxArg> {
        let names = param_names(f.inputs.iter().map(|p| p.name.as_str()));
        let ctx = Context {
            profile,
            to,
            names: &names,
            values,
        };
        let types: Vec<String> = f.inputs.iter().map(|p| p.ty.clone()).collect();
        self.arg_views(&ctx, &types)
    }

    /// The arguments of a call or event (`ctx` names them; `types` are their Solidity types).
    fn arg_views(&self, ctx: &Context<'_>, types: &[String]) -> Vec<TxArg> {
        let (profile, names, values) = (ctx.profile, ctx.names, ctx.values);
        types
            .iter()
            .zip(values)
            .enumerate()
            .map(|(i, (ty, v))| {
                let (text, exact) = match v {
                    DynSolValue::Uint(n, _) => match self.unit_of_arg(ctx, i) {
                        Some((symbol, decimals)) => (
                            format!("{} {symbol}", token_amount(*n, decimals)),
                            Some(n.to_string()),
                        ),
                        None => (group(&n.to_string()), None),
                    },
                    DynSolValue::Address(a) => {
                        let t = self.address(profile, *a);
                        let exact = (t != a.to_checksum(None)).then(|| a.to_checksum(None));
                        (t, exact)
                    }
                    other => (self.plain(profile, other), None),
                };
                TxArg {
                    name: names[i].clone(),
                    ty: ty.clone(),
                    text,
                    exact,
                }
            })
            .collect()
    }

    /// A value that is not a top-level integer or address, in words.
    fn plain(&self, profile: Profile, v: &DynSolValue) -> String {
        match v {
            DynSolValue::Bool(b) => b.to_string(),
            DynSolValue::Int(n, _) => n.to_string(),
            DynSolValue::Uint(n, _) => group(&n.to_string()),
            DynSolValue::Address(a) => self.address(profile, *a),
            DynSolValue::String(s) => format!("{s:?}"),
            DynSolValue::Bytes(b) => format!("0x{}", alloy::hex::encode(b)),
            DynSolValue::FixedBytes(w, n) => format!("0x{}", alloy::hex::encode(&w[..*n])),
            DynSolValue::Array(items)
            | DynSolValue::FixedArray(items)
            | DynSolValue::Tuple(items) => {
                let shown: Vec<String> = items
                    .iter()
                    .take(MAX_ITEMS)
                    .map(|x| self.plain(profile, x))
                    .collect();
                let more = items.len().saturating_sub(MAX_ITEMS);
                let tail = if more > 0 {
                    format!(", … {more} more")
                } else {
                    String::new()
                };
                let (open, close) = if matches!(v, DynSolValue::Tuple(_)) {
                    ("(", ")")
                } else {
                    ("[", "]")
                };
                format!("{open}{}{tail}{close}", shown.join(", "))
            }
            other => format!("{other:?}"),
        }
    }

    /// The token an integer argument is an amount of, when the call says:
    /// - `amountIn…`/`amountOut…` of a call with a `path`: the path's first / last token;
    /// - a name with `ETH`/`BNB` in it (`amountETHMin`): the native coin;
    /// - `amountA…`/`amountB…` beside `tokenA`/`tokenB`: that token;
    /// - `amount…` beside a single `token`/`asset` argument: that token;
    /// - an amount-like name (`amount`, `value`, `wad`, `…Amount`) in a call to a token: the
    ///   token called.
    ///
    /// Ids, deadlines, nonces and anything else stay plain integers.
    fn unit_of_arg(&self, ctx: &Context<'_>, i: usize) -> Option<(String, u8)> {
        let name = ctx.names[i].to_ascii_lowercase();
        let amountish =
            name.contains("amount") || name == "value" || name == "wad" || name == "amt";
        if !amountish {
            return None;
        }
        if name.contains("eth") || name.contains("bnb") {
            return Some((native_symbol(ctx.profile).into(), 18));
        }
        if let Some(path) = ctx.addresses("path") {
            let pick = if name.contains("out") {
                path.last()
            } else if name.contains("in") {
                path.first()
            } else {
                None
            };
            if let Some(t) = pick.and_then(|a| self.token(ctx.profile, *a)) {
                return Some(t.clone());
            }
        }
        for (suffix, token_arg) in [("a", "tokena"), ("b", "tokenb")] {
            if name
                .strip_prefix("amount")
                .is_some_and(|r| r.starts_with(suffix))
            {
                if let Some(t) = ctx
                    .address(token_arg)
                    .and_then(|a| self.token(ctx.profile, a))
                {
                    return Some(t.clone());
                }
            }
        }
        for token_arg in ["token", "asset"] {
            if let Some(t) = ctx
                .address(token_arg)
                .and_then(|a| self.token(ctx.profile, a))
            {
                return Some(t.clone());
            }
        }
        self.token(ctx.profile, ctx.to).cloned()
    }
}

/// The call an argument belongs to.
struct Context<'a> {
    profile: Profile,
    to: Address,
    names: &'a [String],
    values: &'a [DynSolValue],
}

impl Context<'_> {
    fn value(&self, lower_name: &str) -> Option<&DynSolValue> {
        let i = self
            .names
            .iter()
            .position(|n| n.to_ascii_lowercase() == lower_name)?;
        self.values.get(i)
    }

    fn address(&self, lower_name: &str) -> Option<Address> {
        match self.value(lower_name)? {
            DynSolValue::Address(a) => Some(*a),
            _ => None,
        }
    }

    fn addresses(&self, lower_name: &str) -> Option<Vec<Address>> {
        match self.value(lower_name)? {
            DynSolValue::Array(items) => items
                .iter()
                .map(|x| match x {
                    DynSolValue::Address(a) => Some(*a),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }
}

/// Parameter names for people: the ABI's, or `#n` (1-based) for an unnamed one.
fn param_names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    names
        .enumerate()
        .map(|(i, n)| {
            if n.is_empty() {
                format!("#{}", i + 1)
            } else {
                n.to_string()
            }
        })
        .collect()
}

/// The native coin of a profile.
pub fn native_symbol(profile: Profile) -> &'static str {
    match profile {
        Profile::Bsc => "BNB",
        Profile::Eth => "ETH",
    }
}

/// `0x1234…cdef`.
fn short(a: Address) -> String {
    let s = a.to_checksum(None);
    format!("{}…{}", &s[..6], &s[s.len() - 4..])
}

/// Thousands separators in an integer's digits.
fn group(digits: &str) -> String {
    let n = digits.len();
    let mut out = String::with_capacity(n + n / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Digits kept after the decimal point (more below one unit, so a small amount never reads 0).
const SHOWN_DECIMALS: usize = 6;

/// An integer in a token's smallest unit in token units: `1,059`, `≈ 1.055821`, `0.000001`.
/// The same reading as the UI's `tokenAmount` (ui/src/units.ts).
pub fn token_amount(raw: U256, decimals: u8) -> String {
    let digits = raw.to_string();
    let d = usize::from(decimals);
    let padded = format!("{digits:0>width$}", width = d + 1);
    let (whole, frac) = padded.split_at(padded.len() - d);
    let frac = frac.trim_end_matches('0');
    let lead = if whole == "0" {
        frac.len() - frac.trim_start_matches('0').len()
    } else {
        0
    };
    let keep = &frac[..frac.len().min(lead + SHOWN_DECIMALS)];
    let shown = keep.trim_end_matches('0');
    let approx = if shown.len() < frac.len() { "≈ " } else { "" };
    let point = if shown.is_empty() {
        String::new()
    } else {
        format!(".{shown}")
    };
    format!("{approx}{}{point}", group(whole))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy::sol_types::SolCall;

    alloy::sol! {
        function approve(address spender, uint256 amount) external returns (bool);
        function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) external returns (uint256[] memory amounts);
    }

    fn decoder() -> Decoder {
        Decoder::load(&Config::test())
    }

    fn manifest() -> Manifest {
        Manifest::load(&Config::test(), Profile::Bsc).expect("the bsc manifest is in assets")
    }

    fn addr(m: &Manifest, name: &str) -> Address {
        m.contract(name).unwrap()
    }

    #[test]
    fn amounts_read_in_token_units() {
        let u = |s: &str| U256::from_str_radix(s, 10).unwrap();
        assert_eq!(token_amount(u("1059000000000000000000"), 18), "1,059");
        assert_eq!(token_amount(u("1055821885238969613"), 18), "≈ 1.055821");
        assert_eq!(token_amount(u("1"), 18), "0.000000000000000001");
        assert_eq!(token_amount(u("0"), 18), "0");
        assert_eq!(token_amount(u("1500000"), 6), "1.5");
        assert_eq!(token_amount(u("1234567"), 0), "1,234,567");
    }

    #[test]
    fn a_token_approval_names_the_token_the_spender_and_the_amount() {
        let m = manifest();
        let (usdt, router) = (addr(&m, "USDT"), addr(&m, "PancakeRouter"));
        let data = approveCall {
            spender: router,
            amount: U256::from(1_500u64) * U256::from(10u64).pow(U256::from(18u64)),
        }
        .abi_encode();
        let tx = serde_json::json!({"to": usdt.to_checksum(None), "data": format!("0x{}", alloy::hex::encode(&data)),
            "value": "0", "gas_used": 46000, "status": true});
        let v = decoder().tx(Profile::Bsc, "transaction", &tx).unwrap();
        assert!(v.to.starts_with("USDT (0x"), "{v:?}");
        assert_eq!(v.function.as_deref(), Some("approve(address,uint256)"));
        let args: Vec<(&str, &str)> = v
            .args
            .iter()
            .map(|a| (a.name.as_str(), a.text.as_str()))
            .collect();
        assert_eq!(args[1].1, "1,500 USDT", "{args:?}");
        assert!(args[0].1.starts_with("PancakeRouter (0x"), "{args:?}");
        assert_eq!(v.args[1].exact.as_deref(), Some("1500000000000000000000"));
        assert_eq!(
            (v.value.as_str(), v.gas_used, v.success),
            ("0 BNB", Some(46000), Some(true))
        );
    }

    #[test]
    fn a_swap_reads_its_amounts_in_the_paths_tokens() {
        let m = manifest();
        let (usdt, busd, router) = (
            addr(&m, "USDT"),
            addr(&m, "BUSD"),
            addr(&m, "PancakeRouter"),
        );
        let e18 = U256::from(10u64).pow(U256::from(18u64));
        let data = swapExactTokensForTokensCall {
            amountIn: U256::from(2u64) * e18,
            amountOutMin: U256::from(19u64) * e18 / U256::from(10u64),
            path: vec![usdt, busd],
            to: Address::repeat_byte(0x11),
            deadline: U256::from(1_900_000_000u64),
        }
        .abi_encode();
        let tx = serde_json::json!({"to": router.to_checksum(None), "data": format!("0x{}", alloy::hex::encode(&data)), "value": "0"});
        let v = decoder().tx(Profile::Bsc, "round 1", &tx).unwrap();
        let text: Vec<&str> = v.args.iter().map(|a| a.text.as_str()).collect();
        assert_eq!(text[0], "2 USDT");
        assert_eq!(text[1], "1.9 BUSD");
        assert!(
            text[2].starts_with("[USDT (0x") && text[2].contains("BUSD (0x"),
            "{text:?}"
        );
        assert_eq!(text[4], "1,900,000,000", "a deadline is not an amount");
        assert_eq!(v.args[4].exact, None);
    }

    #[test]
    fn what_cannot_be_decoded_says_why_and_garbage_is_left_out() {
        let d = decoder();
        let unknown = serde_json::json!({"to": Address::repeat_byte(0x22).to_checksum(None), "data": "0xdeadbeef00", "value": "1000000000000000000"});
        let v = d.tx(Profile::Bsc, "transaction", &unknown).unwrap();
        assert_eq!(v.function, None);
        assert!(
            v.undecoded
                .as_deref()
                .is_some_and(|w| w.contains("0xdeadbeef")),
            "{v:?}"
        );
        assert_eq!(v.value, "1 BNB");
        let short =
            serde_json::json!({"to": Address::repeat_byte(0x22).to_checksum(None), "data": "0x01"});
        assert!(d.tx(Profile::Bsc, "t", &short).unwrap().undecoded.is_some());
        // An approve selector with arguments cut short.
        let cut = serde_json::json!({"to": Address::repeat_byte(0x22).to_checksum(None), "data": "0x095ea7b3000000"});
        let v = d.tx(Profile::Bsc, "t", &cut).unwrap();
        assert!(
            v.undecoded
                .as_deref()
                .is_some_and(|w| w.contains("do not decode")),
            "{v:?}"
        );
        for bad in [
            serde_json::json!({}),
            serde_json::json!({"to": 5}),
            serde_json::json!({"to": "0xzz"}),
        ] {
            assert_eq!(d.tx(Profile::Bsc, "t", &bad), None, "{bad}");
        }
    }
}
