//! The generator's state and the helpers every action family shares: seeded picks, book lookups,
//! unit conversion, ABI-shaped [`Call`]s whose parameter names come from the book, amount rounding
//! and how contracts are named in intents.

use alloy::json_abi::Function;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use crate::book::AddressBook;
use crate::schema::{Call, Param};
use crate::value::{format_units, parse_units};

use super::fixture::RECIPIENTS;

pub(super) struct Gen<'a> {
    pub(super) book: &'a AddressBook,
    pub(super) rng: ChaCha8Rng,
}

impl Gen<'_> {
    pub(super) fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.rng.random_range(0..xs.len())]
    }

    pub(super) fn recipient(&mut self) -> &'static str {
        self.pick(&RECIPIENTS)
    }

    pub(super) fn addr(&self, name: &str) -> String {
        self.book.expect(name).address.to_checksum(None)
    }

    pub(super) fn decimals(&self, token: &str) -> u8 {
        self.book.expect(token).decimals.unwrap_or(18)
    }

    pub(super) fn units(&self, token: &str, human: &str) -> String {
        parse_units(human, self.decimals(token))
            .map(|u| u.to_string())
            .unwrap_or_else(|| "0".into())
    }

    pub(super) fn function(&self, contract: &str, function: &str, arity: usize) -> Function {
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
    pub(super) fn call(
        &self,
        contract: &str,
        function: &str,
        vals: Vec<Value>,
        value: &str,
    ) -> Call {
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
}

/// Rounds down to two significant digits and formats with at most `decimals` places.
pub(super) fn round_amount(x: f64, decimals: u8) -> String {
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

/// The human amount of a uint parameter of `call` (for chaining a step's output into the next).
pub(super) fn parse_units_back(call: &Call, param: &str, decimals: u8) -> String {
    let raw = call
        .param(param)
        .and_then(|p| crate::value::parse_uint(&p.val))
        .unwrap_or_default();
    format_units(raw, decimals)
}

/// How contracts are named in intents.
pub(super) fn pretty(name: &str) -> &str {
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
}
