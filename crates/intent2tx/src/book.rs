//! The Intent2Tx address book: every protocol the paper's book lists, with its address, category,
//! token decimals, whether the local eth universe implements it, and the function ABIs (parsed from
//! human-readable Solidity signatures) of the implemented contracts.
//!
//! The book is data (`tasks/intent2tx/address_book.json`), embedded in the binary as the default;
//! it never reaches the chain.

use std::collections::BTreeMap;
use std::path::Path;

use alloy::json_abi::Function;
use alloy::primitives::Address;
use serde::Deserialize;

use super::IntentError;

/// The shipped address book, embedded at compile time.
pub const BUILTIN_BOOK_JSON: &str = include_str!("../../../tasks/intent2tx/address_book.json");

#[derive(Debug, Deserialize)]
struct BookSpec {
    version: u32,
    abis: BTreeMap<String, Vec<String>>,
    contracts: Vec<EntrySpec>,
}

#[derive(Debug, Deserialize)]
struct EntrySpec {
    name: String,
    address: String,
    category: String,
    #[serde(default)]
    decimals: Option<u8>,
    #[serde(default)]
    underlying: Option<String>,
    implemented: bool,
    origin: String,
    #[serde(default)]
    abi: Option<String>,
}

/// One contract of the book.
#[derive(Debug, Clone)]
pub struct BookEntry {
    /// Name used in the `contract` field, e.g. `Uniswap_V2_Router`.
    pub name: String,
    /// Its address.
    pub address: Address,
    /// Book category: Token, DEX, Lending, Staking, Vault, Governance, NFT, Aggregator, Bridge.
    pub category: String,
    /// Decimals, for tokens (and vault shares).
    pub decimals: Option<u8>,
    /// For a vault: the name of its underlying token.
    pub underlying: Option<String>,
    /// Whether the local eth universe implements this contract.
    pub implemented: bool,
    /// `mainnet` (canonical address) or `crucible` (a Crucible-local contract).
    pub origin: String,
    /// Name of its ABI group in the book (`ERC20`, `UniswapV2Router02`, …), if known.
    pub abi: Option<String>,
    /// The parsed functions of that ABI (empty when unknown).
    pub functions: Vec<Function>,
}

impl BookEntry {
    /// The functions of this contract with the given name (overloads included).
    pub fn functions_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Function> + 'a {
        self.functions.iter().filter(move |f| f.name == name)
    }

    /// Whether the contract has a function of that name.
    pub fn has_function(&self, name: &str) -> bool {
        self.functions.iter().any(|f| f.name == name)
    }
}

/// The whole address book.
#[derive(Debug, Clone)]
pub struct AddressBook {
    entries: Vec<BookEntry>,
}

impl AddressBook {
    /// The shipped book.
    pub fn builtin() -> Self {
        Self::from_json(BUILTIN_BOOK_JSON).expect("the shipped address book is valid (tested)")
    }

    /// Loads a book file.
    pub fn load(path: &Path) -> Result<Self, IntentError> {
        let text = std::fs::read_to_string(path).map_err(|source| IntentError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json(&text)
    }

    /// Parses and validates a book; errors name the contract and field.
    pub fn from_json(text: &str) -> Result<Self, IntentError> {
        let spec: BookSpec =
            serde_json::from_str(text).map_err(|e| IntentError::Book(e.to_string()))?;
        if spec.version != 1 {
            return Err(IntentError::Book(format!(
                "unsupported version {}",
                spec.version
            )));
        }
        let mut abis: BTreeMap<String, Vec<Function>> = BTreeMap::new();
        for (group, sigs) in &spec.abis {
            let fs = sigs
                .iter()
                .map(|s| {
                    Function::parse(s).map_err(|e| {
                        IntentError::Book(format!("abis.{group}: cannot parse {s:?}: {e}"))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            abis.insert(group.clone(), fs);
        }
        let mut entries = Vec::with_capacity(spec.contracts.len());
        for c in spec.contracts {
            let address =
                super::value::parse_address(&serde_json::Value::String(c.address.clone()))
                    .ok_or_else(|| {
                        IntentError::Book(format!("{}: bad address {:?}", c.name, c.address))
                    })?;
            let functions = match &c.abi {
                Some(g) => abis.get(g).cloned().ok_or_else(|| {
                    IntentError::Book(format!("{}: unknown abi group {g:?}", c.name))
                })?,
                None => Vec::new(),
            };
            if c.implemented && functions.is_empty() {
                return Err(IntentError::Book(format!(
                    "{}: implemented but has no abi",
                    c.name
                )));
            }
            if entries
                .iter()
                .any(|e: &BookEntry| e.name == c.name || e.address == address)
            {
                return Err(IntentError::Book(format!(
                    "{}: duplicate name or address",
                    c.name
                )));
            }
            entries.push(BookEntry {
                name: c.name,
                address,
                category: c.category,
                decimals: c.decimals,
                underlying: c.underlying,
                implemented: c.implemented,
                origin: c.origin,
                abi: c.abi,
                functions,
            });
        }
        Ok(Self { entries })
    }

    /// Every entry, in file order.
    pub fn entries(&self) -> &[BookEntry] {
        &self.entries
    }

    /// Looks an entry up by exact name.
    pub fn by_name(&self, name: &str) -> Option<&BookEntry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// Looks an entry up by name, ignoring case and `_`/`-`/space separators.
    pub fn by_loose_name(&self, name: &str) -> Option<&BookEntry> {
        let k = loose(name);
        self.entries.iter().find(|e| loose(&e.name) == k)
    }

    /// Looks an entry up by address.
    pub fn by_address(&self, address: Address) -> Option<&BookEntry> {
        self.entries.iter().find(|e| e.address == address)
    }

    /// The entry named `name`; panics if absent (for the generator's fixed names, tested).
    pub fn expect(&self, name: &str) -> &BookEntry {
        self.by_name(name)
            .unwrap_or_else(|| panic!("address book has no {name}"))
    }

    /// Renders the book for a prompt: one line per contract with address, category and decimals.
    pub fn prompt_text(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            out.push_str(&format!("{}: {} ({}", e.name, e.address, e.category));
            if let Some(d) = e.decimals {
                out.push_str(&format!(", {d} decimals"));
            }
            out.push_str(")\n");
        }
        out
    }
}

/// Name comparison key: lower case, separators removed.
pub fn loose(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_book_has_the_spec_contracts_at_their_addresses() {
        let b = AddressBook::builtin();
        let cases = [
            (
                "USDT",
                "0xdac17f958d2ee523a2206206994597c13d831ec7",
                Some(6),
            ),
            (
                "USDC",
                "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
                Some(6),
            ),
            (
                "DAI",
                "0x6b175474e89094c44da98b954eedeac495271d0f",
                Some(18),
            ),
            (
                "WBTC",
                "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599",
                Some(8),
            ),
            (
                "WETH",
                "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
                Some(18),
            ),
            (
                "LINK",
                "0x514910771af9ca656af840dff83e8264ecf986ca",
                Some(18),
            ),
            (
                "UNI",
                "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984",
                Some(18),
            ),
            (
                "AAVE",
                "0x7fc66500c84a76ad7e9c93437bfc5ac33e2ddae9",
                Some(18),
            ),
            (
                "Uniswap_V2_Router",
                "0x7a250d5630b4cf539739df2c5dacb4c659f2488d",
                None,
            ),
            (
                "Uniswap_V2_Factory",
                "0x5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f",
                None,
            ),
            (
                "SushiSwap_Router",
                "0xd9e1ce17f2641f24ae83637ab66a2cca9c378b9f",
                None,
            ),
            (
                "Aave_V3_Lending_Pool",
                "0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2",
                None,
            ),
            (
                "Lido_stETH",
                "0xae7ab96520de3a18e5e111b5eaab095312d7fe84",
                Some(18),
            ),
            (
                "Compound_V3_USDC_Market",
                "0xc3d688b66703497daa19211eedff47f25384cdc3",
                None,
            ),
            (
                "CryptoPunks",
                "0xb47e3cd837ddf8e4c57f05d70ab865de6e193bbb",
                None,
            ),
        ];
        for (name, addr, dec) in cases {
            let e = b.expect(name);
            assert_eq!(format!("{:?}", e.address).to_lowercase(), addr, "{name}");
            assert_eq!(e.decimals, dec, "{name}");
            assert!(e.implemented, "{name}");
            assert!(!e.functions.is_empty(), "{name}");
        }
        let bridges = b
            .entries()
            .iter()
            .filter(|e| e.category == "Bridge")
            .count();
        assert_eq!(bridges, 8);
        assert!(b
            .entries()
            .iter()
            .filter(|e| !e.implemented)
            .all(|e| e.functions.is_empty()));
        assert!(b.by_loose_name("uniswap v2 router").is_some());
    }

    #[test]
    fn crucible_local_addresses_are_derived_from_their_names() {
        let b = AddressBook::builtin();
        for e in b.entries().iter().filter(|e| e.origin == "crucible") {
            let h = alloy::primitives::keccak256(format!("crucible:{}", e.name));
            assert_eq!(e.address, Address::from_slice(&h[12..]), "{}", e.name);
        }
    }

    #[test]
    fn bad_books_are_rejected_with_the_field_named() {
        let cases = [
            (
                r#"{"version":2,"abis":{},"contracts":[]}"#,
                "unsupported version 2",
            ),
            (
                r#"{"version":1,"abis":{"X":["function f(uint256"]},"contracts":[]}"#,
                "abis.X",
            ),
            (
                r#"{"version":1,"abis":{},"contracts":[{"name":"A","address":"0x12","category":"Token","implemented":false,"origin":"mainnet"}]}"#,
                "A: bad address",
            ),
            (
                r#"{"version":1,"abis":{},"contracts":[{"name":"A","address":"0x0000000000000000000000000000000000000001","category":"Token","implemented":true,"origin":"mainnet"}]}"#,
                "A: implemented but has no abi",
            ),
            (
                r#"{"version":1,"abis":{},"contracts":[{"name":"A","address":"0x0000000000000000000000000000000000000001","category":"Token","implemented":false,"origin":"mainnet","abi":"Nope"}]}"#,
                "unknown abi group",
            ),
        ];
        for (text, want) in cases {
            let e = AddressBook::from_json(text).unwrap_err().to_string();
            assert!(e.contains(want), "{e} should contain {want}");
        }
    }
}
