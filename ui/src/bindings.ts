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
export type ErrorKind = "config" | "internal" | "invalid" | "keychain" | "not_found";

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
 * Everything on the page.
 */
export type ProvidersView = { 
/**
 * The registry file.
 */
file: string, 
/**
 * The keychain backend in use (`secret-service`, `keyutils`, …).
 */
keychain: string, 
/**
 * Saved providers, in order.
 */
providers: Array<ProviderView>, 
/**
 * Built-in agents of every benchmark.
 */
builtin_agents: Array<BuiltinAgentView>, };

/**
 * A saved provider as the page shows it.
 */
export type ProviderView = { 
/**
 * The saved entry (no key in it).
 */
entry: ProviderEntry, 
/**
 * Where its key would come from right now.
 */
key_source: KeySource, 
/**
 * The env vars looked at after the keychain, in order.
 */
env_vars: Array<string>, };

/**
 * A built-in agent (always available, no key, no network).
 */
export type BuiltinAgentView = { 
/**
 * `questbench`, `intent2tx` or `pilot`.
 */
benchmark: string, 
/**
 * The agent's name; in runs it is `builtin:<name>`.
 */
name: string, };

/**
 * A saved provider: a kind (wire format and defaults), where it is, and its models.
 */
export type ProviderEntry = { 
/**
 * Unique id (`[a-z0-9][a-z0-9_-]*`, at most 40 chars): the keychain account of its key and
 * the prefix of its models in runs (`<id>:<model>`).
 */
id: string, 
/**
 * Which provider kind (wire format, default URL, usual key variable).
 */
kind: Provider, 
/**
 * Server URL; `None`: the kind's default (required for `openai-compatible`).
 */
base_url: string | null, 
/**
 * Env var to read the key from when the keychain has none (default: the kind's usual one,
 * then `CRUCIBLE_API_KEY`).
 */
key_env: string | null, 
/**
 * The models saved for it.
 */
models: Array<ModelEntry>, };

/**
 * One model on a saved provider.
 */
export type ModelEntry = { 
/**
 * The model name as the provider knows it (`gpt-4o`, `openai/gpt-4o`, `llama3.1:8b`).
 */
name: string, 
/**
 * Sampling settings.
 */
settings: ModelSettings, 
/**
 * USD per million tokens; `None`: the shipped price table's entry, if any.
 */
price: ModelPrice | null, };

/**
 * Per-model sampling settings; part of the cache key.
 */
export type ModelSettings = { 
/**
 * Sampling temperature (0.7 as in the papers).
 */
temperature: number, 
/**
 * Cap on generated tokens (`None`: the provider's default; Anthropic requires one, 4096).
 */
max_tokens: number | null, 
/**
 * Sampling seed, sent where the wire supports it (OpenAI, Gemini).
 */
seed: number | null, 
/**
 * How system messages are sent.
 */
system_prompt: SystemPrompt, };

/**
 * How system messages reach the model.
 */
export type SystemPrompt = "native" | "fold_into_user";

/**
 * The price of one model, USD per million tokens.
 */
export type ModelPrice = { 
/**
 * USD per 1M prompt tokens.
 */
input_per_mtok: number, 
/**
 * USD per 1M generated tokens.
 */
output_per_mtok: number, };

/**
 * A named provider: a wire format, a default base URL and the env var that holds its key.
 *
 * Serialised as in model specs (`openai`, `openrouter`, …, `openai-compatible`), the same names
 * [`Provider::as_str`] gives.
 */
export type Provider = "openai" | "openrouter" | "ollama" | "openai-compatible" | "anthropic" | "gemini";

/**
 * Where the key a provider will use comes from.
 */
export type KeySource = { "kind": "keychain", "detail": string } | { "kind": "env", "detail": string } | { "kind": "none" };

/**
 * What "test connection" found: the probe's result plus where the key came from.
 */
export type ConnectionTest = { 
/**
 * The call returned an answer.
 */
ok: boolean, 
/**
 * Time of the call in ms.
 */
latency_ms: number, 
/**
 * The model's answer when it worked.
 */
answer: string | null, 
/**
 * The exact error (the provider's own message for a refused key) when it failed.
 */
error: string | null, 
/**
 * Where the key used came from.
 */
key_source: KeySource, };

/**
 * One stored run in the picker.
 */
export type RunInfo = { 
/**
 * Run id.
 */
run_id: string, 
/**
 * running | finished | cancelled | interrupted | failed.
 */
status: string, 
/**
 * Created, RFC 3339.
 */
created_at: string, 
/**
 * Samples stored.
 */
samples: number, 
/**
 * Samples that passed.
 */
passed: number, 
/**
 * Benchmarks present, sorted.
 */
benchmarks: Array<string>, 
/**
 * Models present, sorted.
 */
models: Array<string>, };

/**
 * Which samples a listing or a leaderboard covers. Empty strings / `None` mean "any".
 */
export type SampleFilter = { 
/**
 * Runs (every run when empty).
 */
runs: Array<string>, 
/**
 * questbench | intent2tx | pilot.
 */
benchmark: string | null, 
/**
 * Model display name.
 */
model: string | null, 
/**
 * Task id.
 */
task: string | null, 
/**
 * Category.
 */
category: string | null, 
/**
 * Difficulty.
 */
difficulty: string | null, 
/**
 * Kind (atomic/composite, single/multi, …).
 */
kind: string | null, 
/**
 * PILOT prompt type.
 */
prompt_type: string | null, 
/**
 * Outcome class.
 */
outcome: string | null, 
/**
 * Passed or not.
 */
passed: boolean | null, };

/**
 * One page of a sample listing.
 */
export type SamplePage = { 
/**
 * Samples matching the filter.
 */
total: number, 
/**
 * First row's position.
 */
offset: number, 
/**
 * Page size asked for (capped at [`MAX_PAGE`]).
 */
limit: number, 
/**
 * The rows, ordered by id.
 */
rows: Array<SampleSummary>, };

/**
 * One row of a sample listing (no texts: those come with [`SampleTrace`]).
 */
export type SampleSummary = { 
/**
 * Sample id.
 */
id: number, 
/**
 * Run id.
 */
run_id: string, 
/**
 * Benchmark.
 */
benchmark: string, 
/**
 * Model.
 */
model: string, 
/**
 * Instance id.
 */
instance: string, 
/**
 * Task id.
 */
task: string, 
/**
 * Prompt type.
 */
prompt_type: string, 
/**
 * Round.
 */
round: number, 
/**
 * Kind.
 */
kind: string, 
/**
 * Category.
 */
category: string, 
/**
 * Difficulty.
 */
difficulty: string, 
/**
 * Outcome class.
 */
outcome: string, 
/**
 * Score in [0, 1].
 */
score: number, 
/**
 * Passed.
 */
passed: boolean, };

/**
 * Everything stored about one sample.
 */
export type SampleTrace = { 
/**
 * The row's identifying fields.
 */
summary: SampleSummary, 
/**
 * Subcategory.
 */
subcategory: string, 
/**
 * The sample seed (u64 bit for bit, as text so no precision is lost).
 */
seed: string, 
/**
 * The first user message.
 */
prompt: ClippedText, 
/**
 * The last assistant message.
 */
raw_answer: ClippedText, 
/**
 * The metrics JSON.
 */
metrics: Record<string, unknown>, 
/**
 * The details JSON (benchmark-specific; every long string in it clipped).
 */
details: unknown, 
/**
 * Composite rounds used.
 */
k_act: number | null, 
/**
 * Composite optimal rounds.
 */
k_opt: number | null, 
/**
 * Input tokens.
 */
tokens_in: number, 
/**
 * Output tokens.
 */
tokens_out: number, 
/**
 * Cost in USD.
 */
cost_usd: number, 
/**
 * Wall time, ms.
 */
latency_ms: number, 
/**
 * Agent/provider error.
 */
error: string | null, 
/**
 * The event transcript (JSON of `run::Event`), in order.
 */
events: unknown[], 
/**
 * Chain artefacts, in order.
 */
artefacts: Array<Artefact>, };

/**
 * A text that may have been clipped.
 */
export type ClippedText = { 
/**
 * The text, or its first [`CLIP_BYTES`] bytes (cut at a char boundary).
 */
text: string, 
/**
 * Length of the whole text in bytes.
 */
total_bytes: number, 
/**
 * Whether `text` is only the start.
 */
truncated: boolean, };

/**
 * One artefact of a sample (decoded tx, receipt, state diff, …).
 */
export type Artefact = { 
/**
 * Artefact kind.
 */
kind: string, 
/**
 * Its JSON (the raw text when it is not valid JSON).
 */
data: unknown, };

/**
 * A run comparison: exactly `crucible compare --json`'s value plus the disagreements and
 * per-category deltas.
 */
export type CompareView = { 
/**
 * What `crucible compare --json` prints (`{run_a, run_b, seed, comparisons}`).
 */
compare: Record<string, unknown>, 
/**
 * Per-category mean deltas over the paired samples.
 */
categories: Array<CategoryDelta>, 
/**
 * Paired samples that differ in pass/fail or score, at most [`MAX_PAGE`].
 */
disagreements: Array<Disagreement>, 
/**
 * How many disagreements there are in all.
 */
disagreements_total: number, };

/**
 * Mean score per category on both sides.
 */
export type CategoryDelta = { 
/**
 * Benchmark.
 */
benchmark: string, 
/**
 * Category.
 */
category: string, 
/**
 * Pairs in this category.
 */
n_pairs: number, 
/**
 * Mean score A × 100.
 */
mean_a: number, 
/**
 * Mean score B × 100.
 */
mean_b: number, 
/**
 * mean_a − mean_b.
 */
delta: number, };

/**
 * A pair of samples (same benchmark, instance and round; same model when the runs share one)
 * on which the two runs disagree.
 */
export type Disagreement = { 
/**
 * Benchmark.
 */
benchmark: string, 
/**
 * Instance id.
 */
instance: string, 
/**
 * Task id.
 */
task: string, 
/**
 * Category.
 */
category: string, 
/**
 * Round.
 */
round: number, 
/**
 * Model on side A.
 */
model_a: string, 
/**
 * Model on side B.
 */
model_b: string, 
/**
 * Sample id on side A.
 */
id_a: number, 
/**
 * Sample id on side B.
 */
id_b: number, 
/**
 * Score A.
 */
score_a: number, 
/**
 * Score B.
 */
score_b: number, 
/**
 * Passed A.
 */
passed_a: boolean, 
/**
 * Passed B.
 */
passed_b: boolean, };

/**
 * Facets for the filter menus of a selection.
 */
export type Facets = { 
/**
 * Distinct non-empty categories.
 */
categories: Array<string>, 
/**
 * Distinct non-empty difficulties.
 */
difficulties: Array<string>, };

/**
 * A chart as the app shows it.
 */
export type ChartView = { 
/**
 * File stem (one of [`chart::CHART_NAMES`]).
 */
name: string, 
/**
 * The SVG text the CLI writes to `<name>.svg`.
 */
svg: string, };
