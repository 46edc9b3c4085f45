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
//! pool order last. That is [`RetrievalMode::Realistic`].
//!
//! [`RetrievalMode::Paper`] (the default) is the paper's setting as the authors' release runs it
//! (`experiment/evaluate_models/three_shot.py`): the query's pairs are its ground truth's, the score
//! is their Jaccard overlap with a candidate's, and a candidate sharing no pair scores
//! `0.4 · SequenceMatcher(None, query input, candidate input).ratio()` (Python's `difflib`, over
//! the dataset's `User intent:\n…` inputs); candidates have the query's shape (single-step queries
//! draw from single-step instances, multi-step from multi-step), ranked by score with ties in pool
//! order. [`RetrievalMode::HeldOutCategory`] is the same over a pool without the query's category
//! (the paper's RQ3 split: demonstrations never show the category asked about).

use std::collections::BTreeSet;

use crucible_core::PromptSet;
use serde::{Deserialize, Serialize};

use super::book::AddressBook;
use super::difflib;
use super::paper;
use super::schema::Instance;
use super::value::parse_address;

/// How the retrieval setting chooses its three demonstrations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RetrievalMode {
    /// The paper's: Jaccard over the query's ground-truth `<contract, function>` pairs, falling
    /// back to 0.4 × difflib text similarity; same-shape pool.
    #[default]
    Paper,
    /// Crucible's deployable variant: the query's pairs are predicted from its intent text.
    Realistic,
    /// The paper's scoring over a pool without the query's category (RQ3's held-out split).
    HeldOutCategory,
}

impl RetrievalMode {
    /// Every mode, the default first.
    pub const ALL: [RetrievalMode; 3] = [Self::Paper, Self::Realistic, Self::HeldOutCategory];

    /// The CLI and stored name (`paper`, `realistic`, `held-out-category`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Paper => "paper",
            Self::Realistic => "realistic",
            Self::HeldOutCategory => "held-out-category",
        }
    }

    /// The mode named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

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
    /// Jaccard overlap of intent word sets ([`RetrievalMode::Realistic`]), or difflib's ratio of
    /// the two inputs where the paper's modes fell back to it (0 where they did not).
    pub text_jaccard: f64,
    /// The ranking score: the pair Jaccard, or 0.4 × the text ratio in the paper's fallback.
    pub score: f64,
}

type Pair = (String, String);

/// A retriever over a labelled pool.
#[derive(Debug, Clone)]
pub struct Retriever {
    pool: Vec<Instance>,
    pairs: Vec<BTreeSet<Pair>>,
    /// Ground-truth pairs with the contract name as written (the release compares them exactly).
    exact_pairs: Vec<BTreeSet<Pair>>,
    /// The pool's inputs as the release writes them (`User intent:\n…`) and their character
    /// counts, for the text fallback.
    inputs: Vec<String>,
    histograms: Vec<difflib::Histogram>,
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
        let exact_pairs = pool.iter().map(exact_pairs).collect();
        let inputs: Vec<String> = pool.iter().map(|i| release_input_of(&i.intent)).collect();
        let histograms = inputs.iter().map(|t| difflib::Histogram::of(t)).collect();
        let words = pool.iter().map(|i| words(&i.intent)).collect();
        Self {
            pool,
            pairs,
            exact_pairs,
            inputs,
            histograms,
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
            .map(|(index, _)| {
                let pair_jaccard = jaccard(qpairs, &self.pairs[index]);
                Hit {
                    index,
                    pair_jaccard,
                    text_jaccard: jaccard(&qwords, &self.words[index]),
                    score: pair_jaccard,
                }
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

    /// The realistic ranking with the query's ground-truth pairs instead of predicted ones.
    pub fn top_k_oracle(&self, query: &Instance, k: usize) -> Vec<Hit> {
        let q: BTreeSet<Pair> = query.pairs().into_iter().collect();
        self.rank(query, &q, k)
    }

    /// The `k` demonstrations `mode` chooses for `query`.
    pub fn top_k_with(&self, query: &Instance, k: usize, mode: RetrievalMode) -> Vec<Hit> {
        match mode {
            RetrievalMode::Realistic => self.top_k(query, k),
            RetrievalMode::Paper => self.top_k_paper(query, k, false),
            RetrievalMode::HeldOutCategory => self.top_k_paper(query, k, true),
        }
    }

    /// The paper's ranking (module doc); with `held_out`, candidates of the query's category are
    /// left out.
    fn top_k_paper(&self, query: &Instance, k: usize, held_out: bool) -> Vec<Hit> {
        let qpairs = exact_pairs(query);
        let multi = query.ground_truth.is_multi();
        let candidates: Vec<usize> = (0..self.pool.len())
            .filter(|&i| {
                let p = &self.pool[i];
                p.ground_truth.is_multi() == multi
                    && p.id != query.id
                    && p.intent != query.intent
                    && !(held_out && p.metadata.category == query.metadata.category)
            })
            .collect();
        let mut hits: Vec<Hit> = candidates
            .iter()
            .map(|&index| {
                let pair_jaccard = jaccard(&qpairs, &self.exact_pairs[index]);
                Hit {
                    index,
                    pair_jaccard,
                    text_jaccard: 0.0,
                    score: pair_jaccard,
                }
            })
            .collect();
        // A fallback score is below 0.4 (a ratio of 1 needs the same input, which is excluded),
        // so the text ratios matter only when fewer than k candidates reach 0.4 on pairs. Then
        // they are computed in decreasing order of an upper bound (difflib's quick ratio) until
        // the bound falls below the k-th best score so far: candidates left out cannot enter the
        // top k, so the result is the same as computing every ratio.
        let strong = hits.iter().filter(|h| h.score >= 0.4).count();
        if strong < k {
            let qinput = release_input_of(&query.intent);
            let qhist = difflib::Histogram::of(&qinput);
            let mut best: Vec<f64> = hits.iter().map(|h| h.score).filter(|s| *s > 0.0).collect();
            best.sort_by(|a, b| b.total_cmp(a));
            best.truncate(k);
            let mut fallback: Vec<(f64, usize)> = hits
                .iter()
                .enumerate()
                .filter(|(_, h)| h.pair_jaccard == 0.0)
                .map(|(pos, h)| {
                    let bound = 0.4 * difflib::quick_bound(&qhist, &self.histograms[h.index]);
                    (bound, pos)
                })
                .collect();
            fallback.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut computed = vec![false; hits.len()];
            for (bound, pos) in fallback {
                if best.len() >= k && bound < best[k - 1] {
                    break;
                }
                let h = &mut hits[pos];
                let ratio = difflib::ratio(&qinput, &self.inputs[h.index]);
                h.text_jaccard = ratio;
                h.score = ratio * 0.4;
                computed[pos] = true;
                best.push(h.score);
                best.sort_by(|a, b| b.total_cmp(a));
                best.truncate(k);
            }
            let mut pos = 0;
            hits.retain(|h| {
                let keep = h.pair_jaccard > 0.0 || computed[pos];
                pos += 1;
                keep
            });
        }
        // Python's sort is stable: equal scores keep pool order. (score, index) is a total order,
        // so selecting the k best and sorting them gives the same list as sorting everything.
        let order = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index));
        if k < hits.len() {
            if k == 0 {
                return Vec::new();
            }
            hits.select_nth_unstable_by(k - 1, order);
            hits.truncate(k);
        }
        hits.sort_by(order);
        hits
    }
}

/// Ground-truth pairs with contract names as written.
fn exact_pairs(instance: &Instance) -> BTreeSet<Pair> {
    instance
        .ground_truth
        .steps()
        .iter()
        .map(|c| (c.contract.clone(), c.function.clone()))
        .collect()
}

fn release_input_of(intent: &str) -> String {
    format!("User intent:\n{intent}")
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

/// Renders the prompt of an instance in a setting, in the `assisted` wording with
/// [`RetrievalMode::Realistic`] demonstrations (Crucible's prompts before prompt sets existed);
/// `retriever` is required for [`Setting::Retrieval`] (without one the prompt has no
/// demonstrations).
pub fn build_prompt(
    setting: Setting,
    instance: &Instance,
    book: &AddressBook,
    retriever: Option<&Retriever>,
) -> Prompt {
    build_prompt_with(
        PromptSet::Assisted,
        RetrievalMode::Realistic,
        setting,
        instance,
        book,
        retriever,
    )
}

/// Renders the prompt of an instance in a setting, in `set`'s wording, with demonstrations chosen
/// by `mode` (retrieval setting only; without a retriever there are none). [`PromptSet::Paper`]
/// is the paper's system prompt and address book as the authors' release assembles them
/// ([`crate::paper`]); [`PromptSet::Assisted`] is Crucible's wording with its hints (the sender,
/// base units, every book contract with decimals).
pub fn build_prompt_with(
    set: PromptSet,
    mode: RetrievalMode,
    setting: Setting,
    instance: &Instance,
    book: &AddressBook,
    retriever: Option<&Retriever>,
) -> Prompt {
    let demos: Vec<&Instance> = match (setting, retriever) {
        (Setting::Retrieval, Some(r)) => r
            .top_k_with(instance, 3, mode)
            .into_iter()
            .map(|h| &r.pool()[h.index])
            .collect(),
        _ => Vec::new(),
    };
    match (set, setting) {
        (PromptSet::Paper, Setting::Direct) => paper::direct_prompt(instance),
        (PromptSet::Paper, Setting::Retrieval) => paper::retrieval_prompt(instance, &demos),
        (PromptSet::Assisted, _) => assisted_prompt(instance, book, &demos),
    }
}

fn assisted_prompt(instance: &Instance, book: &AddressBook, demos: &[&Instance]) -> Prompt {
    let mut system = String::from(SYSTEM_RULES);
    if let Some(sender) = &instance.metadata.sender {
        system.push_str(&format!("The transactions are sent from {sender}.\n"));
    }
    system.push_str("\nAddress book:\n");
    system.push_str(&book.prompt_text());
    let mut user = String::new();
    let mut demonstrations = Vec::new();
    for demo in demos {
        let answer = serde_json::to_string(&demo.ground_truth).unwrap_or_default();
        user.push_str(&format!(
            "Example intent: {}\nExample answer: {answer}\n\n",
            demo.intent
        ));
        demonstrations.push(demo.id.clone());
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

    fn shipped(path: &str) -> Vec<Instance> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        std::fs::read_to_string(root.join(path))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The assisted set is Crucible's prompts from before prompt sets, byte for byte: digests of
    /// every eighth shipped instance's direct and retrieval prompt (system, user, demonstration
    /// ids) recorded with the code of commit 06f60ee.
    #[test]
    fn assisted_prompts_are_byte_identical_to_the_earlier_prompts() {
        let data = shipped("tasks/intent2tx/default/instances.jsonl");
        let book = AddressBook::builtin();
        let r = Retriever::new(shipped("tasks/intent2tx/pool/instances.jsonl"), &book);
        let golden = include_str!("testdata/assisted_prompts.txt");
        let mut n = 0;
        for line in golden.lines() {
            let mut it = line.split(' ');
            let (id, setting, digest) =
                (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
            let inst = data.iter().find(|i| i.id == id).unwrap();
            let setting = if setting == "direct" {
                Setting::Direct
            } else {
                Setting::Retrieval
            };
            for p in [
                build_prompt(setting, inst, &book, Some(&r)),
                build_prompt_with(
                    PromptSet::Assisted,
                    RetrievalMode::Realistic,
                    setting,
                    inst,
                    &book,
                    Some(&r),
                ),
            ] {
                let text = format!(
                    "{}\u{0}{}\u{0}{}",
                    p.system,
                    p.user,
                    p.demonstrations.join(",")
                );
                let got = alloy::primitives::keccak256(text.as_bytes()).to_string();
                assert_eq!(got, digest, "{id} {setting:?}");
            }
            n += 1;
        }
        assert_eq!(n, 100);
    }

    #[test]
    fn paper_prompts_carry_the_whole_b3_book_and_no_assisted_hint() {
        let (book, r, queries) = setup();
        let single = queries.iter().find(|q| !q.ground_truth.is_multi()).unwrap();
        let multi = queries.iter().find(|q| q.ground_truth.is_multi()).unwrap();
        for q in [single, multi] {
            for setting in [Setting::Direct, Setting::Retrieval] {
                let p = build_prompt_with(
                    PromptSet::Paper,
                    RetrievalMode::Paper,
                    setting,
                    q,
                    &book,
                    Some(&r),
                );
                let rows: Vec<_> = crate::paper::paper_book_rows().collect();
                assert_eq!(rows.len(), 48);
                for (name, address) in rows {
                    let row = format!("| **{name}** | `{address}` |\n");
                    assert!(p.system.contains(&row), "{row}");
                }
                for hint in [
                    "base units",
                    "decimals",
                    "The transactions are sent from",
                    "Address book:",
                    "Crucible_",
                    "exactly these fields",
                ] {
                    assert!(!p.system.contains(hint) && !p.user.contains(hint), "{hint}");
                }
                let sender = q.metadata.sender.as_deref().unwrap();
                if setting == Setting::Direct {
                    // (demonstrations may name it in their intents)
                    assert!(
                        !p.system.contains(sender),
                        "the sender is not in the paper's prompt"
                    );
                }
                let want = if q.ground_truth.is_multi() {
                    crate::paper::MULTI_STEP_INSTRUCTION
                } else {
                    crate::paper::SINGLE_STEP_INSTRUCTION
                };
                assert!(p.system.starts_with(want));
                for key in [
                    "\"contract\"",
                    "\"contract_address\"",
                    "\"function\"",
                    "\"params\"",
                    "\"type\"",
                    "\"val\"",
                    "\"value\"",
                ] {
                    assert!(p.system.contains(key), "{key}");
                }
                match setting {
                    Setting::Direct => {
                        assert_eq!(
                            p.system,
                            format!("{want}\n{}", crate::paper::paper_book_markdown())
                        );
                        assert_eq!(p.user, format!("User intent:\n{}", q.intent));
                    }
                    Setting::Retrieval => {
                        assert_eq!(p.demonstrations.len(), 3);
                        assert_eq!(p.system.matches("Example Input: User intent:\n").count(), 3);
                        assert!(p
                            .system
                            .contains("\n## Reference Examples (Few-Shot):\n--- Example 1 ---\n"));
                        assert_eq!(
                            p.user,
                            format!("Now, please process the following intent:\nUser intent: User intent:\n{}", q.intent)
                        );
                    }
                }
            }
        }
        // The B.2 example values, exactly as printed.
        assert!(crate::paper::SINGLE_STEP_INSTRUCTION.contains(
            "\"contract\": string,              // contract name (e.g., \"UniswapV2Router02\")"
        ));
        assert!(crate::paper::SINGLE_STEP_INSTRUCTION
            .contains("0x7a250d5630b4cf539739df2c5dacabf6959a1e"));
    }

    fn call(contract: &str, function: &str) -> crate::schema::Call {
        crate::schema::Call {
            contract: contract.into(),
            contract_address: "0x0000000000000000000000000000000000000001".into(),
            function: function.into(),
            params: vec![],
            value: serde_json::json!(0),
        }
    }

    fn inst(id: &str, intent: &str, category: &str, steps: &[(&str, &str)]) -> Instance {
        use crate::schema::{Metadata, Truth};
        let calls: Vec<_> = steps.iter().map(|(c, f)| call(c, f)).collect();
        Instance {
            id: id.into(),
            intent: intent.into(),
            ground_truth: if calls.len() == 1 {
                Truth::Single(calls.into_iter().next().unwrap())
            } else {
                Truth::Multi(calls)
            },
            metadata: Metadata {
                category: category.into(),
                ..Metadata::default()
            },
        }
    }

    /// Hand-computed: query pairs {(A,f), (B,g)}.
    /// p0 {(A,f)}: single-step, never a candidate for a multi-step query.
    /// p1 {(A,f),(B,g)}: J = 1.   p2 {(A,f),(C,h)}: J = 1/3.   p3 {(a,f),(B,x)}: no pair
    /// (names compare exactly), fallback 0.4 · ratio("User intent:\nabcd", "User intent:\nabce")
    /// = 0.4 · 2·16/34.   p4 {(D,k),(E,m)}: fallback 0.4 · ratio(…abcd, …zzzz) = 0.4 · 2·13/34.
    /// p5: same intent as the query, excluded.
    #[test]
    fn paper_retrieval_is_jaccard_over_ground_truth_pairs_with_the_difflib_fallback() {
        let book = AddressBook::builtin();
        let q = inst("q", "abcd", "Swap", &[("A", "f"), ("B", "g")]);
        let pool = vec![
            inst("p0", "abcd x", "Swap", &[("A", "f")]),
            inst("p1", "wxyz", "Swap", &[("A", "f"), ("B", "g")]),
            inst("p2", "wxyq", "Lending", &[("A", "f"), ("C", "h")]),
            inst("p3", "abce", "Swap", &[("a", "f"), ("B", "x")]),
            inst("p4", "zzzz", "Lending", &[("D", "k"), ("E", "m")]),
            inst("p5", "abcd", "Lending", &[("A", "f"), ("B", "g")]),
        ];
        let r = Retriever::new(pool, &book);
        let hits = r.top_k_with(&q, 4, RetrievalMode::Paper);
        let got: Vec<(usize, f64)> = hits.iter().map(|h| (h.index, h.score)).collect();
        let fb3 = 0.4 * 32.0 / 34.0;
        let fb4 = 0.4 * 26.0 / 34.0;
        let want = [(1, 1.0), (3, fb3), (2, 1.0 / 3.0), (4, fb4)];
        assert_eq!(got.len(), want.len());
        for ((gi, gs), (wi, ws)) in got.iter().zip(want) {
            assert_eq!(*gi, wi, "{got:?}");
            assert!((gs - ws).abs() < 1e-12, "{got:?}");
        }
        assert!((hits[1].text_jaccard - 32.0 / 34.0).abs() < 1e-12);
        assert_eq!(hits[0].pair_jaccard, 1.0);
        // Held out: the query's category (Swap) never appears.
        let held = r.top_k_with(&q, 4, RetrievalMode::HeldOutCategory);
        let idx: Vec<usize> = held.iter().map(|h| h.index).collect();
        assert_eq!(idx, vec![2, 4]);
        // The single-step query sees only single-step candidates.
        let s = inst("s", "abcd", "Swap", &[("A", "f")]);
        let idx: Vec<usize> = r
            .top_k_with(&s, 3, RetrievalMode::Paper)
            .iter()
            .map(|h| h.index)
            .collect();
        assert_eq!(idx, vec![0]);
        for m in RetrievalMode::ALL {
            assert_eq!(RetrievalMode::parse(m.as_str()), Some(m));
        }
        assert_eq!(RetrievalMode::default(), RetrievalMode::Paper);
        assert_eq!(RetrievalMode::parse("oracle"), None);
    }

    #[test]
    fn held_out_category_never_shows_the_query_category() {
        let (_, r, queries) = setup();
        for q in queries.iter().take(60) {
            let hits = r.top_k_with(q, 3, RetrievalMode::HeldOutCategory);
            assert_eq!(hits.len(), 3);
            for h in hits {
                let p = &r.pool()[h.index];
                assert_ne!(p.metadata.category, q.metadata.category);
                assert_eq!(p.ground_truth.is_multi(), q.ground_truth.is_multi());
            }
        }
    }

    /// The bound-pruned text fallback ranks exactly as computing every ratio would.
    #[test]
    fn pruned_fallback_equals_brute_force() {
        let (_, r, queries) = setup();
        for (n, q) in queries.iter().enumerate().take(40) {
            let held_out = n % 2 == 0;
            let mode = if held_out {
                RetrievalMode::HeldOutCategory
            } else {
                RetrievalMode::Paper
            };
            let got: Vec<usize> = r.top_k_with(q, 3, mode).iter().map(|h| h.index).collect();
            let qp = exact_pairs(q);
            let qi = release_input_of(&q.intent);
            let mut all: Vec<(f64, usize)> = r
                .pool()
                .iter()
                .enumerate()
                .filter(|(_, p)| {
                    p.ground_truth.is_multi() == q.ground_truth.is_multi()
                        && p.id != q.id
                        && p.intent != q.intent
                        && !(held_out && p.metadata.category == q.metadata.category)
                })
                .map(|(i, p)| {
                    let j = jaccard(&qp, &exact_pairs(p));
                    let s = if j == 0.0 {
                        0.4 * difflib::ratio(&qi, &release_input_of(&p.intent))
                    } else {
                        j
                    };
                    (s, i)
                })
                .collect();
            all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let want: Vec<usize> = all.iter().take(3).map(|x| x.1).collect();
            assert_eq!(got, want, "{}", q.id);
        }
    }
}
