//! Seeded synthetic datasets for `crucible bench report` and the report tests, and a writer that
//! puts any [`Dataset`] into a store that follows the contract (tables must already exist),
//! through the store crate's synthetic writer: the rows' SQL is the store's, not this crate's.
//!
//! Shapes follow the real catalogues: QuestBench 62 atomic + 45 composite tasks, Intent2Tx's
//! 1,145-instance test set in both settings, PILOT's 5,040 tasks × four prompt types. Each model
//! has a seeded skill and each task a seeded difficulty, so ranks are stable across rounds the way
//! real runs are.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crucible_report::dataset::{Bench, Dataset, Metrics, Sample, MISSING};
use crucible_store::{Store, StoreError, SyntheticRun, SyntheticSample};

/// Size of a synthetic dataset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SynthSpec {
    /// Models.
    pub models: usize,
    /// Rounds per model.
    pub rounds: usize,
    /// Intent2Tx instances (each in both settings).
    pub intent_tasks: usize,
    /// PILOT tasks (each with four prompt types).
    pub pilot_tasks: usize,
    /// Seed.
    pub seed: u64,
}

impl Default for SynthSpec {
    /// 20 models × 5 rounds × all tasks.
    fn default() -> Self {
        Self {
            models: 20,
            rounds: 5,
            intent_tasks: 1145,
            pilot_tasks: 5040,
            seed: 7,
        }
    }
}

const ATOMIC_SUB: [(&str, &str, usize); 10] = [
    ("basic_transactions", "native_transfer", 7),
    ("basic_transactions", "erc20_operations", 12),
    ("basic_transactions", "nft_operations", 6),
    ("basic_transactions", "contract_call", 3),
    ("basic_transactions", "blockchain_queries", 12),
    ("defi_operations", "pancakeswap_swap", 5),
    ("defi_operations", "pancakeswap_liquidity", 4),
    ("defi_operations", "staking_farming", 5),
    ("defi_operations", "pancakeswap_queries", 5),
    ("advanced_features", "flashloan", 3),
];
const PATTERNS: [&str; 6] = [
    "approve_then_act",
    "swap_chain",
    "liquidity_lifecycle",
    "stake_and_claim",
    "query_then_act",
    "error_recovery",
];
const PILOT_TYPES: [(&str, &str, usize); 5] = [
    ("basic_file_processing", "easy", 1200),
    ("simple_data_transformation", "easy", 320),
    ("complex_validation_pipeline", "medium", 1520),
    ("complex_network_integration", "medium", 1360),
    ("advanced_computation_pipeline", "hard", 640),
];
const FLAWS: [(&str, [&str; 2]); 7] = [
    ("order", ["swap_adjacent", "dependency_violation"]),
    ("tool_misuse", ["similar_tool", "wrong_category"]),
    ("parameter", ["missing_required", "wrong_type"]),
    ("missing_step", ["middle_step", "validation_step"]),
    ("redundant", ["duplicate_step", "useless_tool"]),
    ("logic_discontinuity", ["format_mismatch", "unrelated_tool"]),
    (
        "semantic_drift",
        ["similar_replacement", "progressive_drift"],
    ),
];

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

struct Builder {
    ds: Dataset,
}

impl Builder {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        bench: Bench,
        model: u32,
        instance: &str,
        task: &str,
        prompt_type: &str,
        round: u32,
        labels: [&str; 4],
        outcome: &str,
        score: f64,
        passed: bool,
        metrics: Metrics,
        k: (Option<u16>, Option<u16>),
        cost: f64,
    ) {
        let metrics = self.ds.add_metrics(metrics);
        let n = &mut self.ds.names;
        let s = Sample {
            bench,
            run: 0,
            model,
            instance: n.id(instance),
            task: n.id(task),
            prompt_type: n.id(prompt_type),
            round,
            kind: n.id(labels[0]),
            category: n.id(labels[1]),
            subcategory: n.id(labels[2]),
            difficulty: n.id(labels[3]),
            outcome: n.id(outcome),
            score,
            passed,
            metrics,
            k_act: k.0,
            k_opt: k.1,
            cost_usd: cost,
            model_calls: 0,
            truncated_calls: 0,
            unpriced_calls: 0,
            // Synthetic data has one scoring.
            other_score: score,
            other_passed: passed,
            overridden: false,
        };
        self.ds.samples.push(s);
    }
}

/// Generates a synthetic dataset (one run, id `run-synthetic`). Same spec → same dataset.
pub fn generate(spec: &SynthSpec) -> Dataset {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let mut b = Builder {
        ds: Dataset {
            runs: vec!["run-synthetic".into()],
            ..Default::default()
        },
    };
    let models: Vec<(u32, f64, f64)> = (0..spec.models)
        .map(|i| {
            let id = b.ds.names.id(&format!("synthetic:model-{:02}", i + 1));
            (id, rng.random_range(-1.5..2.5), rng.random_range(0.2..5.0))
        })
        .collect();
    // QuestBench tasks: (id, kind, category, subcategory, difficulty, hardness, k_opt)
    let mut quest = Vec::new();
    for (cat, sub, n) in ATOMIC_SUB {
        for i in 0..n {
            let h: f64 = rng.random_range(-2.0..2.0);
            let d = if h < -0.7 {
                "easy"
            } else if h < 0.7 {
                "medium"
            } else {
                "hard"
            };
            quest.push((format!("{sub}_{i}"), "atomic", cat, sub, d, h, None));
        }
    }
    for i in 0..45 {
        let pat = PATTERNS[i % PATTERNS.len()];
        let h: f64 = rng.random_range(-1.0..3.0);
        let kopt = 2 + (i % 5) as u16;
        quest.push((
            format!("{pat}_{i}"),
            "composite",
            pat,
            pat,
            "hard",
            h,
            Some(kopt),
        ));
    }
    let intent: Vec<(String, &str, &str, f64)> = (0..spec.intent_tasks)
        .map(|i| {
            let multi = i % 8 == 7;
            let cat = ["Transfer", "Swap", "TokenLifecycle", "Lending", "Staking"][i % 5];
            (
                format!("i2t-{i:05}"),
                if multi { "multi" } else { "single" },
                cat,
                rng.random_range(-1.5..2.0),
            )
        })
        .collect();
    let mut pilot = Vec::new();
    let total: usize = PILOT_TYPES.iter().map(|t| t.2).sum();
    for (ty, cx, n) in PILOT_TYPES {
        let share = (n * spec.pilot_tasks).div_ceil(total);
        for i in 0..share {
            let h = rng.random_range(-1.0..1.0) + if cx == "hard" { 1.0 } else { 0.0 };
            pilot.push((
                format!("{ty}_{i:04}"),
                ty,
                cx,
                h,
                FLAWS[i % 7].0,
                FLAWS[i % 7].1[i / 7 % 2],
            ));
        }
    }
    pilot.truncate(spec.pilot_tasks);

    for &(m, skill, price) in &models {
        for round in 0..spec.rounds as u32 {
            for (id, kind, cat, sub, diff, h, kopt) in &quest {
                let p = sigmoid(skill - h + rng.random_range(-0.5..0.5));
                let u: f64 = rng.random();
                let (outcome, score) = if u < p {
                    ("pass", if rng.random_bool(0.8) { 1.0 } else { 0.8 })
                } else {
                    match rng.random_range(0..4) {
                        0 => ("revert", 0.0),
                        1 => ("schema_invalid", 0.0),
                        2 => ("timeout", 0.0),
                        _ => ("fail", 0.4),
                    }
                };
                let k = kopt.map(|o| {
                    let extra = (rng.random_range(0.0..1.0f64) * (3.0 - skill).max(0.5)) as u16;
                    (o + extra, o)
                });
                let score = match k {
                    Some((a, o)) => score * (o as f64 / a as f64).min(1.0),
                    None => score,
                };
                let cost = price * 1e-4 * rng.random_range(0.5..1.5);
                b.push(
                    Bench::Questbench,
                    m,
                    id,
                    id,
                    "",
                    round,
                    [kind, cat, sub, diff],
                    outcome,
                    score,
                    score >= 0.6,
                    Metrics::default(),
                    (k.map(|x| x.0), k.map(|x| x.1)),
                    cost,
                );
            }
            for (id, kind, cat, h) in &intent {
                for setting in ["direct", "retrieval"] {
                    let lift = if setting == "retrieval" { 1.0 } else { 0.0 };
                    let p = sigmoid(skill + lift - h);
                    let format = if rng.random_bool(0.95) { 1.0 } else { 0.0 };
                    let logic = if format == 0.0 {
                        0.0
                    } else if rng.random_bool(p.sqrt()) {
                        1.0
                    } else {
                        0.6
                    };
                    let param = if logic < 0.8 {
                        rng.random_range(0.0..0.7)
                    } else if rng.random_bool(p) {
                        1.0
                    } else {
                        0.7
                    };
                    let pass = if logic >= 0.8 && param == 1.0 {
                        1.0
                    } else {
                        0.0
                    };
                    let fin = 0.1 * format + 0.3 * logic + 0.2 * param + 0.4 * pass;
                    let exec = if format == 1.0 && rng.random_bool(p.max(pass)) {
                        1.0
                    } else {
                        0.0
                    };
                    let eq = if exec == 1.0 && (pass == 1.0 || rng.random_bool(0.2)) {
                        1.0
                    } else {
                        0.0
                    };
                    let metrics = Metrics {
                        format,
                        logic,
                        param,
                        pass,
                        final_: fin,
                        exec,
                        state_eq: eq,
                        truth_exec: 1.0,
                        ..Metrics::default()
                    };
                    let outcome = if format == 0.0 {
                        "format_error"
                    } else if pass == 1.0 {
                        "pass"
                    } else {
                        "fail"
                    };
                    let inst = format!("{id}#{setting}");
                    let cost = price * 2e-5;
                    b.push(
                        Bench::Intent2tx,
                        m,
                        &inst,
                        id,
                        setting,
                        round,
                        [kind, cat, "", ""],
                        outcome,
                        fin,
                        pass == 1.0,
                        metrics,
                        (None, None),
                        cost,
                    );
                }
            }
            for (id, ty, cx, h, flaw, method) in &pilot {
                for pt in ["baseline", "cot", "optimal", "flawed"] {
                    let bonus = match pt {
                        "optimal" => 0.6,
                        "flawed" => 0.2,
                        "cot" => 0.05,
                        _ => 0.0,
                    };
                    let p = sigmoid(skill * 0.6 + bonus - h);
                    let u: f64 = rng.random();
                    let (outcome, score) = if u < p {
                        ("full_success", 1.0)
                    } else if u < p + (1.0 - p) * 0.4 {
                        ("partial_success", 0.5)
                    } else {
                        ("failure", 0.0)
                    };
                    let (c, me) = if pt == "flawed" {
                        (*flaw, *method)
                    } else {
                        ("", "")
                    };
                    let inst = format!("{id}#{pt}");
                    b.push(
                        Bench::Pilot,
                        m,
                        &inst,
                        id,
                        pt,
                        round,
                        [ty, c, me, cx],
                        outcome,
                        score,
                        outcome == "full_success",
                        Metrics {
                            ..Default::default()
                        },
                        (None, None),
                        price * 3e-5,
                    );
                }
            }
        }
    }
    let _ = MISSING;
    b.ds
}

/// Writes `ds` into a contract store whose tables exist through the store's synthetic writer
/// ([`Store::write_synthetic`]): one `runs` row per run id (status finished, fixed timestamps),
/// its models (`run_models`, by name id), and every sample in order. One transaction.
pub async fn write_store(store: &Store, ds: &Dataset) -> Result<(), StoreError> {
    let runs: Vec<SyntheticRun<'_>> = ds
        .runs
        .iter()
        .enumerate()
        .map(|(i, run)| {
            let mut models: Vec<u32> = ds
                .samples
                .iter()
                .filter(|s| s.run as usize == i)
                .map(|s| s.model)
                .collect();
            models.sort_unstable();
            models.dedup();
            SyntheticRun {
                id: run,
                models: models.into_iter().map(|m| ds.name(m)).collect(),
            }
        })
        .collect();
    let samples = ds.samples.iter().map(|s| SyntheticSample {
        run_id: &ds.runs[s.run as usize],
        benchmark: s.bench.as_str(),
        model: ds.name(s.model),
        instance: ds.name(s.instance),
        task: ds.name(s.task),
        prompt_type: ds.name(s.prompt_type),
        round: s.round as i64,
        kind: ds.name(s.kind),
        category: ds.name(s.category),
        subcategory: ds.name(s.subcategory),
        difficulty: ds.name(s.difficulty),
        outcome: ds.outcome(s),
        score: s.score,
        passed: s.passed,
        metrics: metrics_json(&ds.metrics_of(s)),
        k_act: s.k_act.map(i64::from),
        k_opt: s.k_opt.map(i64::from),
        cost_usd: s.cost_usd,
    });
    store.write_synthetic(&runs, samples).await
}

/// The `metrics` JSON of a sample (absent metrics omitted).
pub fn metrics_json(m: &Metrics) -> String {
    let mut o = serde_json::Map::new();
    for (k, v) in [
        ("format", m.format),
        ("logic", m.logic),
        ("param", m.param),
        ("pass", m.pass),
        ("final", m.final_),
        ("exec", m.exec),
        ("state_eq", m.state_eq),
    ] {
        if !v.is_nan() {
            o.insert(k.into(), serde_json::json!(v));
        }
    }
    serde_json::Value::Object(o).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_dataset() {
        let spec = SynthSpec {
            models: 2,
            rounds: 2,
            intent_tasks: 10,
            pilot_tasks: 12,
            seed: 3,
        };
        let a = generate(&spec);
        let b = generate(&spec);
        // Debug text compares NaN metrics too (NaN != NaN under PartialEq).
        assert_eq!(format!("{:?}", a.samples), format!("{:?}", b.samples));
        assert_eq!(a.samples.len(), 2 * 2 * (107 + 10 * 2 + 12 * 4));
        let c = generate(&SynthSpec { seed: 4, ..spec });
        assert_ne!(format!("{:?}", a.samples), format!("{:?}", c.samples));
    }
}
