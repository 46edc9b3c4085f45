//! The static-metric throughput figure printed by `crucible bench intent2tx`: parse and score a
//! large generated dataset answered by the built-in agents. Timing lives here, never in tests.

use std::time::Instant;

use serde::Serialize;

use super::agents::BuiltinAgent;
use super::book::AddressBook;
use super::generate::{generate, GenerateOptions};
use super::metrics::score_text;
use super::IntentError;

/// Mean metrics over a scored set.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Means {
    /// Mean S_fmt.
    pub fmt: f64,
    /// Mean S_log.
    pub logic: f64,
    /// Mean S_prm.
    pub param: f64,
    /// Mean S_pass.
    pub pass: f64,
    /// Mean S_final.
    #[serde(rename = "final")]
    pub final_score: f64,
}

/// Figures of one static-metric benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct StaticFigures {
    /// Instances scored.
    pub instances: usize,
    /// Of which multi-step.
    pub multi_step: usize,
    /// Seed of the generated dataset.
    pub seed: u64,
    /// Seconds to generate the dataset (not part of the target).
    pub generate_seconds: f64,
    /// Seconds for the agents to write their answers (not part of the target).
    pub answer_seconds: f64,
    /// Seconds to parse and score every answer: the figure the ≤ 1 s target is about.
    pub score_seconds: f64,
    /// Instances scored per second.
    pub instances_per_second: f64,
    /// Threads the scoring ran on (one per available core).
    pub threads: usize,
    /// The target: 30,000 instances in at most this many seconds.
    pub target_seconds_for_30000: f64,
    /// Whether the measured rate meets the target.
    pub meets_target: bool,
    /// Mean metrics (the answers rotate over all built-in agents, every fifth one fenced with
    /// prose so the repair path is exercised).
    pub means: Means,
}

/// Generates `count` instances with `seed`, answers them and times the scoring.
pub fn static_throughput(
    count: usize,
    seed: u64,
    book: &AddressBook,
) -> Result<StaticFigures, IntentError> {
    let t0 = Instant::now();
    let generated = generate(GenerateOptions::new(seed, count), book)?;
    let generate_seconds = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let answers: Vec<String> = generated
        .instances
        .iter()
        .enumerate()
        .map(|(i, inst)| {
            let a = BuiltinAgent::ALL[i % BuiltinAgent::ALL.len()].answer(inst, book);
            if i % 5 == 4 {
                format!("Here is the transaction:\n```json\n{a}\n```")
            } else {
                a
            }
        })
        .collect();
    let answer_seconds = t1.elapsed().as_secs_f64();
    // Scoring is embarrassingly parallel: one chunk per core (2 on the reference machine).
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 16);
    let pairs: Vec<(&super::Instance, &String)> =
        generated.instances.iter().zip(&answers).collect();
    let chunk = pairs.len().div_ceil(threads).max(1);
    let t2 = Instant::now();
    let partials: Vec<Vec<[f64; 5]>> = std::thread::scope(|scope| {
        let handles: Vec<_> = pairs
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(inst, text)| {
                            let s = score_text(inst, text);
                            [s.fmt, s.logic, s.param, s.pass, s.final_score]
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    // Summed in instance order, so the means do not depend on the thread count.
    let mut m = Means::default();
    for p in partials.iter().flatten() {
        m.fmt += p[0];
        m.logic += p[1];
        m.param += p[2];
        m.pass += p[3];
        m.final_score += p[4];
    }
    let score_seconds = t2.elapsed().as_secs_f64();
    let n = count.max(1) as f64;
    let means = Means {
        fmt: m.fmt / n,
        logic: m.logic / n,
        param: m.param / n,
        pass: m.pass / n,
        final_score: m.final_score / n,
    };
    let rate = count as f64 / score_seconds.max(1e-9);
    Ok(StaticFigures {
        instances: count,
        multi_step: generated.distribution.multi_step,
        seed,
        generate_seconds,
        answer_seconds,
        score_seconds,
        instances_per_second: rate,
        threads,
        target_seconds_for_30000: 1.0,
        meets_target: rate >= 30_000.0,
        means,
    })
}

/// Static scores of one built-in agent over a dataset.
#[derive(Debug, Clone, Serialize)]
pub struct AgentFigures {
    /// Agent name.
    pub agent: &'static str,
    /// Instances scored.
    pub instances: usize,
    /// Instances the agent's fault changes.
    pub applied: usize,
    /// Means over every instance.
    pub means: Means,
    /// Means over the instances the fault applies to (equal to `means` for `reference`).
    pub means_applied: Means,
}

/// Scores every built-in agent over `instances`, without a chain.
pub fn agent_figures(instances: &[super::Instance], book: &AddressBook) -> Vec<AgentFigures> {
    BuiltinAgent::ALL
        .into_iter()
        .map(|agent| {
            let mut all = Means::default();
            let mut hit = Means::default();
            let mut applied = 0usize;
            for inst in instances {
                let s = score_text(inst, &agent.answer(inst, book));
                let add = |m: &mut Means| {
                    m.fmt += s.fmt;
                    m.logic += s.logic;
                    m.param += s.param;
                    m.pass += s.pass;
                    m.final_score += s.final_score;
                };
                add(&mut all);
                if agent == BuiltinAgent::Reference || agent.applies(inst, book) {
                    applied += 1;
                    add(&mut hit);
                }
            }
            let div = |m: Means, n: usize| {
                let n = n.max(1) as f64;
                Means {
                    fmt: m.fmt / n,
                    logic: m.logic / n,
                    param: m.param / n,
                    pass: m.pass / n,
                    final_score: m.final_score / n,
                }
            };
            AgentFigures {
                agent: agent.name(),
                instances: instances.len(),
                applied,
                means: div(all, instances.len()),
                means_applied: div(hit, applied),
            }
        })
        .collect()
}

/// How well the query-time retriever finds demonstrations sharing a `<contract, function>` pair
/// with the query's (hidden) ground truth, next to the paper's oracle retriever.
#[derive(Debug, Clone, Serialize)]
pub struct RetrievalFigures {
    /// Queries.
    pub queries: usize,
    /// Pool size.
    pub pool: usize,
    /// Share of queries whose top demonstration shares a pair with the truth (query-time signals).
    pub top1_shares_pair: f64,
    /// Share of queries with at least one of the top 3 sharing a pair (query-time signals).
    pub top3_any_shares_pair: f64,
    /// The same top-1 share for the oracle retriever (uses the query's ground truth).
    pub oracle_top1_shares_pair: f64,
}

/// Measures the retriever over `queries` against `pool`.
pub fn retrieval_figures(
    queries: &[super::Instance],
    pool: Vec<super::Instance>,
    book: &AddressBook,
) -> RetrievalFigures {
    use std::collections::BTreeSet;
    let pool_len = pool.len();
    let r = super::Retriever::new(pool, book);
    let shares = |q: &super::Instance, idx: usize| {
        let a: BTreeSet<_> = q.pairs().into_iter().collect();
        r.pool()[idx].pairs().into_iter().any(|p| a.contains(&p))
    };
    let (mut t1, mut t3, mut o1) = (0usize, 0usize, 0usize);
    for q in queries {
        let hits = r.top_k(q, 3);
        if hits.first().is_some_and(|h| shares(q, h.index)) {
            t1 += 1;
        }
        if hits.iter().any(|h| shares(q, h.index)) {
            t3 += 1;
        }
        if r.top_k_oracle(q, 1)
            .first()
            .is_some_and(|h| shares(q, h.index))
        {
            o1 += 1;
        }
    }
    let n = queries.len().max(1) as f64;
    RetrievalFigures {
        queries: queries.len(),
        pool: pool_len,
        top1_shares_pair: t1 as f64 / n,
        top3_any_shares_pair: t3 as f64 / n,
        oracle_top1_shares_pair: o1 as f64 / n,
    }
}
