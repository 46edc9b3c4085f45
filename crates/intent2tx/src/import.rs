//! Importing datasets in the paper's instance format: a JSON array (or `{"instances": [...]}`, or
//! one object) or JSON Lines of `{intent, ground_truth (object or array), metadata}`.
//!
//! Every row is validated on its own: a bad row becomes a [`RowError`] naming the row, its line and
//! the field, and never aborts the import. A JSON array with a syntax error in one element still
//! yields the other elements (elements are split at top-level commas before parsing). Writing the
//! imported instances is atomic ([`write_jsonl`]): a temp file in the target directory, renamed
//! into place, so a failure leaves nothing behind.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use super::generate::Distribution;
use super::schema::{Call, Instance, Metadata, Param, Truth};
use super::value::{json_to_sol, parse_address, parse_eth_wei, parse_type};
use super::IntentError;

/// A row that could not be imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowError {
    /// 1-based row number (array element or non-blank line).
    pub row: usize,
    /// 1-based line where the row starts.
    pub line: usize,
    /// What is wrong, starting with the field path.
    pub message: String,
}

/// The outcome of an import.
#[derive(Debug, Clone, Serialize)]
pub struct ImportReport {
    /// `json` or `jsonl`.
    pub format: &'static str,
    /// Rows seen.
    pub rows: usize,
    /// The valid rows as instances.
    #[serde(skip)]
    pub instances: Vec<Instance>,
    /// One entry per rejected row.
    pub errors: Vec<RowError>,
}

impl ImportReport {
    /// The distribution of the imported instances.
    pub fn distribution(&self) -> Distribution {
        Distribution::of(&self.instances)
    }
}

/// Reads and imports a file; only an unreadable file is an error.
pub fn import_file(path: &Path) -> Result<ImportReport, IntentError> {
    let bytes = std::fs::read(path).map_err(|source| IntentError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(import_str(&text))
}

/// Imports text in any of the accepted layouts.
pub fn import_str(text: &str) -> ImportReport {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trimmed = text.trim_start();
    let offset_lines = text[..text.len() - trimmed.len()].matches('\n').count();
    let mut rows: Vec<(usize, Result<Value, String>)> = Vec::new();
    let format;
    if trimmed.starts_with('[') {
        format = "json";
        rows = split_array(trimmed, offset_lines + 1);
    } else if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(trimmed) {
        format = "json";
        match o.get("instances") {
            Some(Value::Array(items)) if o.len() == 1 => {
                rows = items
                    .iter()
                    .map(|v| (offset_lines + 1, Ok(v.clone())))
                    .collect();
            }
            _ => rows.push((offset_lines + 1, Ok(Value::Object(o)))),
        }
    } else {
        format = "jsonl";
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parsed =
                serde_json::from_str::<Value>(line).map_err(|e| format!("invalid JSON: {e}"));
            rows.push((i + 1, parsed));
        }
    }
    let mut instances = Vec::new();
    let mut errors = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let n = rows.len();
    for (idx, (line, parsed)) in rows.into_iter().enumerate() {
        let row = idx + 1;
        let result =
            parsed
                .and_then(|v| validate_row(&v, row))
                .and_then(|inst| match ids.get(&inst.id) {
                    Some(first) => Err(format!("id: {:?} duplicates row {first}", inst.id)),
                    None => {
                        ids.insert(inst.id.clone(), row);
                        Ok(inst)
                    }
                });
        match result {
            Ok(inst) => instances.push(inst),
            Err(message) => errors.push(RowError { row, line, message }),
        }
    }
    tracing::debug!(target: "intent::import", rows = n, imported = instances.len(), rejected = errors.len(), "imported");
    ImportReport {
        format,
        rows: n,
        instances,
        errors,
    }
}

/// Splits a JSON array into its top-level elements (with their start lines) and parses each.
fn split_array(text: &str, first_line: usize) -> Vec<(usize, Result<Value, String>)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut start = 1usize;
    let mut line = first_line;
    let mut start_line = first_line;
    let mut closed = false;
    let mut i = 1usize;
    let push = |out: &mut Vec<(usize, Result<Value, String>)>,
                s: usize,
                e: usize,
                l: usize,
                last: bool| {
        let elem = &text[s..e];
        if elem.trim().is_empty() {
            if !last {
                out.push((l, Err("empty array element".to_string())));
            }
            return;
        }
        out.push((
            l,
            serde_json::from_str::<Value>(elem.trim()).map_err(|e| format!("invalid JSON: {e}")),
        ));
    };
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
        }
        if in_str {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => depth -= 1,
            b']' => {
                push(&mut out, start, i, start_line, true);
                closed = true;
                break;
            }
            b',' if depth == 0 => {
                push(&mut out, start, i, start_line, false);
                start = i + 1;
                start_line = line
                    + text[start..]
                        .chars()
                        .take_while(|c| c.is_whitespace())
                        .filter(|c| *c == '\n')
                        .count();
            }
            _ => {}
        }
        i += 1;
    }
    if !closed {
        push(
            &mut out,
            start.min(text.len()),
            text.len(),
            start_line,
            true,
        );
        out.push((line, Err("array is not closed with ]".to_string())));
    }
    out
}

fn field_str<'a>(o: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a str, String> {
    match o.get(key) {
        None | Some(Value::Null) => Err(format!("{path}{key}: missing")),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
        Some(Value::String(_)) => Err(format!("{path}{key}: empty")),
        Some(other) => Err(format!(
            "{path}{key}: expected a string, got {}",
            short(other)
        )),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// Validates one call; `path` is the field prefix used in messages, e.g. `ground_truth[1].`.
pub(crate) fn validate_call(v: &Value, path: &str) -> Result<Call, String> {
    let o = v.as_object().ok_or_else(|| {
        format!(
            "{}: expected an object, got {}",
            path.trim_end_matches('.'),
            short(v)
        )
    })?;
    let contract = field_str(o, "contract", path)?.to_string();
    let address = field_str(o, "contract_address", path)?;
    parse_address(&Value::String(address.to_string()))
        .ok_or_else(|| format!("{path}contract_address: bad address {address:?}"))?;
    let function = field_str(o, "function", path)?.to_string();
    let params = match o.get("params") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(p)) => p
            .iter()
            .map(|(name, entry)| {
                let at = format!("{path}params.{name}");
                let e = entry
                    .as_object()
                    .ok_or_else(|| format!("{at}: expected {{type, val}}, got {}", short(entry)))?;
                let ty = match e.get("type") {
                    Some(Value::String(t)) => t.clone(),
                    _ => return Err(format!("{at}.type: missing or not a string")),
                };
                let val = e.get("val").ok_or_else(|| format!("{at}.val: missing"))?;
                let parsed = parse_type(&ty).map_err(|m| format!("{at}.type: {m}"))?;
                json_to_sol(&parsed, val).map_err(|m| format!("{at}.val: {m}"))?;
                Ok((
                    name.clone(),
                    Param {
                        ty,
                        val: val.clone(),
                    },
                ))
            })
            .collect::<Result<Vec<_>, String>>()?,
        Some(other) => {
            return Err(format!(
                "{path}params: expected an object, got {}",
                short(other)
            ))
        }
    };
    let value = match o.get("value") {
        None | Some(Value::Null) => {
            return Err(format!("{path}value: missing (ETH amount; 0 for none)"))
        }
        Some(v) => {
            parse_eth_wei(v).ok_or_else(|| {
                format!("{path}value: expected a non-negative ETH amount with at most 18 decimals, got {}", short(v))
            })?;
            match v {
                Value::String(s) => serde_json::from_str::<Value>(s.trim())
                    .ok()
                    .filter(Value::is_number)
                    .unwrap_or_else(|| v.clone()),
                _ => v.clone(),
            }
        }
    };
    Ok(Call {
        contract,
        contract_address: address.to_string(),
        function,
        params,
        value,
    })
}

/// Validates one row into an instance.
pub(crate) fn validate_row(v: &Value, row: usize) -> Result<Instance, String> {
    let o = v
        .as_object()
        .ok_or_else(|| format!("row: expected a JSON object, got {}", short(v)))?;
    if !o.contains_key("intent") && o.contains_key("input") && o.contains_key("output") {
        return validate_row(&from_released(o)?, row);
    }
    let intent = field_str(o, "intent", "")?.to_string();
    let ground_truth = match o.get("ground_truth") {
        None | Some(Value::Null) => return Err("ground_truth: missing".into()),
        Some(obj @ Value::Object(_)) => Truth::Single(validate_call(obj, "ground_truth.")?),
        Some(Value::Array(items)) if !items.is_empty() => Truth::Multi(
            items
                .iter()
                .enumerate()
                .map(|(i, c)| validate_call(c, &format!("ground_truth[{i}].")))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(other) => {
            return Err(format!(
                "ground_truth: expected an object or a non-empty array of calls, got {}",
                short(other)
            ))
        }
    };
    let metadata = match o.get("metadata") {
        None | Some(Value::Null) => Metadata {
            category: "Other".into(),
            ..Default::default()
        },
        Some(Value::Object(m)) => {
            let mut extra = m.clone();
            let category = match extra.remove("category") {
                None | Some(Value::Null) => "Other".to_string(),
                Some(Value::String(s)) if !s.trim().is_empty() => s,
                Some(other) => {
                    return Err(format!(
                        "metadata.category: expected a string, got {}",
                        short(&other)
                    ))
                }
            };
            let sub_category = match extra.remove("sub_category") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s),
                Some(other) => {
                    return Err(format!(
                        "metadata.sub_category: expected a string, got {}",
                        short(&other)
                    ))
                }
            };
            let sender = match extra.remove("sender") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => {
                    parse_address(&Value::String(s.clone()))
                        .ok_or_else(|| format!("metadata.sender: bad address {s:?}"))?;
                    Some(s)
                }
                Some(other) => {
                    return Err(format!(
                        "metadata.sender: expected an address string, got {}",
                        short(&other)
                    ))
                }
            };
            Metadata {
                category,
                sub_category,
                sender,
                extra,
            }
        }
        Some(other) => {
            return Err(format!(
                "metadata: expected an object, got {}",
                short(other)
            ))
        }
    };
    let id = match o.get("id") {
        None | Some(Value::Null) => format!("row-{row}"),
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => {
            return Err(format!(
                "id: expected a string or number, got {}",
                short(other)
            ))
        }
    };
    Ok(Instance {
        id,
        intent,
        ground_truth,
        metadata,
    })
}

/// One instance from JSON text (the studio's editor): `Err((field, message))` names the field
/// (`ground_truth.params.to.val`) where one is at fault, else an empty field.
pub fn parse_instance(text: &str) -> Result<Instance, (String, String)> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| (String::new(), format!("invalid JSON: {e}")))?;
    validate_row(&v, 1).map_err(|m| {
        let field = m.split_once(':').map(|(f, _)| f.trim()).unwrap_or("");
        let field = if field.contains(' ') { "" } else { field };
        (field.to_string(), m)
    })
}

/// A row as the paper's released data writes it (`{instruction, input, output, primary_category,
/// sub_category, id}`: the intent in `input` after "User intent:", the ground truth as JSON text in
/// `output`, Python's `True`/`False`/`None` where JSON has `true`/`false`/`null`) in the instance
/// format. An `id` that is the intent text itself becomes `intent-<12 hex of its SHA-256>`.
fn from_released(o: &Map<String, Value>) -> Result<Value, String> {
    let input = field_str(o, "input", "")?;
    let intent = input
        .trim()
        .strip_prefix("User intent:")
        .unwrap_or(input)
        .trim()
        .to_string();
    let output = field_str(o, "output", "")?;
    let truth: Value = serde_json::from_str(output.trim())
        .or_else(|_| serde_json::from_str(&python_literals(output.trim())))
        .map_err(|e| format!("output: not a JSON call or array of calls ({e})"))?;
    let mut meta = Map::new();
    for (from, to) in [
        ("primary_category", "category"),
        ("sub_category", "sub_category"),
    ] {
        if let Some(v) = o.get(from).filter(|v| !v.is_null()) {
            meta.insert(to.to_string(), v.clone());
        }
    }
    let id = match o.get("id") {
        Some(Value::String(s)) if s.trim() != input.trim() && !s.contains('\n') => {
            Value::String(s.clone())
        }
        Some(Value::Number(n)) => Value::Number(n.clone()),
        _ => {
            use sha2::Digest;
            let d = sha2::Sha256::digest(input.trim().as_bytes());
            Value::String(format!("intent-{}", &hex::encode(d)[..12]))
        }
    };
    Ok(serde_json::json!({
        "id": id,
        "intent": intent,
        "ground_truth": truth,
        "metadata": meta,
    }))
}

/// Python literal syntax to JSON: bare `True`/`False`/`None` outside strings become
/// `true`/`false`/`null`, single-quoted strings become double-quoted ones.
fn python_literals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' {
            let quote = c;
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != quote {
                match chars[i] {
                    '\\' if i + 1 < chars.len() => {
                        if chars[i + 1] == '\'' {
                            out.push('\'');
                        } else {
                            out.push('\\');
                            out.push(chars[i + 1]);
                        }
                        i += 2;
                        continue;
                    }
                    '"' => out.push_str("\\\""),
                    ch => out.push(ch),
                }
                i += 1;
            }
            out.push('"');
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push_str(match word.as_str() {
                "True" => "true",
                "False" => "false",
                "None" => "null",
                w => w,
            });
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Writes instances as JSON Lines, atomically and durably ([`crucible_core::durable::write_file`]):
/// all or nothing.
pub fn write_jsonl(path: &Path, instances: &[Instance]) -> Result<(), IntentError> {
    let io = |source| IntentError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut text = Vec::new();
    for inst in instances {
        serde_json::to_writer(&mut text, inst)?;
        text.push(b'\n');
    }
    crucible_core::durable::write_file(path, &text).map_err(io)
}

/// Reads a JSON Lines dataset written by [`write_jsonl`] (or any importable file), failing on the
/// first bad row: for shipped datasets, which must be clean.
pub fn load_clean(path: &Path) -> Result<Vec<Instance>, IntentError> {
    let report = import_file(path)?;
    if let Some(e) = report.errors.first() {
        return Err(IntentError::InvalidOption(format!(
            "{}: row {} (line {}): {}",
            path.display(),
            e.row,
            e.line,
            e.message
        )));
    }
    Ok(report.instances)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn released_rows_import_with_python_booleans() {
        let call = r#"{'contract': 'BAYC', 'contract_address': '0xBC4CA0EdA7647A8aB7C2061c2E118A18a936f13D', 'function': 'setApprovalForAll', 'params': {'operator': {'type': 'address', 'val': '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'}, 'approved': {'type': 'bool', 'val': True}}, 'value': 0.0}"#;
        let json_call = r#"{"contract": "USDC", "contract_address": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "function": "approve", "params": {"spender": {"type": "address", "val": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}, "ok": {"type": "bool", "val": "False"}}, "value": 0.0}"#;
        let rows = [
            json!({"instruction": "You are…", "input": "User intent:\nLet the operator manage all my apes", "output": call, "primary_category": "NFT", "sub_category": "Approval", "id": "User intent:\nLet the operator manage all my apes"}),
            json!({"instruction": "You are…", "input": "User intent:\nApprove", "output": json_call, "primary_category": "TokenLifecycle", "id": "r2"}),
            json!({"instruction": "You are…", "input": "User intent:\nBroken", "output": "{'contract': "}),
        ];
        let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
        let r = import_str(&text);
        assert_eq!(r.instances.len(), 2, "{:?}", r.errors);
        let a = &r.instances[0];
        assert_eq!(a.intent, "Let the operator manage all my apes");
        assert!(a.id.starts_with("intent-") && a.id.len() == 19, "{}", a.id);
        assert_eq!(a.metadata.category, "NFT");
        assert_eq!(a.metadata.sub_category.as_deref(), Some("Approval"));
        let p = &a.ground_truth.steps()[0].params;
        assert_eq!(
            p.iter().find(|(n, _)| n == "approved").unwrap().1.val,
            json!(true)
        );
        assert_eq!(r.instances[1].id, "r2");
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].row, 3);
        assert!(
            r.errors[0].message.starts_with("output:"),
            "{}",
            r.errors[0].message
        );
        // The same import twice gives the same ids.
        assert_eq!(import_str(&text).instances[0].id, a.id);
    }

    fn good_row(id: &str) -> Value {
        json!({
            "id": id,
            "intent": "Send 1 USDC to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
            "ground_truth": {
                "contract": "USDC", "contract_address": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
                "function": "transfer",
                "params": {"to": {"type": "address", "val": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
                           "value": {"type": "uint256", "val": "1000000"}},
                "value": 0
            },
            "metadata": {"category": "Transfer", "tx_hash": "0xabc", "block": 19000000}
        })
    }

    #[test]
    fn row_errors_name_the_field() {
        let mut cases: Vec<(Value, &str)> = Vec::new();
        let mut r = good_row("a");
        r.as_object_mut().unwrap().remove("intent");
        cases.push((r, "intent: missing"));
        let mut r = good_row("a");
        r["intent"] = json!("  ");
        cases.push((r, "intent: empty"));
        let mut r = good_row("a");
        r["ground_truth"] = json!("transfer");
        cases.push((r, "ground_truth: expected an object or a non-empty array"));
        let mut r = good_row("a");
        r["ground_truth"] = json!([]);
        cases.push((r, "ground_truth: expected an object or a non-empty array"));
        let mut r = good_row("a");
        r["ground_truth"]["contract_address"] = json!("0x12");
        cases.push((r, "ground_truth.contract_address: bad address \"0x12\""));
        let mut r = good_row("a");
        r["ground_truth"]["params"]["value"]["type"] = json!("uint257");
        cases.push((
            r,
            "ground_truth.params.value.type: unknown solidity type \"uint257\"",
        ));
        let mut r = good_row("a");
        r["ground_truth"]["params"]["value"]["val"] = json!("1.5");
        cases.push((
            r,
            "ground_truth.params.value.val: expected a non-negative integer",
        ));
        let mut r = good_row("a");
        r["ground_truth"]["params"]["to"] = json!("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
        cases.push((r, "ground_truth.params.to: expected {type, val}"));
        let mut r = good_row("a");
        r["ground_truth"]["value"] = json!(-1);
        cases.push((r, "ground_truth.value: expected a non-negative ETH amount"));
        let mut r = good_row("a");
        r["ground_truth"].as_object_mut().unwrap().remove("value");
        cases.push((r, "ground_truth.value: missing"));
        let mut r = good_row("a");
        r["ground_truth"] = json!([good_row("x")["ground_truth"], {"contract": "X"}]);
        cases.push((r, "ground_truth[1].contract_address: missing"));
        let mut r = good_row("a");
        r["metadata"] = json!("Transfer");
        cases.push((r, "metadata: expected an object"));
        let mut r = good_row("a");
        r["metadata"]["sender"] = json!("me");
        cases.push((r, "metadata.sender: bad address \"me\""));
        cases.push((json!([1, 2]), "row: expected a JSON object"));
        for (row, want) in cases {
            let e = validate_row(&row, 1).unwrap_err();
            assert!(e.starts_with(want), "{e:?} should start with {want:?}");
        }
    }

    #[test]
    fn good_rows_keep_metadata_and_normalise_value() {
        let mut r = good_row("a");
        r["ground_truth"]["value"] = json!("0.5");
        let inst = validate_row(&r, 3).unwrap();
        assert_eq!(inst.ground_truth.steps()[0].value, json!(0.5));
        assert_eq!(inst.metadata.category, "Transfer");
        assert_eq!(inst.metadata.extra["block"], json!(19000000));
        let mut r = good_row("a");
        r.as_object_mut().unwrap().remove("id");
        assert_eq!(validate_row(&r, 3).unwrap().id, "row-3");
    }

    #[test]
    fn layouts_and_duplicate_ids() {
        let a = good_row("a").to_string();
        let b = good_row("b").to_string();
        let jsonl = format!("{a}\n\n{b}\n{a}\n");
        let r = import_str(&jsonl);
        assert_eq!((r.format, r.rows, r.instances.len()), ("jsonl", 3, 2));
        assert_eq!(
            r.errors,
            vec![RowError {
                row: 3,
                line: 4,
                message: "id: \"a\" duplicates row 1".into()
            }]
        );
        let r = import_str(&format!("[{a},\n{b}]"));
        assert_eq!(
            (r.format, r.rows, r.instances.len(), r.errors.len()),
            ("json", 2, 2, 0)
        );
        let r = import_str(&format!("{{\"instances\": [{a}, {b}]}}"));
        assert_eq!((r.rows, r.instances.len()), (2, 2));
        let r = import_str(&a);
        assert_eq!((r.format, r.rows, r.instances.len()), ("json", 1, 1));
        let r = import_str(&format!("\u{feff}[{a},\n {{\"intent\": oops}},\n{b}]"));
        assert_eq!((r.rows, r.instances.len()), (3, 2));
        assert_eq!(r.errors[0].row, 2);
        assert_eq!(r.errors[0].line, 2);
        assert!(r.errors[0].message.starts_with("invalid JSON"));
        let r = import_str(&format!("[{a},\n{b}"));
        assert_eq!(r.instances.len(), 2);
        assert_eq!(
            r.errors.last().unwrap().message,
            "array is not closed with ]"
        );
        let r = import_str("");
        assert_eq!((r.rows, r.instances.len()), (0, 0));
    }

    #[test]
    fn write_is_atomic_and_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.jsonl");
        let inst = validate_row(&good_row("a"), 1).unwrap();
        write_jsonl(&p, std::slice::from_ref(&inst)).unwrap();
        assert_eq!(load_clean(&p).unwrap(), vec![inst.clone()]);
        let missing = dir.path().join("no/such/dir/out.jsonl");
        assert!(write_jsonl(&missing, &[inst]).is_err());
        assert!(!missing.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
