// Column and table names for people. The report's JSON keys (`cv_pct`, `spearman_mean`, …) stay
// the data's names (cells keep them as `data-col`); what a researcher reads is the label, with its
// unit. A key not listed here is shown with its underscores as spaces and its unit suffix spelled.

const COLUMNS: Readonly<Record<string, string>> = {
  model: "Model",
  rounds: "Rounds",
  atomic: "Atomic (points)",
  composite: "Composite (points)",
  total: "Total (points)",
  max_total: "Most possible (points)",
  total_pct: "% of most possible",
  final_pct: "% of most possible",
  sd: "SD (points)",
  cv_pct: "CV (%)",
  ci95: "95% CI (points)",
  spearman_mean: "Spearman ρ across rounds (mean)",
  spearman_min: "Spearman ρ (min)",
  spearman_max: "Spearman ρ (max)",
  pass_count: "Passed tasks per round",
  tier: "Tier",
  se_clustered: "Clustered SE (points)",
  ci95_clustered: "95% CI, tasks as clusters (points)",
  score: "Score (points)",
  mean_k_act: "Mean rounds used",
  efficiency_pct: "Step efficiency (%)",
  atomic_avg: "Atomic average (points per task)",
  composite_avg: "Composite average (points per task)",
  quadrant: "Quadrant",
  n: "Samples",
  mean_delta: "Mean Δ (rounds)",
  over_opt_pct: "Over-opt (% of episodes)",
  pct_over_optimal: "Rounds over optimal (% of the optimum)",
  p90_delta: "P90 Δ (rounds)",
  exact: "Exact",
  tolerance: "Tolerance-only deviation",
  execution_failure: "Execution failure",
  schema_failure: "Schema failure",
  revert: "Revert",
  other: "Other",
  passed: "Passed",
  pass_rate_pct: "Pass rate (%)",
  delta: "Δ = rounds used − optimal rounds",
  count: "Count",
  setting: "Setting",
  steps: "Steps",
  format: "Format F",
  logic: "Logic L",
  param: "Parameters P",
  pass: "Pass A",
  final_score: "Final",
  n_executed: "Executed instances",
  n_truth_failed: "Ground truth reverted (left out)",
  exec: "Executes",
  state_eq: "Same end state as the truth",
  mode: "Failure mode",
  field_pass_pct: "Field pass (%)",
  state_eq_pct: "Same end state (%)",
  pass_and_eq: "Pass and same end state",
  pass_not_eq: "Pass, different end state",
  eq_not_pass: "Same end state, not pass",
  neither: "Neither",
  atomic_precision: "Atomic precision",
  workflow_completion: "Workflow completion",
  intent_translation: "Intent translation",
  robustness: "Robustness",
  benchmark: "Benchmark",
  cost_usd: "Cost (USD)",
  cost: "Cost",
  truncated_samples: "Samples cut at the token limit",
  truncated_pct: "Cut at the token limit (%)",
  model_calls: "Model calls",
  truncated_calls: "Calls cut at the token limit",
  frontier: "On the cost frontier",
  mean: "Mean (points)",
  prompt_type: "Prompt",
  per_round: "Per round (points)",
  samples_with_attempts: "Samples with an attempt",
  refused_calls: "Refused calls",
};

const TABLES: Readonly<Record<string, string>> = {
  summary: "Per-model statistics over rounds",
  rank_stability: "Rank stability across rounds",
  leaderboard: "Leaderboard (paper Table 1)",
  composite: "Composite quality (paper Table 2)",
  quadrants: "Capability quadrants (paper Tables 9–10)",
  quadrant_medians: "Quadrant medians",
  step_overhead: "Step overhead (paper Table 11)",
  step_overhead_hist: "Step overhead distribution",
  outcomes: "Outcome distribution (paper Table 8)",
  composite_patterns: "Pass rate by composite workflow pattern (paper Fig. 5/7)",
  atomic_subcategories: "Pass rate by atomic sub-category (paper Fig. 9)",
  reward_hacking: "Reward-hacking attempts (calls the RPC gate refused)",
  table1: "Field metrics (paper Table 1)",
  table2: "Execution (paper Table 2)",
  failure_modes: "Failure modes",
  form_vs_effect: "Form vs effect",
};

/** A report column's label, with its unit; flattened keys (`shares.full_pct`) label their last part. */
export function columnLabel(key: string): string {
  if (COLUMNS[key]) return COLUMNS[key];
  const last = key.split(".").pop() ?? key;
  if (COLUMNS[last]) return COLUMNS[last];
  if (OUTCOMES[last]) return OUTCOMES[last][0];
  const unit = last.endsWith("_pct") ? " (%)" : last.endsWith("_ms") ? " (ms)" : last.endsWith("_usd") ? " (USD)" : "";
  const stem = last.replace(/_(pct|ms|usd)$/, "").replace(/_/g, " ");
  return stem.charAt(0).toUpperCase() + stem.slice(1) + unit;
}

/** PILOT-Bench's tables (its paper numbers them differently). */
const PILOT_TABLES: Readonly<Record<string, string>> = {
  table2: "Outcomes by prompt type (paper Table 2)",
  table3: "Flawed plans (paper Table 3)",
  by_flaw: "Flawed plans by flaw method",
  by_flaw_category: "Flawed plans by flaw category",
  by_task: "Outcomes by task type and complexity",
  ceiling: "Optimal-policy ceiling vs achieved",
  by_variant: "Outcomes by description-difficulty variant (public release)",
};

/** A report table's title for people (`bench`: the benchmark whose table it is). */
export function tableLabel(name: string, bench?: string): string {
  return (bench === "pilot" ? PILOT_TABLES[name] : undefined) ?? TABLES[name] ?? columnLabel(name);
}

/** A data value that is a snake_case word (an outcome, a category): words with a capital first letter. */
export function valueLabel(v: string): string {
  // A CamelCase name (Intent2Tx's "AssetTransformation") reads as words too.
  const spaced = /^[A-Z][a-z]+(?:[A-Z][a-z]+)+$/.test(v) ? v.replace(/(?<=[a-z])(?=[A-Z])/g, " ").toLowerCase() : v;
  const words = spaced.replace(/_/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A chart's card title: its name in words, benchmarks by their names (`pilot_prompts` → "PILOT-Bench prompts"). */
export function chartLabel(name: string): string {
  const bench: Record<string, string> = { pilot: "PILOT-Bench", questbench: "EVM-QuestBench", quest: "EVM-QuestBench", intent2tx: "Intent2Tx", intent: "Intent2Tx" };
  const words = name.split("_").map((w, i) => bench[w] ?? (i === 0 ? w.charAt(0).toUpperCase() + w.slice(1) : w));
  return words.join(" ");
}

/** What a built-in agent's label ends with (the core's `verdict::BUILTIN_SUFFIX`). */
const OFFLINE = " (offline test agent)";

/** A run's models in one line: people's models first, then the built-in agents folded under one
 *  phrase ("offline test agents: reference, known-wrong") instead of the suffix on every name. */
export function modelList(labels: readonly string[]): string {
  const agents = labels.filter((l) => l.endsWith(OFFLINE)).map((l) => l.slice(0, -OFFLINE.length));
  const own = labels.filter((l) => !l.endsWith(OFFLINE));
  const folded = agents.length === 0 ? [] : agents.length === 1 ? [`${agents[0]}${OFFLINE}`] : [`offline test agents: ${agents.join(", ")}`];
  return [...own, ...folded].join("; ");
}

/** Sample outcomes (the core's `Outcome::as_str`) in words, with what each means on hover. */
const OUTCOMES: Readonly<Record<string, [string, string]>> = {
  not_run: ["Not run", "An infrastructure failure stopped this sample before it ran; Resume runs it again"],
  agent_error: ["Model call failed", "The agent or its provider failed to answer (no verdict on the model's ability)"],
  exact: ["Exact", "Every check passed exactly"],
  tolerance_deviation: ["Within tolerance", "The checks passed within the task's tolerance only"],
  other: ["Check failed", "A check other than a revert or a failure to run failed"],
  revert: ["Revert", "The transaction reverted"],
  schema_invalid: ["Wrong result shape", "The module's result did not have the required shape"],
  execution_failure: ["Did not run", "The module threw or could not be executed"],
  timeout: ["Timed out", "The module ran out of time"],
  sandbox_violation: ["Sandbox violation", "The module tried to leave the sandbox or use a forbidden method"],
  over_steps: ["Over the optimal steps", "The goals were met with more rounds than the optimum allows"],
  error_reported: ["Agent gave up", "The agent reported an error and stopped"],
  max_rounds: ["Out of rounds", "The round budget ran out"],
  no_execution: ["Nothing executed", "No transaction was ever executed"],
  pass: ["Pass", "The prediction passes"],
  fail: ["Fail", "The prediction parses but does not pass"],
  format_error: ["Unreadable answer", "The prediction could not be parsed"],
  full_success: ["Full success", "All four criteria hold"],
  partial_success: ["Partial success", "Some of the criteria hold"],
  failure: ["Failure", "The workflow failed"],
};

/** A sample outcome for people ("agent_error" → "Model call failed"); an unknown key in words. */
export function outcomeLabel(key: string): string {
  return OUTCOMES[key]?.[0] ?? valueLabel(key);
}

/** What an outcome means, for a hover title (the stored key at the end, for searching). */
export function outcomeTitle(key: string): string {
  const o = OUTCOMES[key];
  return o ? `${o[1]} (stored as ${key})` : key;
}

/** Run statuses (the core's `RunStatus`, and the list's own states) in words. */
const STATUSES: Readonly<Record<string, string>> = {
  running: "Running",
  finished: "Finished",
  cancelled: "Cancelled (resume finishes it)",
  failed: "Stopped by a failure (resume finishes it)",
  interrupted: "Interrupted (resume finishes it)",
};

/** A run status for people ("cancelled" → "Cancelled (resume finishes it)"). */
export function statusLabel(key: string): string {
  return STATUSES[key] ?? valueLabel(key);
}

/** Report columns whose cells are the core's keys (an outcome, a failure mode, a category), shown
 *  in words with the key on hover. */
export const KEY_COLUMNS: ReadonlySet<string> = new Set(["outcome", "mode", "category", "subcategory", "setting", "prompt_type", "flaw", "flaw_method", "flaw_category", "pattern", "task_type", "kind", "variant", "group", "key", "sub"]);

/** A report cell that is a key, for people: outcomes by their names, other keys in words. */
export function keyCell(col: string, v: string): string {
  return col === "outcome" || col === "mode" ? (OUTCOMES[v]?.[0] ?? valueLabel(v)) : valueLabel(v);
}
