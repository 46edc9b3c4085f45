//! What the generator assumes of the universe fixture: the sender and recipients (Anvil's dev
//! accounts), the swap deadline, the funded balances and holdings ([`FUNDING`]), the tokens with
//! their reference prices and the human amounts a funded sender can move, and the contracts and
//! functions the address book must name ([`check_book`]). Data only; nothing here draws randomly.

use crate::book::AddressBook;
use crate::IntentError;

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

/// The contracts and functions the templates use; a book without them cannot generate.
pub(super) fn check_book(book: &AddressBook) -> Result<(), IntentError> {
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
pub(super) const TOKENS: &[(&str, f64, &[&str])] = &[
    ("USDT", 1.0, &["50", "100", "250", "500", "1000", "2500"]),
    ("USDC", 1.0, &["50", "100", "250", "500", "1000", "2500"]),
    ("DAI", 1.0, &["50", "100", "250", "500", "1000", "2500"]),
    ("WBTC", 90000.0, &["0.01", "0.02", "0.05", "0.1"]),
    ("WETH", 3000.0, &["0.05", "0.1", "0.25", "0.5", "1"]),
    ("LINK", 15.0, &["10", "25", "50", "100"]),
    ("UNI", 8.0, &["10", "25", "50", "100"]),
    ("AAVE", 200.0, &["1", "2", "5"]),
];
pub(super) const ETH_AMOUNTS: &[&str] = &["0.05", "0.1", "0.25", "0.5", "1", "2"];
pub(super) const UNI_WETH_PAIRS: &[&str] = &["USDT", "USDC", "DAI", "WBTC", "LINK", "UNI", "AAVE"];
pub(super) const SUSHI_WETH_PAIRS: &[&str] = &["USDC", "DAI", "WBTC"];

pub(super) fn price(token: &str) -> f64 {
    TOKENS
        .iter()
        .find(|t| t.0 == token)
        .map(|t| t.1)
        .unwrap_or(1.0)
}

pub(super) fn amounts(token: &str) -> &'static [&'static str] {
    TOKENS
        .iter()
        .find(|t| t.0 == token)
        .map(|t| t.2)
        .unwrap_or(&["1"])
}
