//! The offline instance generator: a pure function of (seed, count, address book) that writes
//! Intent2Tx instances — intent text from templates, ground truth in the paper's schema — for every
//! category the implemented contracts support.
//!
//! Intent-synthesis rules (the paper's): colloquial wording for common actions (transfers,
//! approvals, wrapping), precise wording for DeFi (swaps with limits and deadlines, lending,
//! liquidity, staking, vaults), explicit ids, addresses and raw values for niche calls (NFTs,
//! governance). Multi-step instances chain related actions of one sender and join their clauses
//! with "then" / "and".
//!
//! Generation never touches a chain. The chain-aware layer executes each candidate from the
//! universe snapshot and drops the ones that revert by passing an [`InstanceFilter`] to
//! [`generate_filtered`]; [`generate`] keeps every candidate. The universe state the amounts assume
//! is [`FUNDING`] (documented in docs/intent2tx.md).

//!
//! `options` says what is asked, `fixture` what the universe is assumed to hold and what the book
//! must name, `builder` the seeded drawing and ABI-shaped calls every template shares, one module
//! per action family (`transfer`, `swap`, `liquidity`, `lending`, `staking`, `governance`, `nft`)
//! turns a drawn action into a call and its clause, `templates` picks and combines them (single-
//! and multi-step) and `output` turns drafts into instances and counts them. The order of random
//! draws is the dataset: a change anywhere here changes the shipped files (a test regenerates them
//! byte for byte). `paper_shape` draws the paper-shaped test set and pool (1,145 and 30,351
//! instances, eleven categories) without changing the default draws.

mod builder;
mod fixture;
mod governance;
mod lending;
mod liquidity;
mod nft;
mod options;
mod output;
mod paper_shape;
mod staking;
mod swap;
mod templates;
mod transfer;

pub use fixture::{
    DEADLINE, FUNDING, ITEM_IDS, NFT_IDS, PUNKS_OFFERED, PUNKS_OWNED, RECIPIENTS, SENDER,
};
pub use governance::{fixture_proposal, proposal_id};
pub use options::{GenerateOptions, InstanceFilter, KeepAll, MAX_COUNT};
pub use output::{Distribution, Generated};
pub use paper_shape::{
    generate_paper_shaped, paper_multi_count, paper_quotas, PAPER_CATEGORY_MIX, PAPER_MULTI_STEP,
    PAPER_POOL_COUNT, PAPER_SINGLE_STEP, PAPER_TEST_COUNT,
};

/// Seed of the paper-shaped test set ([`paper_test_set`]).
pub const PAPER_TEST_SEED: u64 = 20_270;
/// Seed of the paper-shaped retrieval pool ([`paper_pool`]).
pub const PAPER_POOL_SEED: u64 = 20_271;

/// The paper-shaped test set as the static generator draws it: [`PAPER_TEST_COUNT`] instances,
/// seed [`PAPER_TEST_SEED`], every candidate kept. The shipped `tasks/intent2tx/paper/` is the
/// same draw with the chain filter (`generate --paper --execute`: 19 of 1,164 candidates revert —
/// USDT re-approvals and LP removals — and are redrawn in their category); use it to run.
pub fn paper_test_set(book: &AddressBook) -> Result<Vec<crate::Instance>, IntentError> {
    Ok(generate_paper_shaped(PAPER_TEST_SEED, PAPER_TEST_COUNT, book, &mut KeepAll)?.instances)
}

/// The paper-shaped retrieval pool: [`PAPER_POOL_COUNT`] instances (the paper's 31,496 minus the
/// test set), seed [`PAPER_POOL_SEED`], generated at load (about 25 MB as JSONL, so not shipped),
/// not chain-filtered (demonstrations are labelled examples; a few would revert on the fixture);
/// disjoint from the test sets by id and, for the retriever, by intent text.
pub fn paper_pool(book: &AddressBook) -> Result<Vec<crate::Instance>, IntentError> {
    Ok(generate_paper_shaped(PAPER_POOL_SEED, PAPER_POOL_COUNT, book, &mut KeepAll)?.instances)
}

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::book::AddressBook;
use crate::IntentError;

use builder::Gen;
use fixture::check_book;

/// Generates `count` instances, keeping every candidate.
pub fn generate(opts: GenerateOptions, book: &AddressBook) -> Result<Generated, IntentError> {
    generate_filtered(opts, book, &mut KeepAll)
}

/// Generates candidates in a fixed seeded order until `count` pass `filter` (at most `20·count + 100`
/// candidates are drawn). With a deterministic filter the output is deterministic.
pub fn generate_filtered(
    opts: GenerateOptions,
    book: &AddressBook,
    filter: &mut dyn InstanceFilter,
) -> Result<Generated, IntentError> {
    opts.check()?;
    check_book(book)?;
    let mut g = Gen {
        book,
        rng: ChaCha8Rng::seed_from_u64(opts.seed),
    };
    let mut instances = Vec::with_capacity(opts.count.min(1 << 16));
    let mut rejected = 0;
    let max = opts.count.saturating_mul(20).saturating_add(100);
    let mut index = 0usize;
    while instances.len() < opts.count {
        if index >= max {
            return Err(IntentError::InvalidOption(format!(
                "the filter rejected {rejected} of {index} candidates; only {} kept",
                instances.len()
            )));
        }
        let multi = g.rng.random_bool(opts.multi_fraction);
        let draft = if multi { g.multi() } else { g.single() };
        let inst = draft.into_instance(opts.seed, index);
        index += 1;
        if filter.keep(&inst) {
            instances.push(inst);
        } else {
            rejected += 1;
        }
    }
    let distribution = Distribution::of(&instances);
    tracing::debug!(target: "intent::generate", seed = opts.seed, count = opts.count, rejected, "generated");
    Ok(Generated {
        instances,
        distribution,
        rejected,
    })
}

#[cfg(test)]
mod tests {
    use alloy::primitives::Address;
    use serde_json::Value;

    use super::*;
    use crate::encode::encode_call;
    use crate::schema::Instance;
    use crate::value::parse_address;

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let book = AddressBook::builtin();
        let a = generate(GenerateOptions::new(7, 200), &book).unwrap();
        let b = generate(GenerateOptions::new(7, 200), &book).unwrap();
        let c = generate(GenerateOptions::new(8, 200), &book).unwrap();
        let ser = |g: &Generated| serde_json::to_string(&g.instances).unwrap();
        assert_eq!(ser(&a), ser(&b));
        assert_ne!(ser(&a), ser(&c));
        assert_eq!(a.instances.len(), 200);
    }

    #[test]
    fn every_ground_truth_encodes_and_every_category_appears() {
        let book = AddressBook::builtin();
        let g = generate(GenerateOptions::new(1, 1500), &book).unwrap();
        for inst in &g.instances {
            for call in inst.ground_truth.steps() {
                encode_call(&book, call)
                    .unwrap_or_else(|e| panic!("{}: {e}\n{}", inst.id, inst.intent));
            }
        }
        let cats: Vec<&str> = g
            .distribution
            .categories
            .keys()
            .map(|s| s.as_str())
            .collect();
        assert_eq!(
            cats,
            [
                "AssetTransformation",
                "Governance",
                "Lending",
                "Liquidity",
                "NFT",
                "Staking",
                "Swap",
                "TokenLifecycle",
                "Transfer",
                "Vault"
            ]
        );
        assert!(
            g.distribution.multi_step > 200 && g.distribution.single_step > 1000,
            "{:?}",
            g.distribution
        );
        assert_eq!(g.distribution.styles.len(), 3);
        assert!(g.distribution.sub_categories.contains_key("MultiHopSwap"));
        assert!(g
            .distribution
            .sub_categories
            .contains_key("ExecuteProposal"));
    }

    #[test]
    fn multi_step_intents_are_joined_with_then_or_and() {
        let book = AddressBook::builtin();
        let g = generate(
            GenerateOptions {
                seed: 3,
                count: 50,
                multi_fraction: 1.0,
            },
            &book,
        )
        .unwrap();
        for inst in &g.instances {
            assert!(inst.ground_truth.steps().len() >= 2);
            assert!(
                inst.intent.contains(" then ") || inst.intent.contains(" and "),
                "{}",
                inst.intent
            );
        }
    }

    #[test]
    fn intents_state_every_address_of_the_truth_they_do_not_get_from_the_book() {
        // A model can only be right if the intent (plus the book and the sender) determines the
        // call: every address param is the sender, a book contract, or written in the intent.
        let book = AddressBook::builtin();
        let g = generate(GenerateOptions::new(11, 600), &book).unwrap();
        for inst in &g.instances {
            for call in inst.ground_truth.steps() {
                for (name, p) in &call.params {
                    let vals: Vec<&Value> = match &p.val {
                        Value::Array(a) if p.ty == "address[]" => a.iter().collect(),
                        v if p.ty == "address" => vec![v],
                        _ => vec![],
                    };
                    for v in vals {
                        let a = parse_address(v).unwrap();
                        let known = a == Address::ZERO
                            || book.by_address(a).is_some()
                            || inst
                                .intent
                                .to_lowercase()
                                .contains(&format!("{a:?}").to_lowercase())
                            || format!("{a:?}").eq_ignore_ascii_case(SENDER);
                        assert!(
                            known,
                            "{}: {name} = {v} not derivable from {:?}",
                            inst.id, inst.intent
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bad_options_are_rejected() {
        let book = AddressBook::builtin();
        let e = generate(
            GenerateOptions {
                seed: 1,
                count: 1,
                multi_fraction: 1.5,
            },
            &book,
        )
        .unwrap_err();
        assert!(e.to_string().contains("multi_fraction 1.5"));
        struct RejectAll;
        impl InstanceFilter for RejectAll {
            fn keep(&mut self, _: &Instance) -> bool {
                false
            }
        }
        let e = generate(GenerateOptions::new(1, MAX_COUNT + 1), &book).unwrap_err();
        assert!(e.to_string().contains("above the maximum"));
        // A closure is a filter: keep only single-step transfers.
        let mut only_transfers = |i: &Instance| {
            i.ground_truth
                .steps()
                .iter()
                .all(|c| c.function == "transfer")
        };
        let g = generate_filtered(GenerateOptions::new(5, 20), &book, &mut only_transfers).unwrap();
        assert_eq!(g.instances.len(), 20);
        assert!(g.rejected > 0);
        let e = generate_filtered(GenerateOptions::new(1, 2), &book, &mut RejectAll).unwrap_err();
        assert!(e.to_string().contains("rejected 140 of 140"), "{e}");
    }
}
