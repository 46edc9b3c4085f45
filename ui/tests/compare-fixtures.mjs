// The Compare screen's mocked data (two runs, five paired samples, the verdict the core would
// give, and sample traces), shared by the Compare tests and the contrast test.
const run = (run_id, created_at, models) => ({ run_id, status: "finished", created_at, samples: 40, passed: 20, benchmarks: ["questbench"], models, model_labels: models, fork: null });
export const RUNS = [
  run("run-new", "2026-11-22T11:00:00Z", ["builtin:reference", "openai:llama-3-70b"]),
  run("run-old", "2026-11-22T10:00:00Z", ["builtin:reference", "openai:llama-3-70b"]),
  run("run-older", "2026-11-21T10:00:00Z", ["builtin:reference"]),
];
export const [A, B] = ["builtin:reference", "openai:llama-3-70b"];
const pair = (i, passA, passB) => ({
  benchmark: "questbench", instance: `task_${i}`, task: `erc20_transfer_${i}`, category: "token_transfer", round: 0,
  model_a: A, model_b: B, id_a: 100 + i, id_b: 200 + i, score_a: passA ? 1 : 0.2, score_b: passB ? 1 : 0.2, passed_a: passA, passed_b: passB,
});
export const PAIRS = [pair(1, true, false), pair(2, true, false), pair(3, false, true), pair(4, true, true), pair(5, false, false)];
export const COMPARISON = {
  benchmark: "questbench", model_a: A, model_b: B, n_pairs: 5, tasks: 5, test: "exact sign test on per-task scores (rounds averaged per task)", mean_a: 68, mean_b: 52, diff: { diff: 16, lo: -16, hi: 48, resamples: 2000 },
  wins_a: 2, wins_b: 1, ties: 2, sign_p: 1, pass_only_a: 2, pass_only_b: 1, both_pass: 1, both_fail: 1, mcnemar_p: 1, separable: false,
};
export const SENTENCE = "builtin:reference and lab · llama-3-70b are not distinguishable on EVM-QuestBench: builtin:reference scores 16 points more than lab · llama-3-70b on average (95 % CI −16 to 48; exact sign test on per-task scores (rounds averaged per task) over 5 tasks, p = 1.000; 5 tasks cannot show a difference at the 5 % level, at least 6 are needed), not significant.";
export const VIEW = {
  compare: { run: "run-new", model_a: A, model_b: B, seed: 0, scoring: "paper", comparisons: [COMPARISON] },
  verdicts: [{
    benchmark: "questbench", model_a: A, model_b: B, label_a: A, label_b: "lab · llama-3-70b", outcome: "not_distinguishable", sentence: SENTENCE,
    diff_points: 16, ci_lo: -16, ci_hi: 48, confidence_pct: 95, n_pairs: 5, tasks: 5, test: "exact sign test on per-task scores (rounds averaged per task)", sign_p: 1, mcnemar_p: 1,
    counts: { only_a: 2, only_b: 1, both_pass: 1, both_fail: 1 },
  }],
  categories: [{ benchmark: "questbench", category: "token_transfer", n_pairs: 5, mean_a: 68, mean_b: 52, delta: 16 }],
  disagreements: PAIRS.filter((p) => p.passed_a !== p.passed_b),
  disagreements_total: 3,
  pairs: PAIRS,
};
export const trace = (id, model, outcome, passed) => ({
  summary: { id, run_id: "run-new", benchmark: "questbench", model, instance: "task_1", task: "erc20_transfer_1", prompt_type: "", round: 0, kind: "atomic", category: "token_transfer", difficulty: "easy", outcome, score: passed ? 1 : 0.2, passed },
  subcategory: "", seed: "42", prompt: { text: "Send 1 token", total_bytes: 12, truncated: false }, raw_answer: { text: "```ts\nexport default 1\n```", total_bytes: 24, truncated: false },
  metrics: {}, details: {}, k_act: null, k_opt: null, tokens_in: 10, tokens_out: 20, cost: { known_usd: 0, unpriced_calls: 0 }, model_calls: 1, truncated_calls: 0, latency_ms: 3, error: null, events: [], artefacts: [],
  view: { checks: [{ name: "balance", weight: 100, expected: "1", actual: passed ? "1" : "0", passed }], highlights: [], composite: null, intent: null, pilot: null },
});

