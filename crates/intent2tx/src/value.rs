//! Typed parameter values: turning JSON (as models and datasets write it) into Solidity values,
//! and the semantic equality the metrics use.
//!
//! Normalisation rules (documented in docs/intent2tx.md):
//! - integers: JSON numbers, decimal strings, `0x` hex strings and scientific notation whose value
//!   is an integer (`"1e18"`, `"1.5e18"`, `1.5e18`); `"1.0"` is the integer 1, `"1.5"` is not an
//!   integer; `_` digit separators are accepted, `,` is not;
//! - addresses: 20-byte hex with or without `0x`, any case;
//! - booleans: `true`/`false` or the strings `"true"`/`"false"` in any case (the paper's data
//!   writes `"True"`/`"False"`, Python's spelling);
//! - bytes: `0x` hex strings; strings: compared exactly;
//! - arrays and tuples: element-wise; a tuple may be written as an array or an object (positional).
//!
//! Two values are equal when both coerce to the same Solidity value of the ground-truth type.

use std::str::FromStr;

use alloy::dyn_abi::{DynSolType, DynSolValue};
use alloy::primitives::{Address, FixedBytes, I256, U256};
use serde_json::Value;

/// A decimal number as `digits × 10^exp` with a sign, read exactly from text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exp: i64,
}

fn parse_decimal(text: &str) -> Option<Decimal> {
    let s = text.trim().replace('_', "");
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, s.strip_prefix('+').unwrap_or(&s).to_string()),
    };
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i64>().ok()?),
        None => (&s[..], 0),
    };
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    if !int_part.bytes().all(|b| b.is_ascii_digit())
        || !frac_part.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    if exp.abs() > 200 {
        return None;
    }
    let digits = format!("{int_part}{frac_part}");
    Some(Decimal {
        negative,
        digits,
        exp: exp - frac_part.len() as i64,
    })
}

/// The magnitude `|d| × 10^scale` as an integer, if it is one and fits 256 bits.
fn scaled_magnitude(d: &Decimal, scale: i64) -> Option<U256> {
    let e = d.exp + scale;
    let mut digits = d.digits.trim_start_matches('0').to_string();
    if digits.is_empty() {
        return Some(U256::ZERO);
    }
    if e >= 0 {
        if digits.len() as i64 + e > 80 {
            return None;
        }
        digits.push_str(&"0".repeat(e as usize));
    } else {
        let cut = (-e) as usize;
        if cut >= digits.len() {
            return None; // non-zero fraction below one unit
        }
        let (keep, frac) = digits.split_at(digits.len() - cut);
        if !frac.bytes().all(|b| b == b'0') {
            return None;
        }
        digits = keep.to_string();
    }
    U256::from_str_radix(&digits, 10).ok()
}

fn number_text(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Some(u.to_string())
            } else if let Some(i) = n.as_i64() {
                Some(i.to_string())
            } else {
                // A double: its exact decimal expansion when integral, else the shortest repr.
                let f = n.as_f64()?;
                if !f.is_finite() {
                    return None;
                }
                if f.fract() == 0.0 {
                    Some(format!("{f:.0}"))
                } else {
                    Some(n.to_string())
                }
            }
        }
        Value::String(s) => Some(s.trim().to_string()),
        _ => None,
    }
}

/// Reads an unsigned integer (see the module rules), `None` if the value is not one.
pub fn parse_uint(v: &Value) -> Option<U256> {
    // Fast paths for what datasets hold: plain decimal strings and small JSON integers.
    match v {
        Value::String(s)
            if !s.is_empty() && s.len() <= 77 && s.bytes().all(|b| b.is_ascii_digit()) =>
        {
            return U256::from_str_radix(s, 10).ok();
        }
        Value::Number(n) if n.is_u64() => return n.as_u64().map(U256::from),
        _ => {}
    }
    let text = number_text(v)?;
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if hex.is_empty() || hex.len() > 64 {
            return None;
        }
        return U256::from_str_radix(hex, 16).ok();
    }
    let d = parse_decimal(&text)?;
    let m = scaled_magnitude(&d, 0)?;
    if d.negative && !m.is_zero() {
        return None;
    }
    Some(m)
}

/// Reads a signed integer, `None` if the value is not one or does not fit 256 bits.
pub fn parse_int(v: &Value) -> Option<I256> {
    let text = number_text(v)?;
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, text.clone()),
    };
    let m = parse_uint(&Value::String(body))?;
    let i = I256::try_from(m).ok()?;
    Some(if neg { -i } else { i })
}

/// Reads an amount of ETH (a JSON number or decimal string) as wei; at most 18 decimals.
pub fn parse_eth_wei(v: &Value) -> Option<U256> {
    let text = number_text(v)?;
    let d = parse_decimal(&text)?;
    let m = scaled_magnitude(&d, 18)?;
    if d.negative && !m.is_zero() {
        return None;
    }
    Some(m)
}

/// Formats `raw / 10^decimals` as a plain decimal string without trailing zeros ("1.5", "250").
pub fn format_units(raw: U256, decimals: u8) -> String {
    let s = raw.to_string();
    let d = decimals as usize;
    let (int, frac) = if s.len() > d {
        (s[..s.len() - d].to_string(), s[s.len() - d..].to_string())
    } else {
        ("0".to_string(), format!("{}{}", "0".repeat(d - s.len()), s))
    };
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        int
    } else {
        format!("{int}.{frac}")
    }
}

/// Parses a human amount ("1.5") into base units with `decimals`; `None` if it has more decimals.
pub fn parse_units(text: &str, decimals: u8) -> Option<U256> {
    let d = parse_decimal(text)?;
    if d.negative {
        return None;
    }
    scaled_magnitude(&d, decimals as i64)
}

/// Reads an address, any case, with or without `0x`.
pub fn parse_address(v: &Value) -> Option<Address> {
    let s = v.as_str()?.trim();
    let hex = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if hex.len() != 40 {
        return None;
    }
    Address::from_str(hex).ok()
}

/// Canonical spelling of a Solidity type (`uint` → `uint256`, spaces removed); the trimmed,
/// lower-cased input when it is not a type alloy can parse.
pub fn canonical_type(ty: &str) -> String {
    if let Some(t) = common_type(ty) {
        return t.sol_type_name().into_owned();
    }
    let compact: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    match DynSolType::parse(&compact) {
        Ok(t) => t.sol_type_name().into_owned(),
        Err(_) => compact.to_lowercase(),
    }
}

/// The types the dataset uses most, without going through the type parser (the hot path of the
/// metrics); `None` for anything else.
fn common_type(ty: &str) -> Option<DynSolType> {
    Some(match ty {
        "uint256" | "uint" => DynSolType::Uint(256),
        "uint8" => DynSolType::Uint(8),
        "uint16" => DynSolType::Uint(16),
        "address" => DynSolType::Address,
        "bool" => DynSolType::Bool,
        "bytes" => DynSolType::Bytes,
        "bytes32" => DynSolType::FixedBytes(32),
        "string" => DynSolType::String,
        "address[]" => DynSolType::Array(Box::new(DynSolType::Address)),
        "uint256[]" => DynSolType::Array(Box::new(DynSolType::Uint(256))),
        "bytes[]" => DynSolType::Array(Box::new(DynSolType::Bytes)),
        _ => return None,
    })
}

/// Parses a Solidity type, with a message naming the problem.
pub(crate) fn parse_type(ty: &str) -> Result<DynSolType, String> {
    if let Some(t) = common_type(ty) {
        return Ok(t);
    }
    let compact: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    DynSolType::parse(&compact).map_err(|_| format!("unknown solidity type {ty:?}"))
}

fn describe(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 60 {
        format!(
            "{}…",
            &s[..s.char_indices().nth(57).map(|(i, _)| i).unwrap_or(s.len())]
        )
    } else {
        s
    }
}

/// Coerces a JSON value to a Solidity value of type `ty`, or says why it cannot.
pub(crate) fn json_to_sol(ty: &DynSolType, v: &Value) -> Result<DynSolValue, String> {
    let bad = |what: &str| format!("expected {what} for type {ty}, got {}", describe(v));
    match ty {
        DynSolType::Bool => match v {
            Value::Bool(b) => Ok(DynSolValue::Bool(*b)),
            Value::String(s) if s.trim().eq_ignore_ascii_case("true") => {
                Ok(DynSolValue::Bool(true))
            }
            Value::String(s) if s.trim().eq_ignore_ascii_case("false") => {
                Ok(DynSolValue::Bool(false))
            }
            _ => Err(bad("a boolean")),
        },
        DynSolType::Uint(bits) => {
            let u = parse_uint(v).ok_or_else(|| bad("a non-negative integer"))?;
            if *bits < 256 && u >= (U256::from(1) << *bits) {
                return Err(format!("value {u} does not fit {ty}"));
            }
            Ok(DynSolValue::Uint(u, *bits))
        }
        DynSolType::Int(bits) => {
            let i = parse_int(v).ok_or_else(|| bad("an integer"))?;
            if *bits < 256 {
                let limit =
                    I256::try_from(U256::from(1) << (*bits - 1)).map_err(|e| e.to_string())?;
                if i >= limit || i < -limit {
                    return Err(format!("value {i} does not fit {ty}"));
                }
            }
            Ok(DynSolValue::Int(i, *bits))
        }
        DynSolType::Address => parse_address(v)
            .map(DynSolValue::Address)
            .ok_or_else(|| bad("a 20-byte hex address")),
        DynSolType::Bytes => {
            let b = hex_bytes(v).ok_or_else(|| bad("0x hex bytes"))?;
            Ok(DynSolValue::Bytes(b))
        }
        DynSolType::FixedBytes(n) => {
            let b = hex_bytes(v).ok_or_else(|| bad("0x hex bytes"))?;
            if b.len() != *n {
                return Err(format!("expected {n} bytes for type {ty}, got {}", b.len()));
            }
            let mut word = [0u8; 32];
            word[..*n].copy_from_slice(&b);
            Ok(DynSolValue::FixedBytes(FixedBytes::from(word), *n))
        }
        DynSolType::String => match v {
            Value::String(s) => Ok(DynSolValue::String(s.clone())),
            _ => Err(bad("a string")),
        },
        DynSolType::Array(inner) => {
            let items = v.as_array().ok_or_else(|| bad("an array"))?;
            let vals = items
                .iter()
                .enumerate()
                .map(|(i, x)| json_to_sol(inner, x).map_err(|e| format!("[{i}]: {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(DynSolValue::Array(vals))
        }
        DynSolType::FixedArray(inner, n) => {
            let items = v.as_array().ok_or_else(|| bad("an array"))?;
            if items.len() != *n {
                return Err(format!(
                    "expected {n} elements for type {ty}, got {}",
                    items.len()
                ));
            }
            let vals = items
                .iter()
                .enumerate()
                .map(|(i, x)| json_to_sol(inner, x).map_err(|e| format!("[{i}]: {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(DynSolValue::FixedArray(vals))
        }
        DynSolType::Tuple(types) => {
            let items: Vec<&Value> = match v {
                Value::Array(a) => a.iter().collect(),
                Value::Object(o) => o.values().collect(),
                _ => return Err(bad("a tuple (array or object)")),
            };
            if items.len() != types.len() {
                return Err(format!(
                    "expected {} components for type {ty}, got {}",
                    types.len(),
                    items.len()
                ));
            }
            let vals = types
                .iter()
                .zip(items)
                .enumerate()
                .map(|(i, (t, x))| json_to_sol(t, x).map_err(|e| format!(".{i}: {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(DynSolValue::Tuple(vals))
        }
        _ => Err(format!("type {ty} is not supported")),
    }
}

fn hex_bytes(v: &Value) -> Option<Vec<u8>> {
    let s = v.as_str()?.trim();
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    hex::decode(h).ok()
}

/// Semantic equality of a predicted value with a ground-truth value of type `ty` (a type string).
/// When the type cannot be parsed the values are compared as JSON with numbers normalised.
pub fn values_match(ty: &str, truth: &Value, pred: &Value) -> bool {
    match parse_type(ty) {
        Ok(t) => match (json_to_sol(&t, truth), json_to_sol(&t, pred)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        },
        Err(_) => loose_eq(truth, pred),
    }
}

fn loose_eq(a: &Value, b: &Value) -> bool {
    if let (Some(x), Some(y)) = (parse_uint(a), parse_uint(b)) {
        return x == y;
    }
    match (a, b) {
        (Value::String(x), Value::String(y)) => x.eq_ignore_ascii_case(y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| loose_eq(p, q))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn uints_read_every_spelling() {
        let e18 = U256::from(10u64).pow(U256::from(18));
        let cases: Vec<(Value, Option<U256>)> = vec![
            (json!("1000000000000000000"), Some(e18)),
            (json!(1e18), Some(e18)),
            (json!("1e18"), Some(e18)),
            (json!("1.5e18"), Some(e18 * U256::from(3) / U256::from(2))),
            (json!("0x0de0b6b3a7640000"), Some(e18)),
            (json!("1_000"), Some(U256::from(1000))),
            (json!(42), Some(U256::from(42))),
            (json!("1.0"), Some(U256::from(1))),
            (json!("1.5"), None),
            (json!(1.5), None),
            (json!("-1"), None),
            (json!("abc"), None),
            (json!(""), None),
            (json!("1,000"), None),
            (json!(true), None),
            (json!("1e-3"), None),
            (json!("1e90"), None),
        ];
        for (v, want) in cases {
            assert_eq!(parse_uint(&v), want, "{v}");
        }
    }

    #[test]
    fn eth_amounts_become_exact_wei() {
        let cases: Vec<(Value, Option<u128>)> = vec![
            (json!(0.1), Some(100_000_000_000_000_000)),
            (json!(1), Some(1_000_000_000_000_000_000)),
            (json!("0.000000000000000001"), Some(1)),
            (json!("0.0000000000000000001"), None),
            (json!(-1), None),
            (json!(0), Some(0)),
        ];
        for (v, want) in cases {
            assert_eq!(parse_eth_wei(&v), want.map(U256::from), "{v}");
        }
    }

    #[test]
    fn units_round_trip() {
        assert_eq!(format_units(U256::from(1_500_000u64), 6), "1.5");
        assert_eq!(format_units(U256::from(250_000_000u64), 6), "250");
        assert_eq!(format_units(U256::from(5u64), 8), "0.00000005");
        assert_eq!(parse_units("1.5", 6), Some(U256::from(1_500_000u64)));
        assert_eq!(parse_units("1.0000001", 6), None);
    }

    #[test]
    fn semantic_matching_table() {
        let a = "0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D";
        let cases: Vec<(&str, Value, Value, bool)> = vec![
            (
                "uint256",
                json!("1000000000000000000"),
                json!("0x0de0b6b3a7640000"),
                true,
            ),
            ("uint256", json!("1000000000000000000"), json!(1e18), true),
            ("uint256", json!("1000000000000000000"), json!("1e18"), true),
            ("uint256", json!("1000000000000000000"), json!("1.0"), false),
            ("uint", json!("5"), json!(5), true),
            ("address", json!(a), json!(a.to_lowercase()), true),
            (
                "address",
                json!(a),
                json!(a.to_uppercase().replacen("0X", "0x", 1)),
                true,
            ),
            (
                "address",
                json!(a),
                json!("0x0000000000000000000000000000000000000000"),
                false,
            ),
            (
                "address[]",
                json!([a, a]),
                json!([a.to_lowercase(), a]),
                true,
            ),
            ("address[]", json!([a, a]), json!([a]), false),
            ("uint256[]", json!(["1", "2"]), json!([1, "0x2"]), true),
            (
                "(address,uint256)",
                json!([a, "7"]),
                json!({"to": a, "amount": 7}),
                true,
            ),
            ("(address,uint256)", json!([a, "7"]), json!([a, 8]), false),
            ("bool", json!(true), json!("true"), true),
            // The paper's data writes Python's spelling.
            ("bool", json!(true), json!("True"), true),
            ("bool", json!("True"), json!(true), true),
            ("bool", json!("False"), json!(false), true),
            ("bool", json!("True"), json!("true"), true),
            ("bool", json!(" FALSE "), json!("False"), true),
            ("bool", json!("True"), json!(false), false),
            ("bool", json!("False"), json!("True"), false),
            ("bool", json!(true), json!("yes"), false),
            ("bool", json!(true), json!(1), false),
            ("bytes", json!("0xABCD"), json!("0xabcd"), true),
            (
                "bytes32",
                json!(format!("0x{}", "11".repeat(32))),
                json!(format!("0x{}", "11".repeat(32))),
                true,
            ),
            ("string", json!("Hello"), json!("hello"), false),
            ("uint8", json!("1"), json!(1), true),
            ("uint8", json!("1"), json!(256), false),
            ("int24", json!("-5"), json!(-5), true),
            ("notatype", json!("X"), json!("x"), true),
        ];
        for (ty, t, p, want) in cases {
            assert_eq!(values_match(ty, &t, &p), want, "{ty} {t} {p}");
        }
    }

    #[test]
    fn canonical_types() {
        assert_eq!(canonical_type("uint"), "uint256");
        assert_eq!(canonical_type(" address [ ] "), "address[]");
        assert_eq!(canonical_type("(address, uint)"), "(address,uint256)");
        assert_eq!(canonical_type("Garbage"), "garbage");
    }

    #[test]
    fn fast_path_types_agree_with_the_parser() {
        for t in [
            "uint256",
            "uint",
            "uint8",
            "uint16",
            "address",
            "bool",
            "bytes",
            "bytes32",
            "string",
            "address[]",
            "uint256[]",
            "bytes[]",
        ] {
            assert_eq!(common_type(t), Some(DynSolType::parse(t).unwrap()), "{t}");
        }
        assert_eq!(common_type("uint24"), None);
    }

    #[test]
    fn coercion_errors_name_the_problem() {
        let t = parse_type("uint256").unwrap();
        let e = json_to_sol(&t, &json!("abc")).unwrap_err();
        assert!(
            e.contains("non-negative integer") && e.contains("abc"),
            "{e}"
        );
        let t = parse_type("address[]").unwrap();
        let e = json_to_sol(&t, &json!(["0x12"])).unwrap_err();
        assert!(e.starts_with("[0]:"), "{e}");
        assert!(parse_type("uint257").unwrap_err().contains("uint257"));
    }
}
