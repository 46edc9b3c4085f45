//! The template catalogue: which action a single-step instance draws (by weight) with its
//! category, sub-category and style, and the multi-step recipes that chain related actions of one
//! sender. The draw order here is part of the shipped datasets.

use rand::Rng;
use serde_json::json;

use super::builder::{parse_units_back, pretty, Gen};
use super::fixture::{
    amounts, ETH_AMOUNTS, RECIPIENTS, SENDER, SUSHI_WETH_PAIRS, TOKENS, UNI_WETH_PAIRS,
};
use super::output::{Draft, Step};

/// Single-step templates and their weights; the order and weights are part of the shipped data.
pub(super) const SINGLE: &[(&str, u32)] = &[
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

/// The category a single-step template is labelled with (tested against the drafts).
pub(super) fn category_of(template: &str) -> &'static str {
    match template {
        "transfer" | "transfer_from" | "weth_transfer" | "steth_transfer" => "Transfer",
        "approve" | "revoke" | "nft_approval" => "TokenLifecycle",
        "wrap" | "unwrap" => "AssetTransformation",
        t if t.starts_with("swap_") => "Swap",
        t if t.contains("liquidity") => "Liquidity",
        t if t.starts_with("aave_") || t.starts_with("comet_") => "Lending",
        "lido" => "Staking",
        t if t.starts_with("vault_") => "Vault",
        t if t.starts_with("gov_") => "Governance",
        _ => "NFT",
    }
}

impl Gen<'_> {
    pub(super) fn single(&mut self) -> Draft {
        const T: &[(&str, u32)] = SINGLE;
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
        self.single_named(name)
    }

    /// The single-step template `name` (one of [`SINGLE`]), drawn with this generator's RNG.
    pub(super) fn single_named(&mut self, name: &'static str) -> Draft {
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

    pub(super) fn join(&mut self, n: usize) -> Vec<&'static str> {
        (0..n)
            .map(|_| self.pick(&[", then ", " and then ", " and ", ", and "]))
            .collect()
    }

    pub(super) fn multi(&mut self) -> Draft {
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
