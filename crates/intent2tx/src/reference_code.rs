//! The Intent2Tx repository's scorer (`experiment/score/static_score_single_multi.py` in
//! Argithun/Intent2Tx_Bench, the code behind the paper's published tables), reproduced comparison
//! by comparison for [`MetricMode::ReferenceCode`](crate::metrics::MetricMode).
//!
//! That scorer works on Python values: it cuts the answer from its first `{` or `[` to its last `}`
//! or `]`, reads the cut with `json.loads`, and compares every field as
//! `str(x).strip().lower()`. This module models exactly those pieces: [`Py`] is what `json.loads`
//! returns, [`loads`] parses as it does (exact integers, `NaN`/`Infinity`, the last duplicate key
//! wins), [`py_str`] prints as `str()` does (`0.0` → `0.0`, `True`, lists as `['a', 1]`), and
//! [`py_dict`] converts as `dict()` does. The scoring on top follows the reference's branches,
//! including where it raises and its bare `except` scores zero.
//!
//! It must not use Crucible's value rules ([`crate::value`]): the differences between the two
//! modes are the point (docs/intent2tx.md lists them). Written from a reading of the reference,
//! not translated from it.

use serde_json::Value;

use super::metrics::{aggregate, KeyScore, Scores, StepScores, VALUE_ETH};
use super::parse::Repair;
use super::schema::{Call, Truth};

/// The parameter name the reference scores the ETH `value` under.
const ETH_KEY: &str = "__eth_value__";

/// Python (3.11+) refuses to read an integer of more digits than this from text; `json.loads`
/// then raises and the reference scores the answer as unparseable.
const INT_DIGITS_LIMIT: usize = 4300;

/// Nesting at which Python's `json.loads` stops with a RecursionError (approximately: the exact
/// depth depends on the interpreter version and its stack).
const MAX_DEPTH: usize = 990;

/// A value as Python's `json.loads` returns it (and `dict()` may build from it).
#[derive(Debug, Clone, PartialEq)]
enum Py {
    None,
    Bool(bool),
    /// An exact integer in decimal, `-` for negatives, never `-0`.
    Int(String),
    Float(f64),
    Str(String),
    List(Vec<Py>),
    /// Keys in insertion order; JSON gives strings, `dict()` of pairs may give other hashables.
    Dict(Vec<(Py, Py)>),
}

impl Py {
    fn s(text: &str) -> Py {
        Py::Str(text.to_string())
    }

    /// `obj.get(key)` for a dict (`None` when the key is missing, or `obj` is not a dict).
    fn get(&self, key: &str) -> Option<&Py> {
        match self {
            Py::Dict(pairs) => pairs
                .iter()
                .find(|(k, _)| matches!(k, Py::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// json.loads
// ---------------------------------------------------------------------------------------------

/// Parses `text` as Python's `json.loads` does; `None` where it raises.
fn loads(text: &str) -> Option<Py> {
    let mut p = Loader {
        s: text,
        b: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    (p.i == p.b.len()).then_some(v)
}

struct Loader<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    depth: usize,
}

impl Loader<'_> {
    /// JSON whitespace only (Python's decoder skips exactly these four).
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, word: &str) -> bool {
        if self.b[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Option<Py> {
        match *self.b.get(self.i)? {
            b'"' => self.string().map(Py::Str),
            b'{' => self.nested(Self::object),
            b'[' => self.nested(Self::array),
            b'n' if self.eat("null") => Some(Py::None),
            b't' if self.eat("true") => Some(Py::Bool(true)),
            b'f' if self.eat("false") => Some(Py::Bool(false)),
            _ => {
                if let Some(n) = self.number() {
                    return n;
                }
                if self.eat("NaN") {
                    Some(Py::Float(f64::NAN))
                } else if self.eat("Infinity") {
                    Some(Py::Float(f64::INFINITY))
                } else if self.eat("-Infinity") {
                    Some(Py::Float(f64::NEG_INFINITY))
                } else {
                    None
                }
            }
        }
    }

    fn nested(&mut self, f: fn(&mut Self) -> Option<Py>) -> Option<Py> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn digits(&self, from: usize) -> usize {
        self.b[from..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    }

    /// `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?` at the cursor: `None` when it does not match,
    /// `Some(None)` when it matches but Python raises reading it.
    fn number(&mut self) -> Option<Option<Py>> {
        let start = self.i;
        let mut j = start;
        if self.b.get(j) == Some(&b'-') {
            j += 1;
        }
        match self.b.get(j) {
            Some(b'0') => j += 1,
            Some(b'1'..=b'9') => j += self.digits(j),
            _ => return None,
        }
        let int_end = j;
        let mut float = false;
        if self.b.get(j) == Some(&b'.') && self.digits(j + 1) > 0 {
            j += 1 + self.digits(j + 1);
            float = true;
        }
        if matches!(self.b.get(j), Some(b'e' | b'E')) {
            let mut k = j + 1;
            if matches!(self.b.get(k), Some(b'+' | b'-')) {
                k += 1;
            }
            if self.digits(k) > 0 {
                j = k + self.digits(k);
                float = true;
            }
        }
        self.i = j;
        let text = &self.s[start..j];
        if float {
            return Some(text.parse::<f64>().ok().map(Py::Float));
        }
        let magnitude = self.s[start..int_end].trim_start_matches('-');
        if magnitude.len() > INT_DIGITS_LIMIT {
            return Some(None);
        }
        Some(Some(Py::Int(if magnitude == "0" {
            "0".into()
        } else {
            text.to_string()
        })))
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let h = self.s.get(at..at + 4)?;
        if !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(h, 16).ok()
    }

    /// A string body after its opening quote; control characters are errors (strict mode). A
    /// lone surrogate escape, which a Rust string cannot hold, becomes U+FFFD.
    fn string(&mut self) -> Option<String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let run = self.b[self.i..]
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
            out.push_str(&self.s[self.i..self.i + run]);
            self.i += run;
            match self.b[self.i] {
                b'"' => {
                    self.i += 1;
                    return Some(out);
                }
                b'\\' => {
                    let esc = *self.b.get(self.i + 1)?;
                    self.i += 2;
                    let c = match esc {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let u = self.hex4(self.i)?;
                            self.i += 4;
                            if (0xd800..0xdc00).contains(&u) && self.s[self.i..].starts_with("\\u")
                            {
                                match self.hex4(self.i + 2) {
                                    Some(lo) if (0xdc00..0xe000).contains(&lo) => {
                                        self.i += 6;
                                        let cp = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                                        char::from_u32(cp).unwrap_or('\u{fffd}')
                                    }
                                    _ => '\u{fffd}',
                                }
                            } else {
                                char::from_u32(u).unwrap_or('\u{fffd}')
                            }
                        }
                        _ => return None,
                    };
                    out.push(c);
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self) -> Option<Py> {
        self.i += 1;
        let mut pairs: Vec<(Py, Py)> = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Some(Py::Dict(pairs));
        }
        loop {
            if self.b.get(self.i) != Some(&b'"') {
                return None;
            }
            let key = self.string()?;
            self.ws();
            if self.b.get(self.i) != Some(&b':') {
                return None;
            }
            self.i += 1;
            self.ws();
            let v = self.value()?;
            insert(&mut pairs, Py::Str(key), v).ok()?;
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => {
                    self.i += 1;
                    self.ws();
                }
                Some(b'}') => {
                    self.i += 1;
                    return Some(Py::Dict(pairs));
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self) -> Option<Py> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Some(Py::List(items));
        }
        loop {
            items.push(self.value()?);
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => {
                    self.i += 1;
                    self.ws();
                }
                Some(b']') => {
                    self.i += 1;
                    return Some(Py::List(items));
                }
                _ => return None,
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// dict keys and dict()
// ---------------------------------------------------------------------------------------------

/// A hashable number as Python compares dict keys (`True == 1 == 1.0`); `None` for non-numbers.
fn numeric_key(v: &Py) -> Option<String> {
    match v {
        Py::Bool(b) => Some(if *b { "1" } else { "0" }.into()),
        Py::Int(s) => Some(s.clone()),
        Py::Float(f) if *f == 0.0 => Some("0".into()),
        Py::Float(f) if f.is_finite() && f.fract() == 0.0 => Some(format!("{f:.0}")),
        // Non-integral, infinite and NaN (json.loads returns one shared NaN object, so NaN keys
        // are the same key): the repr is unique per value.
        Py::Float(f) => Some(float_repr(*f)),
        _ => None,
    }
}

fn key_eq(a: &Py, b: &Py) -> bool {
    match (a, b) {
        (Py::Str(x), Py::Str(y)) => x == y,
        (Py::None, Py::None) => true,
        _ => matches!((numeric_key(a), numeric_key(b)), (Some(x), Some(y)) if x == y),
    }
}

/// `d[key] = value`: an existing equal key keeps its place and its first spelling.
fn insert(d: &mut Vec<(Py, Py)>, key: Py, value: Py) -> Result<(), &'static str> {
    if matches!(key, Py::List(_) | Py::Dict(_)) {
        return Err("a key is a list or an object (unhashable)");
    }
    match d.iter_mut().find(|(k, _)| key_eq(k, &key)) {
        Some(slot) => slot.1 = value,
        None => d.push((key, value)),
    }
    Ok(())
}

/// Python's `dict(v)`: a dict is copied; a list must hold pairs (two-element lists, two-character
/// strings, two-key objects); the empty string is `{}`; anything else raises.
fn py_dict(v: &Py) -> Result<Vec<(Py, Py)>, &'static str> {
    let items = match v {
        Py::Dict(pairs) => return Ok(pairs.clone()),
        Py::Str(s) if s.is_empty() => return Ok(Vec::new()),
        Py::List(items) => items,
        _ => return Err("not an object or a list of pairs"),
    };
    let mut out = Vec::new();
    for item in items {
        let (k, v) = match item {
            Py::List(e) if e.len() == 2 => (e[0].clone(), e[1].clone()),
            Py::Str(s) if s.chars().count() == 2 => {
                let mut c = s.chars().map(|c| Py::Str(c.to_string()));
                (c.next().unwrap_or(Py::None), c.next().unwrap_or(Py::None))
            }
            Py::Dict(p) if p.len() == 2 => (p[0].0.clone(), p[1].0.clone()),
            _ => return Err("a list element is not a pair"),
        };
        insert(&mut out, k, v)?;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// str() and repr()
// ---------------------------------------------------------------------------------------------

/// Python's `str(v)`.
fn py_str(v: &Py) -> String {
    match v {
        Py::Str(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr(v)` (containers print their elements with it).
fn py_repr(v: &Py) -> String {
    match v {
        Py::None => "None".into(),
        Py::Bool(true) => "True".into(),
        Py::Bool(false) => "False".into(),
        Py::Int(s) => s.clone(),
        Py::Float(f) => float_repr(*f),
        Py::Str(s) => str_repr(s),
        Py::List(items) => {
            let inner: Vec<String> = items.iter().map(py_repr).collect();
            format!("[{}]", inner.join(", "))
        }
        Py::Dict(pairs) => {
            let inner: Vec<String> = pairs
                .iter()
                .map(|(k, v)| format!("{}: {}", py_repr(k), py_repr(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// `repr(float)`: the shortest digits that read back to the same double (Rust's `{:e}` gives the
/// same digits), positional for decimal exponents -4 ≤ e < 16, else `d.ddde±XX`.
fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let point = exp + 1; // digits before the decimal point
    let body = if -4 < point && point <= 16 {
        if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            let (a, b) = digits.split_at(point as usize);
            format!("{a}.{b}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let m = if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first}.{rest}")
        };
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    };
    if negative {
        format!("-{body}")
    } else {
        body
    }
}

/// `repr(str)`: single quotes unless the text has `'` and no `"`; backslash escapes for the
/// quote, `\`, tab, newline, return and unprintable characters.
fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        let u = c as u32;
        match c {
            _ if c == quote || c == '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ if u < 0x20 || u == 0x7f => out.push_str(&format!("\\x{u:02x}")),
            _ if u < 0x7f || printable(c) => out.push(c),
            _ if u <= 0xff => out.push_str(&format!("\\x{u:02x}")),
            _ if u <= 0xffff => out.push_str(&format!("\\u{u:04x}")),
            _ => out.push_str(&format!("\\U{u:08x}")),
        }
    }
    out.push(quote);
    out
}

/// Python's `str.isprintable` for a non-ASCII character: not a control, format, separator,
/// private-use or non-character code point. Unassigned code points (which Python also escapes)
/// are not known here and print as themselves.
fn printable(c: char) -> bool {
    let u = c as u32;
    let not = c.is_control()
        || matches!(
            u,
            0xa0 | 0x1680 | 0x2000..=0x200a | 0x202f | 0x205f | 0x3000
        )
        || matches!(u, 0x2028 | 0x2029)
        || matches!(
            u,
            0xad | 0x600..=0x605
                | 0x61c
                | 0x6dd
                | 0x70f
                | 0x890..=0x891
                | 0x8e2
                | 0x180e
                | 0x200b..=0x200f
                | 0x202a..=0x202e
                | 0x2060..=0x2064
                | 0x2066..=0x206f
                | 0xfeff
                | 0xfff9..=0xfffb
                | 0x110bd
                | 0x110cd
                | 0x13430..=0x1343f
                | 0x1bca0..=0x1bca3
                | 0x1d173..=0x1d17a
                | 0xe0001
                | 0xe0020..=0xe007f
        )
        || matches!(u, 0xe000..=0xf8ff | 0xf0000..=0xffffd | 0x100000..=0x10fffd)
        || matches!(u, 0xfdd0..=0xfdef)
        || (u & 0xfffe) == 0xfffe;
    !not
}

/// The reference's `normalize`: `str(v).strip().lower()`, a missing value being `None`.
fn normalize(v: Option<&Py>) -> String {
    let s = py_str(v.unwrap_or(&Py::None));
    // str.strip() also strips the information separators U+001C..U+001F.
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
        .to_lowercase()
}

// ---------------------------------------------------------------------------------------------
// Crucible's types as the reference sees them
// ---------------------------------------------------------------------------------------------

fn json_to_py(v: &Value) -> Py {
    match v {
        Value::Null => Py::None,
        Value::Bool(b) => Py::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Py::Int(u.to_string()),
            (None, Some(i)) => Py::Int(i.to_string()),
            _ => Py::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Py::s(s),
        Value::Array(a) => Py::List(a.iter().map(json_to_py).collect()),
        Value::Object(o) => Py::Dict(o.iter().map(|(k, v)| (Py::s(k), json_to_py(v))).collect()),
    }
}

/// The ground truth as the authors' release writes it in a demonstration (`Example Output:`):
/// a single-step output is the dataset's `json.dumps(call, ensure_ascii=False)` string, a
/// multi-step output is the list the dataset holds, printed by an f-string, i.e. Python's
/// `repr`. Both carry `value` as a float (the release's `float(value)`).
pub(crate) fn release_output(truth: &crate::schema::Truth) -> String {
    let as_release = |c: &Call| {
        let mut py = call_to_py(c);
        if let Py::Dict(fields) = &mut py {
            let eth = c.value.as_f64().unwrap_or(0.0);
            if let Some(slot) = fields.iter_mut().find(|(k, _)| *k == Py::s("value")) {
                slot.1 = Py::Float(eth);
            }
        }
        py
    };
    match truth {
        crate::schema::Truth::Single(c) => json_dumps(&as_release(c)),
        crate::schema::Truth::Multi(steps) => {
            py_repr(&Py::List(steps.iter().map(as_release).collect()))
        }
    }
}

/// Python's `json.dumps(v, ensure_ascii=False)` with its default separators (`", "`, `": "`).
fn json_dumps(v: &Py) -> String {
    match v {
        Py::None => "null".into(),
        Py::Bool(b) => b.to_string(),
        Py::Int(s) => s.clone(),
        Py::Float(f) if f.is_nan() => "NaN".into(),
        Py::Float(f) if f.is_infinite() => {
            if *f > 0.0 {
                "Infinity".into()
            } else {
                "-Infinity".into()
            }
        }
        Py::Float(f) => float_repr(*f),
        Py::Str(s) => serde_json::to_string(s).unwrap_or_default(),
        Py::List(items) => {
            let inner: Vec<String> = items.iter().map(json_dumps).collect();
            format!("[{}]", inner.join(", "))
        }
        Py::Dict(pairs) => {
            let inner: Vec<String> = pairs
                .iter()
                .map(|(k, v)| format!("{}: {}", json_dumps(&Py::s(&py_str(k))), json_dumps(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// A ground-truth call as the dataset line the reference reads would hold it.
fn call_to_py(c: &Call) -> Py {
    let params = c
        .params
        .iter()
        .map(|(name, p)| {
            let entry = Py::Dict(vec![
                (Py::s("type"), Py::s(&p.ty)),
                (Py::s("val"), json_to_py(&p.val)),
            ]);
            (Py::s(name), entry)
        })
        .collect();
    Py::Dict(vec![
        (Py::s("contract"), Py::s(&c.contract)),
        (Py::s("contract_address"), Py::s(&c.contract_address)),
        (Py::s("function"), Py::s(&c.function)),
        (Py::s("params"), Py::Dict(params)),
        (Py::s("value"), json_to_py(&c.value)),
    ])
}

/// The reference's answer reading: from the first `{`/`[` to the last `}`/`]`, backticks, newlines
/// and spaces stripped from the ends, then `json.loads`; `None` where it gives up. The text
/// dropped around the cut is reported as repairs.
fn extract(text: &str) -> Option<(Py, Vec<Repair>)> {
    let start = text.find(['{', '['])?;
    let end = text.rfind(['}', ']'])?;
    if end <= start {
        return None;
    }
    let cut = text[start..=end].trim_matches(|c| c == '`' || c == '\n' || c == ' ');
    let v = loads(cut)?;
    let mut repairs = Vec::new();
    if !text[..start].trim().is_empty() {
        repairs.push(Repair::DroppedLeadingText);
    }
    if !text[end + 1..].trim().is_empty() {
        repairs.push(Repair::DroppedTrailingText);
    }
    Some((v, repairs))
}

// ---------------------------------------------------------------------------------------------
// Scoring
// ---------------------------------------------------------------------------------------------

/// Scores `text` against `truth` as the reference scorer does.
pub(crate) fn score(truth: &Truth, text: &str) -> Scores {
    let (pred, mut repairs) = match extract(text) {
        Some((p, r)) => (Some(p), r),
        None => (None, Vec::new()),
    };
    // Multi-step: a list is the steps, anything else is the first step; single-step: the value
    // itself is the step (a list there is not a dict and scores zero).
    let preds: Vec<Py> = match (truth.is_multi(), pred) {
        (_, None) => Vec::new(),
        (true, Some(Py::List(items))) => items,
        (true, Some(other)) => {
            if matches!(other, Py::Dict(_)) {
                repairs.push(Repair::WrappedObjectInArray);
            }
            vec![other]
        }
        (false, Some(p)) => vec![p],
    };
    let steps = truth
        .steps()
        .iter()
        .enumerate()
        .map(|(t, g)| score_step(&call_to_py(g), preds.get(t)))
        .collect();
    aggregate(steps, repairs)
}

fn score_step(g: &Py, p: Option<&Py>) -> StepScores {
    let p = match p {
        Some(p @ Py::Dict(_)) => p,
        other => return zero_step(g, other.is_some()),
    };
    let same = |field: &str| normalize(g.get(field)) == normalize(p.get(field));
    let address_ok = same("contract_address");
    let function_ok = same("function");
    let contract_ok = same("contract");
    let logic_tenths = 4 * address_ok as u32 + 4 * function_ok as u32 + 2 * contract_ok as u32;
    let prm = param_score(g, p);
    let pass = address_ok && function_ok && prm.perfect;
    let logic = logic_tenths as f64 / 10.0;
    let pass_f = if pass { 1.0 } else { 0.0 };
    StepScores {
        present: true,
        address_ok,
        function_ok,
        contract_ok,
        fmt: 1.0,
        logic,
        param: prm.value,
        pass: pass_f,
        final_score: 0.1 + 0.3 * logic + 0.2 * prm.value + 0.4 * pass_f,
        keys: prm.keys,
        note: prm.note,
    }
}

fn zero_step(g: &Py, present: bool) -> StepScores {
    let keys = params_with_value(g)
        .unwrap_or_default()
        .iter()
        .map(|(k, _)| key_score(k, true, false, false, false, 0))
        .collect();
    StepScores {
        present,
        address_ok: false,
        function_ok: false,
        contract_ok: false,
        fmt: 0.0,
        logic: 0.0,
        param: 0.0,
        pass: 0.0,
        final_score: 0.0,
        keys,
        note: None,
    }
}

/// `dict(obj.get("params", {}))` with the ETH value added as `__eth_value__` (type `uint256`,
/// value `str(value)`) when `value` is present and not null.
fn params_with_value(obj: &Py) -> Result<Vec<(Py, Py)>, &'static str> {
    let mut d = match obj.get("params") {
        None => Vec::new(),
        Some(v) => py_dict(v)?,
    };
    if let Some(v) = obj.get("value").filter(|v| **v != Py::None) {
        let entry = Py::Dict(vec![
            (Py::s("type"), Py::s("uint256")),
            (Py::s("val"), Py::Str(py_str(v))),
        ]);
        insert(&mut d, Py::s(ETH_KEY), entry)?;
    }
    Ok(d)
}

struct ParamScore {
    value: f64,
    /// Exactly 1.0, the reference's pass condition.
    perfect: bool,
    keys: Vec<KeyScore>,
    note: Option<String>,
}

fn key_name(k: &Py) -> String {
    match k {
        Py::Str(s) if s == ETH_KEY => VALUE_ETH.into(),
        Py::Str(s) => s.clone(),
        other => py_repr(other),
    }
}

fn key_score(
    k: &Py,
    in_truth: bool,
    exists: bool,
    type_ok: bool,
    value_ok: bool,
    tenths: u32,
) -> KeyScore {
    KeyScore {
        key: key_name(k),
        in_truth,
        exists,
        type_ok,
        value_ok,
        score: tenths as f64 / 10.0,
    }
}

/// The reference's parameter score; where it raises, its `except` makes S_prm 0.
fn param_score(g: &Py, p: &Py) -> ParamScore {
    let raised = |why: String| ParamScore {
        value: 0.0,
        perfect: false,
        keys: Vec::new(),
        note: Some(format!(
            "{why}; the reference scorer raises here and scores S_prm 0"
        )),
    };
    let gold = match params_with_value(g) {
        Ok(d) => d,
        Err(e) => return raised(format!("ground-truth params: {e}")),
    };
    let pred = match params_with_value(p) {
        Ok(d) => d,
        Err(e) => return raised(format!("params: {e}")),
    };
    if gold.is_empty() {
        let keys = pred
            .iter()
            .map(|(k, _)| key_score(k, false, true, false, false, 0))
            .collect();
        return if pred.is_empty() {
            ParamScore {
                value: 1.0,
                perfect: true,
                keys,
                note: None,
            }
        } else {
            ParamScore {
                value: 0.5,
                perfect: false,
                keys,
                note: Some(
                    "the ground truth has no parameters and no value: the reference scorer gives 0.5 to any answer that has some"
                        .into(),
                ),
            }
        };
    }
    let mut keys = Vec::new();
    let mut total = 0u32;
    for (k, gi) in &gold {
        let Some((_, pi)) = pred.iter().find(|(pk, _)| key_eq(pk, k)) else {
            keys.push(key_score(k, true, false, false, false, 0));
            continue;
        };
        if !matches!(gi, Py::Dict(_)) || !matches!(pi, Py::Dict(_)) {
            return raised(format!("params.{}: not an object", key_name(k)));
        }
        let type_ok = normalize(gi.get("type")) == normalize(pi.get("type"));
        let value_ok = normalize(gi.get("val")) == normalize(pi.get("val"));
        let tenths = 4 + 3 * type_ok as u32 + 3 * value_ok as u32;
        total += tenths;
        keys.push(key_score(k, true, true, type_ok, value_ok, tenths));
    }
    for (k, _) in &pred {
        if !gold.iter().any(|(gk, _)| key_eq(gk, k)) {
            keys.push(key_score(k, false, true, false, false, 0));
        }
    }
    let n = keys.len() as u32;
    ParamScore {
        value: total as f64 / (10 * n) as f64,
        perfect: total == 10 * n,
        keys,
        note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Param;
    use serde_json::json;

    fn int(s: &str) -> Py {
        Py::Int(s.into())
    }

    #[test]
    fn loads_reads_like_python_json() {
        let cases: Vec<(&str, Option<Py>)> = vec![
            ("0", Some(int("0"))),
            ("-0", Some(int("0"))),
            (
                "1000000000000000000000000001",
                Some(int("1000000000000000000000000001")),
            ),
            ("-12", Some(int("-12"))),
            ("1.0", Some(Py::Float(1.0))),
            ("1e18", Some(Py::Float(1e18))),
            ("1E5", Some(Py::Float(1e5))),
            ("1e400", Some(Py::Float(f64::INFINITY))),
            ("-Infinity", Some(Py::Float(f64::NEG_INFINITY))),
            (
                " \n[true, null]\t",
                Some(Py::List(vec![Py::Bool(true), Py::None])),
            ),
            (
                r#"{"a": 1, "b": 2, "a": 3}"#,
                Some(Py::Dict(vec![
                    (Py::s("a"), int("3")),
                    (Py::s("b"), int("2")),
                ])),
            ),
            (r#""\u00e9\ud83d\ude00\n""#, Some(Py::s("é😀\n"))),
            (r#""\ud800x""#, Some(Py::s("\u{fffd}x"))),
            ("01", None),
            ("1.", None),
            ("1e", None),
            (".5", None),
            ("[1,]", None),
            ("{\"a\":1,}", None),
            ("{'a': 1}", None),
            ("\"a\tb\"", None),
            (r#""\x""#, None),
            ("[1] 2", None),
            ("nul", None),
            ("", None),
        ];
        for (text, want) in cases {
            let got = loads(text);
            match (&got, &want) {
                (Some(Py::Float(a)), Some(Py::Float(b))) => assert_eq!(a, b, "{text}"),
                _ => assert_eq!(got, want, "{text}"),
            }
        }
        assert!(loads("NaN").is_some_and(|v| matches!(v, Py::Float(f) if f.is_nan())));
        assert!(loads(&"9".repeat(4300)).is_some());
        assert!(loads(&"9".repeat(4301)).is_none());
        assert!(loads(&format!("{}{}", "[".repeat(2000), "]".repeat(2000))).is_none());
    }

    /// Expected strings printed by CPython 3.11: `str(json.loads(text))`.
    #[test]
    fn str_prints_like_python() {
        let cases: &[(&str, &str)] = &[
            ("0.0", "0.0"),
            ("-0.0", "-0.0"),
            ("1e16", "1e+16"),
            ("1e15", "1000000000000000.0"),
            ("0.0001", "0.0001"),
            ("1e-05", "1e-05"),
            ("1.5e18", "1.5e+18"),
            ("0.1", "0.1"),
            ("0.3333333333333333", "0.3333333333333333"),
            ("123456789.123", "123456789.123"),
            ("5e-324", "5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
            ("100.0", "100.0"),
            ("1e22", "1e+22"),
            ("12345678901234567.0", "1.2345678901234568e+16"),
            ("1E5", "100000.0"),
            ("2.5e-7", "2.5e-07"),
            ("-1.5", "-1.5"),
            ("1e400", "inf"),
            ("9007199254740993.0", "9007199254740992.0"),
            ("true", "True"),
            ("null", "None"),
            ("\"0x AbC\"", "0x AbC"),
            (r#"{"a":1,"b":2,"a":3}"#, "{'a': 3, 'b': 2}"),
            (
                "[NaN, Infinity, -Infinity, -0, 10000000000000000000000001]",
                "[nan, inf, -inf, 0, 10000000000000000000000001]",
            ),
            (
                r#"[1, 1.0, "it's", "a\"b", "x\ny\u0001\u00e9\u00a0\u2028\t\\", true, null, {"k": [false]}, "both'\""]"#,
                r#"[1, 1.0, "it's", 'a"b', 'x\ny\x01é\xa0\u2028\t\\', True, None, {'k': [False]}, 'both\'"']"#,
            ),
            (r#"["\ud83d\ude00"]"#, "['😀']"),
            (r#"["\u0085\u00ad\ue000"]"#, r"['\x85\xad\ue000']"),
        ];
        for (text, want) in cases {
            let v = loads(text).unwrap_or_else(|| panic!("{text} parses"));
            assert_eq!(py_str(&v), *want, "{text}");
        }
        assert_eq!(normalize(Some(&Py::s(" \u{1c}True\u{1f} "))), "true");
        assert_eq!(normalize(None), "none");
    }

    #[test]
    fn dict_converts_like_python() {
        let d = |text: &str| py_dict(&loads(text).unwrap());
        assert_eq!(
            d(r#"["ab", "cd"]"#).unwrap(),
            vec![(Py::s("a"), Py::s("b")), (Py::s("c"), Py::s("d"))]
        );
        // dict([[1,'x'],[1.0,'y'],[True,'z']]) == {1: 'z'}
        assert_eq!(
            d(r#"[[1, "x"], [1.0, "y"], [true, "z"]]"#).unwrap(),
            vec![(int("1"), Py::s("z"))]
        );
        assert_eq!(d(r#""""#).unwrap(), vec![]);
        assert_eq!(
            d(r#"[{"k": 1, "v": 2}]"#).unwrap(),
            vec![(Py::s("k"), Py::s("v"))]
        );
        for bad in [
            r#""ab""#,
            "null",
            "3",
            "true",
            r#"["abc"]"#,
            "[[1, 2, 3]]",
            "[[[1], 2]]",
        ] {
            assert!(d(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn extraction_cuts_from_first_to_last_bracket() {
        let cases: Vec<(&str, Option<Vec<Repair>>)> = vec![
            ("{\"a\": 1}", Some(vec![])),
            (
                "```json\n{\"a\": 1}\n```",
                Some(vec![
                    Repair::DroppedLeadingText,
                    Repair::DroppedTrailingText,
                ]),
            ),
            ("Here: {\"a\": 1}", Some(vec![Repair::DroppedLeadingText])),
            // The cut takes the prose's braces too and the whole fails.
            ("Use {braces}: {\"a\": 1}", None),
            (
                "{\"a\": 1} // done",
                Some(vec![Repair::DroppedTrailingText]),
            ),
            ("{\"a\": 1, // x\n}", None),
            ("] then {", None),
            ("no json", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(extract(text).map(|(_, r)| r), want, "{text:?}");
        }
    }

    fn call(params: Vec<(&str, Param)>, value: Value) -> Call {
        Call {
            contract: "X".into(),
            contract_address: "0x0000000000000000000000000000000000000001".into(),
            function: "f".into(),
            params: params.into_iter().map(|(k, p)| (k.into(), p)).collect(),
            value,
        }
    }

    fn answer(params: Value, value: Value) -> String {
        json!({"contract": "X", "contract_address": "0x0000000000000000000000000000000000000001",
               "function": "f", "params": params, "value": value})
        .to_string()
    }

    /// The reference's branches that Crucible's own data never reaches (its ground truths always
    /// carry a value): a truth with neither parameters nor value.
    #[test]
    fn empty_truth_params_score_one_or_a_half() {
        let truth = Truth::Single(call(vec![], Value::Null));
        let s = score(&truth, &answer(json!({}), Value::Null));
        assert_eq!((s.param, s.pass), (1.0, 1.0));
        let s = score(&truth, &answer(json!({}), json!(0)));
        assert_eq!((s.param, s.pass), (0.5, 0.0));
        assert!(s.steps[0].note.as_deref().unwrap().contains("0.5"));
        // And an answer with no parameters and no value against a truth that has some: 0.
        let truth = Truth::Single(call(
            vec![("a", Param::new("uint256", json!("1")))],
            json!(0),
        ));
        let s = score(&truth, &answer(json!({}), Value::Null));
        assert_eq!(s.param, 0.0);
        assert_eq!(s.steps[0].keys.len(), 2);
    }

    #[test]
    fn a_raise_in_the_parameter_block_zeroes_only_s_prm() {
        let truth = Truth::Single(call(
            vec![("a", Param::new("uint256", json!("1")))],
            json!(0),
        ));
        for params in [json!({"a": "1"}), json!(null), json!("ab"), json!([["a"]])] {
            let s = score(&truth, &answer(params.clone(), json!(0)));
            assert_eq!(
                (s.fmt, s.logic, s.param, s.pass),
                (1.0, 1.0, 0.0, 0.0),
                "{params}"
            );
            assert!(
                s.steps[0].note.as_deref().unwrap().contains("raises"),
                "{params}"
            );
        }
        // A bare value under a key the truth does not have is never looked at: an extra key.
        let s = score(
            &truth,
            &answer(
                json!({"a": {"type": "uint256", "val": "1"}, "b": 5}),
                json!(0),
            ),
        );
        assert!((s.param - 2.0 / 3.0).abs() < 1e-12, "{}", s.param);
        assert!(s.steps[0].note.is_none());
    }

    #[test]
    fn a_param_named_like_the_eth_key_is_the_eth_value() {
        let truth = Truth::Single(call(vec![], json!(0)));
        let eth = json!({"__eth_value__": {"type": "uint256", "val": "0"}});
        let s = score(&truth, &answer(eth.clone(), Value::Null));
        assert_eq!((s.param, s.pass), (1.0, 1.0));
        // A non-null value overwrites it.
        let s = score(&truth, &answer(eth, json!(1)));
        assert!((s.param - 0.7).abs() < 1e-12, "{}", s.param);
    }
}
