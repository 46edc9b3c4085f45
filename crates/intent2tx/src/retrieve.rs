//! The two prompt settings of the paper: direct (system prompt + intent + address book) and
//! retrieval-augmented (plus the top-3 most similar instances of a disjoint pool as demonstrations).
//!
//! Similarity is the paper's: Jaccard overlap of `<contract, function>` pairs, with a down-weighted
//! text similarity (Jaccard of intent word sets) as the fallback when no pair overlaps. The paper's
//! pairs come from the query's ground truth, which a deployed system does not have. Crucible's
//! retriever uses only query-time signals — the intent text, the address book and the sender — to
//! *predict* the query's pairs: contracts named in the intent (book names, protocol aliases, token
//! symbols, book addresses) crossed with functions suggested by its verbs (send → transfer, stake →
//! submit, …), keeping only pairs the book's ABIs contain. The pool's pairs are its ground truths
//! (the pool is labelled data). Ranking is lexicographic: pair Jaccard first, text Jaccard second
//! (so text never outranks a pair overlap — that is what "down-weighted fallback" means here),
//! pool order last. [`Retriever::top_k_oracle`] is the paper's leaky variant, for comparison.

use std::collections::BTreeSet;

use serde::Serialize;

use super::book::AddressBook;
use super::schema::Instance;
use super::value::parse_address;

/// Which prompt setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Setting {
    /// System prompt + intent + address book.
    Direct,
    /// Direct plus three demonstrations from a disjoint pool.
    Retrieval,
}

/// A rendered prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prompt {
    /// The system message.
    pub system: String,
    /// The user message.
    pub user: String,
    /// Ids of the pool instances used as demonstrations.
    pub demonstrations: Vec<String>,
}

/// One retrieval hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// Index into the pool.
    pub index: usize,
    /// Jaccard overlap of `<contract, function>` pairs.
    pub pair_jaccard: f64,
    /// Jaccard overlap of intent word sets.
    pub text_jaccard: f64,
}

type Pair = (String, String);

/// A retriever over a labelled pool.
#[derive(Debug, Clone)]
pub struct Retriever {
    pool: Vec<Instance>,
    pairs: Vec<BTreeSet<Pair>>,
    words: Vec<BTreeSet<String>>,
    book: AddressBook,
}

/// Verbs and the functions they suggest.
const LEXICON: &[(&[&str], &[&str])] = &[
    (
        &["send", "transfer", "pay", "forward", "give"],
        &["transfer", "transferPunk", "safeTransferFrom"],
    ),
    (
        &[
            "approve",
            "allow",
            "spend",
            "allowance",
            "revoke",
            "operator",
        ],
        &["approve", "setApprovalForAll"],
    ),
    (&["wrap"], &["deposit"]),
    (&["unwrap"], &["withdraw"]),
    (
        &["swap", "sell", "buy", "trade", "exchange", "get"],
        &[
            "swapExactTokensForTokens",
            "swapTokensForExactTokens",
            "swapExactETHForTokens",
            "swapTokensForExactETH",
            "swapExactTokensForETH",
            "swapETHForExactTokens",
            "buyPunk",
        ],
    ),
    (
        &["liquidity", "provide", "lp"],
        &[
            "addLiquidity",
            "addLiquidityETH",
            "removeLiquidity",
            "removeLiquidityETH",
        ],
    ),
    (&["supply", "lend"], &["supply"]),
    (
        &["withdraw"],
        &["withdraw", "removeLiquidity", "removeLiquidityETH"],
    ),
    (&["remove"], &["removeLiquidity", "removeLiquidityETH"]),
    (&["add"], &["addLiquidity", "addLiquidityETH"]),
    (&["borrow"], &["borrow"]),
    (&["repay"], &["repay"]),
    (&["stake"], &["submit"]),
    (&["deposit"], &["deposit", "submit"]),
    (&["redeem"], &["redeem"]),
    (&["propose", "create"], &["propose"]),
    (&["vote"], &["castVote"]),
    (&["execute"], &["execute"]),
    (&["list", "offer", "sale"], &["offerPunkForSale"]),
];

/// Protocol aliases as written in intents, and the book entry they name.
const ALIASES: &[(&str, &str)] = &[
    ("uniswap", "Uniswap_V2_Router"),
    ("sushiswap", "SushiSwap_Router"),
    ("sushi", "SushiSwap_Router"),
    ("lido", "Lido_stETH"),
    ("steth", "Lido_stETH"),
    ("compound", "Compound_V3_USDC_Market"),
    ("cryptopunk", "CryptoPunks"),
    ("cryptopunks", "CryptoPunks"),
    ("punk", "CryptoPunks"),
];

fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect()
}

fn jaccard<T: Ord>(a: &BTreeSet<T>, b: &BTreeSet<T>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

impl Retriever {
    /// A retriever over `pool` (labelled instances disjoint from the ones it will be asked about).
    pub fn new(pool: Vec<Instance>, book: &AddressBook) -> Self {
        let pairs = pool
            .iter()
            .map(|i| i.pairs().into_iter().collect())
            .collect();
        let words = pool.iter().map(|i| words(&i.intent)).collect();
        Self {
            pool,
            pairs,
            words,
            book: book.clone(),
        }
    }

    /// The pool.
    pub fn pool(&self) -> &[Instance] {
        &self.pool
    }

    /// The `<contract, function>` pairs predicted from an intent's text alone.
    pub fn predict_pairs(&self, intent: &str) -> BTreeSet<Pair> {
        let ws = words(intent);
        let mut contracts: BTreeSet<String> = BTreeSet::new();
        for e in self
            .book
            .entries()
            .iter()
            .filter(|e| !e.functions.is_empty())
        {
            let name_words: Vec<String> = e.name.split('_').map(|w| w.to_lowercase()).collect();
            // Token symbols and one-word names match a whole word; multi-word names
            // (`Crucible_DAI_Vault`) match when all their words appear.
            let named = if name_words.len() == 1 {
                ws.contains(&name_words[0])
            } else {
                name_words.iter().all(|w| ws.contains(w))
            };
            let addressed = ws.iter().any(|w| {
                w.starts_with("0x")
                    && parse_address(&serde_json::Value::String(w.clone())) == Some(e.address)
            });
            if named || addressed {
                contracts.insert(e.name.clone());
            }
        }
        for (alias, name) in ALIASES {
            if ws.contains(*alias) {
                contracts.insert(name.to_string());
            }
        }
        if ws.contains("aave") && ws.contains("v3") {
            contracts.insert("Aave_V3_Lending_Pool".into());
        }
        let functions: BTreeSet<&str> = LEXICON
            .iter()
            .filter(|(verbs, _)| verbs.iter().any(|v| ws.contains(*v)))
            .flat_map(|(_, fs)| fs.iter().copied())
            .collect();
        let mut pairs: BTreeSet<Pair> = BTreeSet::new();
        for c in &contracts {
            if let Some(e) = self.book.by_name(c) {
                for f in &functions {
                    if e.has_function(f) {
                        pairs.insert((c.to_lowercase(), f.to_string()));
                    }
                }
            }
        }
        if pairs.is_empty() {
            for e in self.book.entries().iter().filter(|e| e.implemented) {
                for f in &functions {
                    if e.has_function(f) {
                        pairs.insert((e.name.to_lowercase(), f.to_string()));
                    }
                }
            }
        }
        pairs
    }

    fn rank(&self, query: &Instance, qpairs: &BTreeSet<Pair>, k: usize) -> Vec<Hit> {
        let qwords = words(&query.intent);
        let mut hits: Vec<Hit> = self
            .pool
            .iter()
            .enumerate()
            .filter(|(_, p)| p.id != query.id && p.intent != query.intent)
            .map(|(index, _)| Hit {
                index,
                pair_jaccard: jaccard(qpairs, &self.pairs[index]),
                text_jaccard: jaccard(&qwords, &self.words[index]),
            })
            .collect();
        hits.sort_by(|a, b| {
            b.pair_jaccard
                .total_cmp(&a.pair_jaccard)
                .then(b.text_jaccard.total_cmp(&a.text_jaccard))
                .then(a.index.cmp(&b.index))
        });
        hits.truncate(k);
        hits
    }

    /// The `k` most similar pool instances, using only query-time signals.
    pub fn top_k(&self, query: &Instance, k: usize) -> Vec<Hit> {
        let q = self.predict_pairs(&query.intent);
        self.rank(query, &q, k)
    }

    /// The paper's variant: the query's ground-truth pairs (not available to a deployed system).
    pub fn top_k_oracle(&self, query: &Instance, k: usize) -> Vec<Hit> {
        let q: BTreeSet<Pair> = query.pairs().into_iter().collect();
        self.rank(query, &q, k)
    }
}

/// The output rules given to the model (the paper's: JSON only, exact schema, typed params).
pub const SYSTEM_RULES: &str = "You translate a user's intent into Ethereum contract calls.\n\
Answer with JSON only, no prose. For one transaction answer one object; for several, a JSON array \
of objects in execution order. Each object has exactly these fields:\n\
  \"contract\": the contract name from the address book,\n\
  \"contract_address\": its 0x address,\n\
  \"function\": the function name,\n\
  \"params\": {\"<param name>\": {\"type\": \"<solidity type>\", \"val\": <value>}} — uint values as \
decimal strings in base units, arrays for address[] and uint256[],\n\
  \"value\": the ETH sent, as a number in ETH (not wei).\n";

/// Renders the prompt of an instance in a setting; `retriever` is required for
/// [`Setting::Retrieval`] (without one the prompt has no demonstrations).
pub fn build_prompt(
    setting: Setting,
    instance: &Instance,
    book: &AddressBook,
    retriever: Option<&Retriever>,
) -> Prompt {
    let mut system = String::from(SYSTEM_RULES);
    if let Some(sender) = &instance.metadata.sender {
        system.push_str(&format!("The transactions are sent from {sender}.\n"));
    }
    system.push_str("\nAddress book:\n");
    system.push_str(&book.prompt_text());
    let mut user = String::new();
    let mut demonstrations = Vec::new();
    if let (Setting::Retrieval, Some(r)) = (setting, retriever) {
        for hit in r.top_k(instance, 3) {
            let demo = &r.pool()[hit.index];
            let answer = serde_json::to_string(&demo.ground_truth).unwrap_or_default();
            user.push_str(&format!(
                "Example intent: {}\nExample answer: {answer}\n\n",
                demo.intent
            ));
            demonstrations.push(demo.id.clone());
        }
    }
    user.push_str(&format!("Intent: {}\n", instance.intent));
    Prompt {
        system,
        user,
        demonstrations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, GenerateOptions};

    fn setup() -> (AddressBook, Retriever, Vec<Instance>) {
        let book = AddressBook::builtin();
        let pool = generate(GenerateOptions::new(1001, 400), &book)
            .unwrap()
            .instances;
        let queries = generate(GenerateOptions::new(2002, 200), &book)
            .unwrap()
            .instances;
        (book.clone(), Retriever::new(pool, &book), queries)
    }

    #[test]
    fn predicted_pairs_table() {
        let (_, r, _) = setup();
        let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
            (
                "Send 5 USDC to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
                vec![("usdc", "transfer")],
            ),
            ("Stake 1 ETH with Lido", vec![("lido_steth", "submit")]),
            ("Wrap 0.5 ETH into WETH", vec![("weth", "deposit")]),
            (
                "Borrow 100 DAI from Aave V3 at the variable rate",
                vec![("aave_v3_lending_pool", "borrow")],
            ),
            (
                "Cast a vote on proposal 1 in Crucible_Governor",
                vec![("crucible_governor", "castVote")],
            ),
            (
                "Redeem 5 of my Crucible_DAI_Vault shares",
                vec![("crucible_dai_vault", "redeem")],
            ),
            (
                "Send 3 of Crucible_Items id 4 to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
                vec![("crucible_items", "safeTransferFrom")],
            ),
            ("Do something nice", vec![]),
        ];
        for (intent, want) in cases {
            let got = r.predict_pairs(intent);
            let want: BTreeSet<Pair> = want
                .into_iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
            assert_eq!(got, want, "{intent}");
        }
    }

    #[test]
    fn retrieval_uses_only_the_intent_and_finds_same_pair_demonstrations() {
        let (_, r, queries) = setup();
        let mut top1_overlap = 0;
        for q in &queries {
            let hits = r.top_k(q, 3);
            assert_eq!(hits.len(), 3);
            // Corrupting the query's ground truth must not change the result.
            let mut blind = q.clone();
            for s in blind.ground_truth.steps_mut() {
                s.function = "nothing".into();
                s.contract = "Nowhere".into();
            }
            assert_eq!(r.top_k(&blind, 3), hits);
            let qp: BTreeSet<Pair> = q.pairs().into_iter().collect();
            let hp: BTreeSet<Pair> = r.pool()[hits[0].index].pairs().into_iter().collect();
            if qp.intersection(&hp).next().is_some() {
                top1_overlap += 1;
            }
            for w in hits.windows(2) {
                assert!(w[0].pair_jaccard >= w[1].pair_jaccard);
            }
        }
        // Most queries get a top demonstration sharing a <contract, function> pair with their truth.
        assert!(
            top1_overlap * 10 >= queries.len() * 8,
            "only {top1_overlap}/{}",
            queries.len()
        );
        // The oracle variant can only do at least as well on pair overlap.
        let q = &queries[0];
        assert!(r.top_k_oracle(q, 1)[0].pair_jaccard >= 0.0);
    }

    #[test]
    fn text_fallback_orders_when_no_pair_overlaps() {
        let (book, r, _) = setup();
        let mut q = r.pool()[0].clone();
        q.id = "q".into();
        q.intent = format!("{} zzz", q.intent);
        let predicted = r.predict_pairs(&q.intent);
        let hits = r.top_k(&q, 3);
        if predicted.is_empty() {
            assert!(hits.iter().all(|h| h.pair_jaccard == 0.0));
        }
        let nothing = Instance {
            intent: "qqq rrr".into(),
            ..q.clone()
        };
        let hits = r.top_k(&nothing, 3);
        assert!(hits
            .iter()
            .all(|h| h.pair_jaccard == 0.0 && h.text_jaccard == 0.0));
        assert_eq!(
            hits.iter().map(|h| h.index).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        let _ = book;
    }

    #[test]
    fn prompts_for_both_settings() {
        let (book, r, queries) = setup();
        let q = &queries[0];
        let d = build_prompt(Setting::Direct, q, &book, Some(&r));
        assert!(d.demonstrations.is_empty());
        assert!(d
            .system
            .contains("0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D"));
        assert!(d.system.contains(q.metadata.sender.as_deref().unwrap()));
        assert!(d.user.ends_with(&format!("Intent: {}\n", q.intent)));
        let p = build_prompt(Setting::Retrieval, q, &book, Some(&r));
        assert_eq!(p.demonstrations.len(), 3);
        assert_eq!(p.user.matches("Example intent:").count(), 3);
        assert_eq!(p, build_prompt(Setting::Retrieval, q, &book, Some(&r)));
    }
}
