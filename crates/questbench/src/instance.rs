//! Seeded instances: a [`Task`] with its template chosen and every parameter sampled from a
//! ChaCha8 stream keyed by (task id, seed), plus the agent key derived from the seed. The same
//! seed gives the same instance byte for byte; the key never appears in the prompt.

use alloy::primitives::{keccak256, Address, U256};
use alloy::signers::local::PrivateKeySigner;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::prompt::NlDifficulty;
use super::task::{ParamType, Sample, Task, TemplateLabel};
use super::QuestError;
use crucible_chain::universe::Manifest;

/// A sampled parameter value (serialised as JSON text/number/bool; addresses checksummed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamValue {
    /// Decimal text with the rule's number of decimals (never a float).
    Decimal(String),
    /// Whole number.
    Integer(i64),
    /// Address (checksummed when serialised).
    Address(Address),
    /// Text.
    Text(String),
    /// Flag.
    Bool(bool),
}

impl Serialize for ParamValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ParamValue::Integer(i) => s.serialize_i64(*i),
            ParamValue::Bool(b) => s.serialize_bool(*b),
            other => s.serialize_str(&other.render()),
        }
    }
}

impl ParamValue {
    /// How the value appears in a template.
    pub fn render(&self) -> String {
        match self {
            ParamValue::Decimal(s) | ParamValue::Text(s) => s.clone(),
            ParamValue::Integer(i) => i.to_string(),
            ParamValue::Address(a) => a.to_checksum(None),
            ParamValue::Bool(b) => b.to_string(),
        }
    }
}

/// One sampled task instance.
#[derive(Debug, Clone)]
pub struct Instance {
    /// Task id.
    pub task_id: String,
    /// Seed.
    pub seed: u64,
    /// Index of the chosen template.
    pub template_index: usize,
    /// The chosen template's clarity label, when the task labels its templates.
    pub template_label: Option<TemplateLabel>,
    /// The filled template (the task text of the prompt).
    pub text: String,
    /// Sampled parameters in declaration order.
    pub params: Vec<(String, ParamValue)>,
    /// The agent's address (the harness signs for it; the key stays here).
    pub agent: Address,
    key: PrivateKeySigner,
    signers: Vec<(String, PrivateKeySigner)>,
}

impl Instance {
    /// Samples `task` for `seed`; manifest names resolve against `manifest`.
    pub fn new(task: &Task, seed: u64, manifest: &Manifest) -> Result<Self, QuestError> {
        Self::with_difficulty(task, seed, manifest, NlDifficulty::Random)
    }

    /// Like [`Instance::new`], choosing the template among those labelled `nl` (the reference
    /// runner's `--nl-difficulty`); when the task labels none so, any template (the runner's
    /// fallback). The parameters do not depend on `nl`: the labelled choice draws from its own
    /// seeded stream, so `Random` gives exactly [`Instance::new`]'s instance.
    pub fn with_difficulty(
        task: &Task,
        seed: u64,
        manifest: &Manifest,
        nl: NlDifficulty,
    ) -> Result<Self, QuestError> {
        let key = agent_key(seed);
        let agent = key.address();
        let mut material = b"crucible/quest/instance/".to_vec();
        material.extend_from_slice(task.id().as_bytes());
        material.push(0);
        material.extend_from_slice(&seed.to_le_bytes());
        let mut rng = ChaCha8Rng::from_seed(keccak256(&material).0);
        let spec = &task.spec;
        let mut template_index = rng.random_range(0..spec.templates.len());
        if let Some(want) = nl.label() {
            let pool: Vec<usize> = (0..spec.templates.len())
                .filter(|&i| spec.template_labels.get(i) == Some(&want))
                .collect();
            if !pool.is_empty() {
                material.extend_from_slice(b"/nl");
                let mut pick = ChaCha8Rng::from_seed(keccak256(&material).0);
                template_index = pool[pick.random_range(0..pool.len())];
            }
        }
        let template_label = spec.template_labels.get(template_index).copied();
        let mut params: Vec<(String, ParamValue)> = Vec::new();
        let mut signers: Vec<(String, PrivateKeySigner)> = Vec::new();
        for (i, p) in spec.parameters.iter().enumerate() {
            let err = |m: String| QuestError::Instance {
                task: task.id().into(),
                field: Some(format!("parameters[{i}]")),
                message: format!("parameter {}: {m}", p.name),
            };
            let v = match &p.sample {
                Sample::Signer => {
                    let mut b = [0u8; 32];
                    rng.fill(&mut b);
                    let k = key_from(keccak256(b));
                    let a = k.address();
                    signers.push((p.name.clone(), k));
                    ParamValue::Address(a)
                }
                Sample::Permit {
                    token,
                    name,
                    version,
                    owner,
                    spender,
                    value,
                    decimals,
                    deadline,
                } => {
                    let get = |n: &str| params.iter().find(|(k, _)| k == n).map(|(_, v)| v);
                    let addr = |n: &str| match get(n) {
                        Some(ParamValue::Address(a)) => Ok(*a),
                        _ => Err(err(format!("{n} is not an earlier address parameter"))),
                    };
                    let key = signers
                        .iter()
                        .find(|(n, _)| n == owner)
                        .map(|(_, k)| k)
                        .ok_or_else(|| {
                            err(format!("{owner} is not an earlier signer parameter"))
                        })?;
                    let amount = match get(value) {
                        Some(ParamValue::Decimal(s)) => {
                            decimal_units(s, *decimals).map_err(|e| err(e.to_string()))?
                        }
                        _ => {
                            return Err(err(format!("{value} is not an earlier decimal parameter")))
                        }
                    };
                    let deadline = match get(deadline) {
                        Some(ParamValue::Integer(i)) if *i >= 0 => U256::from(*i as u64),
                        _ => {
                            return Err(err(format!(
                                "{deadline} is not an earlier integer parameter"
                            )))
                        }
                    };
                    let sig = permit_signature(
                        key,
                        (name, version, manifest.chain_id, addr(token)?),
                        addr(spender)?,
                        amount,
                        deadline,
                    );
                    ParamValue::Text(sig)
                }
                other => sample(other, p.ty, &mut rng, manifest, agent).map_err(err)?,
            };
            params.push((p.name.clone(), v));
        }
        let mut text = spec.templates[template_index].clone();
        for (name, v) in &params {
            text = text.replace(&format!("{{{name}}}"), &v.render());
        }
        Ok(Self {
            task_id: task.id().into(),
            seed,
            template_index,
            template_label,
            text,
            params,
            agent,
            key,
            signers,
        })
    }

    /// The harness-held key of a `signer` parameter.
    pub fn signer_param(&self, name: &str) -> Option<&PrivateKeySigner> {
        self.signers.iter().find(|(n, _)| n == name).map(|(_, k)| k)
    }

    /// The key the harness signs with.
    pub fn signer(&self) -> &PrivateKeySigner {
        &self.key
    }

    /// A parameter by name.
    pub fn param(&self, name: &str) -> Option<&ParamValue> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Fills a solution file: every `{{name}}` becomes the rendered parameter value, as a model
    /// writes the task's values into its code.
    pub fn render_solution(&self, source: &str) -> String {
        let mut out = source.to_string();
        for (name, v) in &self.params {
            out = out.replace(&format!("{{{{{name}}}}}"), &v.render());
        }
        out
    }

    /// Parameters as a JSON object (declaration order).
    pub fn params_json(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for (n, v) in &self.params {
            m.insert(n.clone(), serde_json::to_value(v).unwrap_or_default());
        }
        serde_json::Value::Object(m)
    }

    /// Resolves an address reference: `agent`, `$param`, or a manifest name.
    pub fn resolve(&self, r: &str, manifest: &Manifest) -> Result<Address, QuestError> {
        if let Some(p) = r.strip_prefix('$') {
            return match self.param(p) {
                Some(ParamValue::Address(a)) => Ok(*a),
                _ => Err(QuestError::Instance {
                    task: self.task_id.clone(),
                    field: None,
                    message: format!("${p} is not an address parameter"),
                }),
            };
        }
        manifest_address(r, manifest, self.agent).map_err(|m| QuestError::Instance {
            task: self.task_id.clone(),
            field: None,
            message: m,
        })
    }
}

/// The agent key of a seed: `keccak256("crucible/quest/agent/" ‖ seed)`, re-hashed in the
/// (negligible) case it is not a valid secp256k1 scalar.
pub fn agent_key(seed: u64) -> PrivateKeySigner {
    let mut material = b"crucible/quest/agent/".to_vec();
    material.extend_from_slice(&seed.to_le_bytes());
    key_from(keccak256(&material))
}

fn key_from(mut h: alloy::primitives::B256) -> PrivateKeySigner {
    loop {
        if let Ok(k) = PrivateKeySigner::from_bytes(&h) {
            return k;
        }
        h = keccak256(h);
    }
}

/// EIP-2612 permit signature (nonce 0) as 0x r‖s‖v, v ∈ {27, 28}.
fn permit_signature(
    key: &PrivateKeySigner,
    (name, version, chain_id, token): (&str, &str, u64, Address),
    spender: Address,
    value: U256,
    deadline: U256,
) -> String {
    use alloy::signers::SignerSync;
    let word = |a: Address| {
        let mut w = [0u8; 32];
        w[12..].copy_from_slice(a.as_slice());
        w
    };
    let mut dom = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)",
    )
    .to_vec();
    dom.extend_from_slice(keccak256(name).as_slice());
    dom.extend_from_slice(keccak256(version).as_slice());
    dom.extend_from_slice(&U256::from(chain_id).to_be_bytes::<32>());
    dom.extend_from_slice(&word(token));
    let domain = keccak256(&dom);
    let mut st = keccak256(
        "Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)",
    )
    .to_vec();
    st.extend_from_slice(&word(key.address()));
    st.extend_from_slice(&word(spender));
    st.extend_from_slice(&value.to_be_bytes::<32>());
    st.extend_from_slice(&U256::ZERO.to_be_bytes::<32>());
    st.extend_from_slice(&deadline.to_be_bytes::<32>());
    let mut msg = vec![0x19, 0x01];
    msg.extend_from_slice(domain.as_slice());
    msg.extend_from_slice(keccak256(&st).as_slice());
    let digest = keccak256(&msg);
    match key.sign_hash_sync(&digest) {
        Ok(sig) => {
            let mut out = Vec::with_capacity(65);
            out.extend_from_slice(&sig.r().to_be_bytes::<32>());
            out.extend_from_slice(&sig.s().to_be_bytes::<32>());
            out.push(27 + u8::from(sig.v()));
            format!("0x{}", hex::encode(out))
        }
        // Signing a 32-byte digest with a valid key does not fail; an empty signature would make
        // the task unsolvable and the self-test would say so.
        Err(_) => String::new(),
    }
}

fn manifest_address(name: &str, manifest: &Manifest, agent: Address) -> Result<Address, String> {
    if name == "agent" {
        return Ok(agent);
    }
    if name == "zero" {
        return Ok(Address::ZERO);
    }
    if let Some(acc) = name.strip_prefix("account:") {
        return manifest
            .account(acc)
            .map(|a| a.address)
            .map_err(|_| format!("{acc:?} is not an account of the universe"));
    }
    if let Some(a) = manifest.address_book().get(name) {
        return Ok(*a);
    }
    match name {
        "deployer" | "second" => manifest
            .account(name)
            .map(|a| a.address)
            .map_err(|_| format!("{name:?} is not an account of the universe")),
        _ => Err(format!(
            "{name:?} is not a contract or pair of the universe (accounts are account:NAME)"
        )),
    }
}

fn sample(
    s: &Sample,
    ty: ParamType,
    rng: &mut ChaCha8Rng,
    manifest: &Manifest,
    agent: Address,
) -> Result<ParamValue, String> {
    Ok(match s {
        Sample::Range { min, max, decimals } => {
            let lo = decimal_units(min, *decimals).map_err(|e| e.to_string())?;
            let hi = decimal_units(max, *decimals).map_err(|e| e.to_string())?;
            let lo: u128 = lo.try_into().map_err(|_| "range too large".to_string())?;
            let hi: u128 = hi.try_into().map_err(|_| "range too large".to_string())?;
            let v = rng.random_range(lo..=hi);
            ParamValue::Decimal(format_units(U256::from(v), *decimals))
        }
        Sample::IntRange { min, max, step } => {
            let n = (max - min) / step;
            let k = rng.random_range(0..=n);
            ParamValue::Integer(min + k * step)
        }
        Sample::List { values } => {
            let v = &values[rng.random_range(0..values.len())];
            literal(ty, v, manifest, agent)?
        }
        Sample::Fixed { value } => literal(ty, value, manifest, agent)?,
        Sample::Manifest { name } => ParamValue::Address(manifest_address(name, manifest, agent)?),
        Sample::Signer | Sample::Permit { .. } => {
            return Err("signer/permit parameters are sampled by the instance".into())
        }
        Sample::Derived => {
            let mut b = [0u8; 20];
            rng.fill(&mut b);
            ParamValue::Address(Address::from(b))
        }
        Sample::Text { length, charset } => {
            const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
            let mut set = ALNUM.to_vec();
            if charset == "alphanumeric_space" {
                set.push(b' ');
            }
            let mut out: Vec<u8> = (0..*length)
                .map(|_| set[rng.random_range(0..set.len())])
                .collect();
            // No leading/trailing blanks: a template would hide them.
            for i in [0, out.len() - 1] {
                if out[i] == b' ' {
                    out[i] = b'x';
                }
            }
            ParamValue::Text(String::from_utf8_lossy(&out).into_owned())
        }
    })
}

fn literal(
    ty: ParamType,
    v: &serde_json::Value,
    manifest: &Manifest,
    agent: Address,
) -> Result<ParamValue, String> {
    let bad = || format!("{v} is not a {ty:?}");
    Ok(match ty {
        ParamType::Decimal => ParamValue::Decimal(v.as_str().ok_or_else(bad)?.to_string()),
        ParamType::Integer => ParamValue::Integer(v.as_i64().ok_or_else(bad)?),
        ParamType::Address => {
            let s = v.as_str().ok_or_else(bad)?;
            ParamValue::Address(match s.parse() {
                Ok(a) => a,
                Err(_) => manifest_address(s, manifest, agent)?,
            })
        }
        ParamType::String => ParamValue::Text(v.as_str().ok_or_else(bad)?.to_string()),
        ParamType::Bool => ParamValue::Bool(v.as_bool().ok_or_else(bad)?),
    })
}

/// Why a decimal text is not an amount of base units.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecimalError {
    /// More decimals than a 256-bit integer can scale by.
    #[error("{decimals} decimals is more than 256 bits can hold (at most 77)")]
    TooManyDecimals {
        /// The decimals asked for.
        decimals: u32,
    },
    /// Not digits with at most one point.
    #[error("{text:?} is not a non-negative decimal number")]
    NotDecimal {
        /// The text.
        text: String,
    },
    /// More fractional digits than the token has decimals (never rounded).
    #[error("{text:?} has more than {decimals} decimals")]
    TooPrecise {
        /// The text.
        text: String,
        /// The token's decimals.
        decimals: u32,
    },
    /// Does not fit in 256 bits.
    #[error("{text:?} is too large")]
    TooLarge {
        /// The text.
        text: String,
    },
}

/// Exact decimal text → integer base units (`"1.5"`, 18 → 1.5e18). More fractional digits than
/// `decimals` is an error, never a silent rounding.
pub fn decimal_units(s: &str, decimals: u32) -> Result<U256, DecimalError> {
    // 10^78 does not fit in 256 bits; refusing early also keeps a hostile task file from making
    // us allocate billions of zeros.
    if decimals > 77 {
        return Err(DecimalError::TooManyDecimals { decimals });
    }
    let s = s.trim();
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() && frac.is_empty()
        || !int.chars().all(|c| c.is_ascii_digit())
        || !frac.chars().all(|c| c.is_ascii_digit())
    {
        return Err(DecimalError::NotDecimal { text: s.into() });
    }
    let frac = frac.trim_end_matches('0');
    if frac.len() > decimals as usize {
        return Err(DecimalError::TooPrecise {
            text: s.into(),
            decimals,
        });
    }
    let digits = format!("{int}{frac}{}", "0".repeat(decimals as usize - frac.len()));
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Ok(U256::ZERO);
    }
    U256::from_str_radix(digits, 10).map_err(|_| DecimalError::TooLarge { text: s.into() })
}

/// Base units → decimal text with exactly `decimals` digits after the point (none for 0).
pub fn format_units(v: U256, decimals: u32) -> String {
    let s = v.to_string();
    if decimals == 0 {
        return s;
    }
    let d = decimals as usize;
    let padded = format!("{s:0>width$}", width = d + 1);
    let (i, f) = padded.split_at(padded.len() - d);
    format!("{i}.{f}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_units_is_exact() {
        let cases = [
            ("1.5", 18, Ok("1500000000000000000")),
            ("0.001", 3, Ok("1")),
            ("12", 0, Ok("12")),
            ("0.10", 1, Ok("1")),
            ("0", 18, Ok("0")),
            ("0.0001", 3, Err("more than 3 decimals")),
            ("-1", 3, Err("not a non-negative")),
            ("1e3", 3, Err("not a non-negative")),
            ("", 3, Err("not a non-negative")),
        ];
        for (s, d, want) in cases {
            match (decimal_units(s, d), want) {
                (Ok(v), Ok(w)) => assert_eq!(v.to_string(), w, "{s}"),
                (Err(e), Err(w)) => assert!(e.to_string().contains(w), "{s}: {e}"),
                (got, w) => panic!("{s}: got {got:?}, want {w:?}"),
            }
        }
    }

    #[test]
    fn format_units_pads() {
        assert_eq!(format_units(U256::from(42u64), 3), "0.042");
        assert_eq!(format_units(U256::from(1234u64), 2), "12.34");
        assert_eq!(format_units(U256::from(7u64), 0), "7");
    }

    #[test]
    fn the_agent_key_depends_only_on_the_seed() {
        assert_eq!(agent_key(5).address(), agent_key(5).address());
        assert_ne!(agent_key(5).address(), agent_key(6).address());
    }
}
