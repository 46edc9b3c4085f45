// Generated from the Rust types by src-tauri/src/bindings.rs (ts-rs). Do not edit.
// Regenerate: CRUCIBLE_UPDATE_BINDINGS=1 cargo test -p crucible-app --features custom-protocol --lib bindings

/**
 * A command's failure as the UI receives it.
 */
export type CommandError = { 
/**
 * The category the UI switches on.
 */
kind: ErrorKind, 
/**
 * A lowercase, human-readable explanation naming what failed.
 */
message: string, };

/**
 * What went wrong, coarsely, so the UI can choose what to advise.
 */
export type ErrorKind = "config" | "internal" | "task" | "chain";

/**
 * Everything the "System" page shows, as one serialisable value.
 */
export type SystemStatus = { 
/**
 * Crucible's version ([`crate::VERSION`]).
 */
version: string, 
/**
 * Where runs, caches and per-run chain state live.
 */
data_dir: string, 
/**
 * The project checkout that holds `assets/`, `tasks/` and `node_modules/`.
 */
project_dir: string, 
/**
 * One entry per external tool, always in the order anvil, deno, bwrap.
 */
tools: Array<ToolStatus>, 
/**
 * The known profiles (bsc, eth) first, then any other built profile, by name.
 */
universes: Array<UniverseStatus>, };

/**
 * Whether one external tool was found.
 */
export type ToolStatus = { 
/**
 * The program's name: `anvil`, `deno` or `bwrap`.
 */
name: string, 
/**
 * What Crucible needs it for, in a few words.
 */
purpose: string, 
/**
 * Its resolved path, or why it is missing and how to install it.
 */
location: ToolLocation, };

/**
 * The result of tool discovery (explicit config → `PATH` → the project's `node_modules`).
 */
export type ToolLocation = { "kind": "found", 
/**
 * The resolved executable.
 */
path: string, } | { "kind": "missing", 
/**
 * The discovery error's message.
 */
message: string, };

/**
 * Whether one universe profile has been built.
 */
export type UniverseStatus = { 
/**
 * The profile's name, e.g. `bsc`.
 */
profile: string, 
/**
 * Where its manifest is (or would be).
 */
manifest: string, 
/**
 * Built, not built, or present but unreadable.
 */
state: UniverseState, };

/**
 * The state of one universe profile on disk.
 */
export type UniverseState = { "kind": "built", 
/**
 * The manifest's `chain_id`, if it states one.
 */
chain_id: number | null, 
/**
 * How many named contracts the manifest's `contracts` field lists, if it has one.
 */
contracts: number | null, } | { "kind": "not_built" } | { "kind": "unreadable", 
/**
 * What went wrong, naming the file.
 */
message: string, };

/**
 * The three benchmarks.
 */
export type Bench = "questbench" | "intent2tx" | "pilot";

/**
 * Where a task file lives.
 */
export type Origin = "project" | "user";

/**
 * One row of the catalogue.
 */
export type TaskSummary = { 
/**
 * Benchmark.
 */
bench: Bench, 
/**
 * Task id (unique within its benchmark).
 */
id: string, 
/**
 * One-line summary (QuestBench title, Intent2Tx intent, PILOT description).
 */
title: string, 
/**
 * `atomic`/`composite` (QuestBench), `single`/`multi` (Intent2Tx), the task type (PILOT).
 */
kind: string, 
/**
 * Category.
 */
category: string, 
/**
 * Subcategory (empty when the benchmark has none).
 */
subcategory: string, 
/**
 * Difficulty or complexity (empty when the benchmark has none).
 */
difficulty: string, 
/**
 * Project or user folder.
 */
origin: Origin, 
/**
 * The file the task comes from.
 */
path: string, };

/**
 * A file the catalogue could not load (the rest still loads).
 */
export type LoadProblem = { 
/**
 * The file.
 */
file: string, 
/**
 * What is wrong, naming the field where known.
 */
message: string, };

/**
 * Every task of the three benchmarks, sorted by benchmark then id.
 */
export type Catalogue = { 
/**
 * The tasks.
 */
tasks: Array<TaskSummary>, 
/**
 * Files that did not load.
 */
problems: Array<LoadProblem>, };

/**
 * A known-wrong solution as the detail view lists it.
 */
export type WrongSolution = { 
/**
 * File, relative to the task file.
 */
file: string, 
/**
 * The mistake it makes.
 */
mistake: string, 
/**
 * Check families it exercises.
 */
families: Array<string>, };

/**
 * Everything the detail view shows of one task.
 */
export type TaskDetail = { 
/**
 * The catalogue row.
 */
summary: TaskSummary, 
/**
 * The task file's text (QuestBench: the JSON file; Intent2Tx: the instance as pretty JSON;
 * PILOT: the stored task as pretty JSON).
 */
text: string, 
/**
 * QuestBench: the reference solution's source (empty elsewhere).
 */
reference: string, 
/**
 * QuestBench: the known-wrong solutions.
 */
wrong: Array<WrongSolution>, 
/**
 * QuestBench composites: the ordered atomic operation ids (empty for atomic tasks).
 */
workflow: Array<string>, 
/**
 * QuestBench: K_opt (1 for atomic tasks); PILOT: the minimum number of tool calls.
 */
k_opt: number, 
/**
 * Benchmark-specific view (Intent2Tx: intent, ground truth, metadata, prompts;
 * PILOT: required tools, tool specs, the four prompts, flaw, plans, success ceiling).
 */
extra: unknown, };

/**
 * One sampled parameter.
 */
export type ParamRow = { 
/**
 * Name.
 */
name: string, 
/**
 * Declared type.
 */
ty: string, 
/**
 * The value as it appears in the prompt.
 */
value: string, };

/**
 * One check as it will be applied to this instance.
 */
export type CheckRow = { 
/**
 * Check name.
 */
name: string, 
/**
 * Family.
 */
family: string, 
/**
 * Points.
 */
weight: number, 
/**
 * What the check compares against, with parameters resolved and amounts in base units;
 * quantities read from the chain before the transaction are named, not guessed.
 */
expected: string, };

/**
 * A QuestBench instance as a model sees it, plus what the checks will compare against.
 */
export type QuestRender = { 
/**
 * Task id.
 */
id: string, 
/**
 * Seed.
 */
seed: number, 
/**
 * Index of the template chosen by the seed.
 */
template_index: number, 
/**
 * The exact prompt.
 */
prompt: string, 
/**
 * The sampled parameters, in declaration order.
 */
params: Array<ParamRow>, 
/**
 * The setup steps applied after the snapshot revert, parameters resolved.
 */
setup: Array<string>, 
/**
 * The checks with their expected values.
 */
checks: Array<CheckRow>, 
/**
 * The seeded agent's address.
 */
agent_address: string, };

/**
 * The result of validating edited task text.
 */
export type Validation = { 
/**
 * Whether the text is a valid task.
 */
ok: boolean, 
/**
 * The offending field's path (`checks[2].check.target`), empty when valid or unknown.
 */
field: string, 
/**
 * The loader's message, naming the field; empty when valid.
 */
message: string, };

/**
 * Which solution a dry-run executes.
 */
export type SolutionChoice = { "kind": "reference" } | { "kind": "wrong", 
/**
 * Which one.
 */
index: number, } | { "kind": "pasted", 
/**
 * The text.
 */
text: string, };

/**
 * One check's verdict in a dry-run.
 */
export type CheckOutcome = { 
/**
 * Check name.
 */
name: string, 
/**
 * Family.
 */
family: string, 
/**
 * Points.
 */
weight: number, 
/**
 * Expected value.
 */
expected: string, 
/**
 * Actual value.
 */
actual: string, 
/**
 * Whether it passed.
 */
passed: boolean, };

/**
 * The full trace of one dry-run.
 */
export type DryRun = { 
/**
 * Benchmark.
 */
bench: Bench, 
/**
 * Task id.
 */
id: string, 
/**
 * Seed.
 */
seed: number, 
/**
 * Which solution ran (`reference`, the wrong file or agent, `pasted`).
 */
solution: string, 
/**
 * The prompt the model would have received.
 */
prompt: string, 
/**
 * The answer that was scored (code, JSON or turns).
 */
answer: string, 
/**
 * Score 0–100.
 */
score: number, 
/**
 * Whether it passes (QuestBench ≥ 60, Intent2Tx pass metric, PILOT full success).
 */
passed: boolean, 
/**
 * Outcome class.
 */
outcome: string, 
/**
 * Why (schema reason, revert reason, failure message), empty on success.
 */
reason: string, 
/**
 * The transaction as sent with its receipt summary (QuestBench) or the execution report
 * (Intent2Tx); null otherwise.
 */
tx: unknown, 
/**
 * Each check (QuestBench), metric (Intent2Tx) or criterion (PILOT), expected vs actual.
 */
checks: Array<CheckOutcome>, 
/**
 * Sandbox logs (QuestBench) or the conversation (PILOT).
 */
logs: string, };

/**
 * One seed of a task's self-test.
 */
export type SelftestRow = { 
/**
 * Seed.
 */
seed: number, 
/**
 * Reference score (must be 100).
 */
reference: number, 
/**
 * Reference outcome class.
 */
reference_outcome: string, 
/**
 * Each known-wrong solution's score (each must be below 60), in `solutions.wrong` order.
 */
wrong: Array<number>, 
/**
 * Whether this seed passes the self-test.
 */
ok: boolean, 
/**
 * What failed on this seed (empty when ok).
 */
problems: Array<string>, };

/**
 * A task's self-test over seeds `0..N`.
 */
export type Selftest = { 
/**
 * Task id.
 */
id: string, 
/**
 * Per seed.
 */
seeds: Array<SelftestRow>, 
/**
 * The seeds that failed.
 */
failing: Array<number>, 
/**
 * Whether every seed passed.
 */
ok: boolean, };

/**
 * A rejected row of an Intent2Tx import.
 */
export type IntentRowError = { 
/**
 * 1-based row.
 */
row: number, 
/**
 * 1-based line where the row starts.
 */
line: number, 
/**
 * What is wrong, starting with the field path.
 */
message: string, };

/**
 * The outcome of importing Intent2Tx instances (the core's `intent2tx import`).
 */
export type IntentImport = { 
/**
 * `json` or `jsonl`.
 */
format: string, 
/**
 * Rows seen.
 */
rows: number, 
/**
 * Valid rows.
 */
imported: number, 
/**
 * Rejected rows.
 */
errors: Array<IntentRowError>, 
/**
 * Where the valid rows were written (empty when nothing was written).
 */
written: string, };

/**
 * One field of the source file that has no place in the draft, and why.
 */
export type Unmapped = { 
/**
 * Path in the source file (`parameters.amount.generation.probability`).
 */
field: string, 
/**
 * What the author has to do about it.
 */
reason: string, };

/**
 * The result of importing one question-bank file.
 */
export type BankImport = { 
/**
 * The task id.
 */
id: string, 
/**
 * The draft task as pretty JSON in Crucible's format.
 */
text: string, 
/**
 * The source fields that were mapped.
 */
mapped: Array<string>, 
/**
 * The source fields that were not.
 */
unmapped: Array<Unmapped>, };
