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
export type ErrorKind = "config" | "internal" | "invalid" | "keychain" | "not_found" | "task" | "chain" | "tool_missing" | "disk_full" | "unreachable" | "database_damaged";

/**
 * Everything the "System" page shows, as one serialisable value.
 */
export type SystemStatus = { 
/**
 * Crucible's version ([`crucible_core::VERSION`]).
 */
version: string, 
/**
 * Where runs, caches and per-run chain state live.
 */
data_dir: string, 
/**
 * The content directory that holds `assets/`, `tasks/` and `node_modules/`: the
 * installation's, or a project checkout.
 */
project_dir: string, 
/**
 * Where that directory came from, in words ("installed with the app", …).
 */
content_origin: string, 
/**
 * The build (version, commit, date) and the digests of the content it reads: the About box.
 */
build: BuildInfo, 
/**
 * One entry per external tool, always in the order anvil, deno, bwrap.
 */
tools: Array<ToolStatus>, 
/**
 * The known profiles (bsc, eth) first, then any other built profile, by name.
 */
universes: Array<UniverseStatus>, };

/**
 * The build and the content behind a result.
 */
export type BuildInfo = { 
/**
 * Crucible's version.
 */
version: string, 
/**
 * The git commit the binary was built from (`unknown` when it was built outside a checkout).
 */
commit: string, 
/**
 * When the binary was built, RFC 3339 UTC.
 */
build_date: string, 
/**
 * Where the content (tasks, universes, sandbox packages) was read from.
 */
content_dir: string, 
/**
 * How that directory was chosen, in words.
 */
content_origin: string, 
/**
 * SHA-256 of each universe profile's files (genesis, manifest), by profile name.
 */
universes: { [key in string]: string }, 
/**
 * SHA-256 of the built-in task catalogue (every file under `tasks/`).
 */
tasks_sha256: string, };

/**
 * What Home shows about the first-start demo.
 */
export type FirstStart = { "kind": "none" } | { "kind": "starting" } | { "kind": "running", 
/**
 * The run's id.
 */
run_id: string, } | { "kind": "ended", 
/**
 * The run's id.
 */
run_id: string, } | { "kind": "failed", 
/**
 * What went wrong, in words.
 */
message: string, };

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
location: ToolLocation, 
/**
 * The pinned package the app's Install button downloads (e.g.
 * `@foundry-rs/anvil-linux-amd64 1.7.1`); `None` when the app cannot install it here.
 */
package: string | null, 
/**
 * How to get it when the app cannot install it, in words; `None` when Install can.
 */
install_instead: string | null, };

/**
 * The result of tool discovery (explicit config → `PATH` → the project's `node_modules`).
 */
export type ToolLocation = { "kind": "found", 
/**
 * The resolved executable.
 */
path: string, 
/**
 * Where it was found, in words ("installed with the app", "found on the PATH", …).
 */
origin: string, } | { "kind": "missing", 
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
 * A tool the user pointed Crucible at, checked and saved.
 */
export type LocatedTool = { 
/**
 * The program's name.
 */
name: string, 
/**
 * The path saved in the config file.
 */
path: string, 
/**
 * The first line of its `--version` output.
 */
version: string, 
/**
 * The config file the path was saved in.
 */
config_file: string, };

/**
 * A config file reset to defaults.
 */
export type ConfigReset = { 
/**
 * The config file, now holding the defaults.
 */
file: string, 
/**
 * Where the old file was moved, byte for byte; `null` when there was none.
 */
backup: string | null, };

/**
 * A universe build's outcome.
 */
export type UniverseBuilt = { 
/**
 * The profile built.
 */
profile: string, 
/**
 * How many contracts were deployed.
 */
contracts: number, 
/**
 * How many trading pairs were created.
 */
pairs: number, 
/**
 * How long it took, in seconds.
 */
seconds: number, 
/**
 * Where the manifest and genesis were written.
 */
dir: string, };

/**
 * One universe build started from the app, as the window polls it (`universe_builds`).
 */
export type UniverseBuild = { 
/**
 * The profile being built.
 */
profile: string, 
/**
 * Running (with the seconds so far), built, or failed.
 */
state: UniverseBuildState, };

/**
 * Where one universe build is.
 */
export type UniverseBuildState = { "kind": "running", 
/**
 * Seconds since the build started.
 */
seconds: number, } | { "kind": "built", 
/**
 * The build's result.
 */
result: UniverseBuilt, } | { "kind": "failed", 
/**
 * The failure as every command reports one.
 */
error: CommandError, };

/**
 * A tool installed by the app.
 */
export type InstalledTool = { 
/**
 * The program's name.
 */
name: string, 
/**
 * The package and version installed, e.g. `@foundry-rs/anvil-linux-amd64 1.7.1`.
 */
package: string, 
/**
 * Where the program now is (saved in the config file).
 */
path: string, 
/**
 * The first line of its `--version` output.
 */
version: string, 
/**
 * The config file the path was saved in.
 */
config_file: string, 
/**
 * The address it was downloaded from.
 */
url: string, 
/**
 * The archive's size in bytes.
 */
bytes: number, };

/**
 * The step an install is at.
 */
export type InstallStage = "connecting" | "downloading" | "checking";

/**
 * One tool install started from the app, as the window polls it (`tool_installs`).
 */
export type ToolInstall = { 
/**
 * The program being installed (`anvil`, `deno`).
 */
tool: string, 
/**
 * Running (step and bytes so far), installed, or failed.
 */
state: ToolInstallState, };

/**
 * Where one tool install is.
 */
export type ToolInstallState = { "kind": "running", 
/**
 * Seconds since the install started.
 */
seconds: number, 
/**
 * The step it is at.
 */
stage: InstallStage, 
/**
 * Bytes received so far.
 */
downloaded_bytes: number, 
/**
 * The archive's size, when the registry said it.
 */
total_bytes: number | null, } | { "kind": "installed", 
/**
 * What was installed where.
 */
result: InstalledTool, } | { "kind": "failed", 
/**
 * The failure as every command reports one.
 */
error: CommandError, };

/**
 * What the UI reports through the perf hook.
 */
export type PerfMark = { "mark": "ready", 
/**
 * The route shown (`home`, …).
 */
route: string, 
/**
 * `performance.now()` at that moment: ms since the webview started loading the page.
 */
ui_ms: number, } | { "mark": "run", 
/**
 * The run measured.
 */
run_id: string, 
/**
 * Length of the measuring window, s (first progress event → run finished or time up).
 */
seconds: number, 
/**
 * `run:progress` events of the run received in the window.
 */
updates: number, 
/**
 * Animation frames drawn in the window.
 */
frames: number, 
/**
 * Frame gaps longer than [`JANK_MS`].
 */
janks: number, 
/**
 * The longest frame gap, ms.
 */
max_gap_ms: number, 
/**
 * Samples done at the last update.
 */
done: number, 
/**
 * The run's status at the last update.
 */
status: string, } | { "mark": "error", 
/**
 * What went wrong.
 */
message: string, };

/**
 * A database file and what is wrong with it, for the damaged-database panel.
 */
export type DatabaseCheck = { 
/**
 * The file.
 */
path: string, 
/**
 * Its state.
 */
state: DatabaseState, 
/**
 * One plain sentence (no SQLite codes).
 */
headline: string, 
/**
 * The technical detail (SQLite's own words), for a folded "Details".
 */
detail: string | null, };

/**
 * What is wrong with a database file, if anything.
 */
export type DatabaseState = { "kind": "healthy", 
/**
 * Runs in it.
 */
runs: number, } | { "kind": "missing" } | { "kind": "damaged" } | { "kind": "foreign" };

/**
 * A fresh database started in place of a damaged one.
 */
export type FreshDatabase = { 
/**
 * The new, empty database.
 */
path: string, 
/**
 * Where the old file was moved, byte for byte.
 */
kept_as: string, 
/**
 * What happened, in words.
 */
summary: string, };

/**
 * What [`recover`] did.
 */
export type Recovery = { 
/**
 * The new database holding what was recovered.
 */
path: string, 
/**
 * Where the damaged file was moved, byte for byte.
 */
kept_as: string, 
/**
 * Runs recovered.
 */
runs: number, 
/**
 * Samples recovered.
 */
samples: number, 
/**
 * Runs that could not be read.
 */
runs_lost: number, 
/**
 * Samples that could not be read (or whose run could not be).
 */
samples_lost: number, 
/**
 * What happened, in words ("Recovered 3 runs and 1,204 samples; 2 runs could not be read.").
 */
summary: string, };

/**
 * Another database chosen by the user, checked and remembered.
 */
export type OpenedDatabase = { 
/**
 * The database now used (absolute).
 */
path: string, 
/**
 * Runs in it.
 */
runs: number, 
/**
 * The config file that remembers it.
 */
config_file: string, 
/**
 * What happened, in words.
 */
summary: string, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

/**
 * The scale reports, charts, exports and comparisons read scores on.
 */
export type Scoring = "paper" | "crucible";

/**
 * The prompt wording of a run (and of each of its samples).
 */
export type PromptSet = "paper" | "assisted";

/**
 * What some model calls cost: the sum of the priced ones, and how many had no price (a model
 * neither in the catalogue nor priced by the user). Sums never count an unpriced call as $0:
 * [`Cost::usd`] is `None` as soon as one is unpriced.
 */
export type Cost = { 
/**
 * USD of the priced calls (a cached answer costs 0).
 */
known_usd: number, 
/**
 * Calls whose cost is unknown: their model has no price.
 */
unpriced_calls: number, };

/**
 * Every benchmark, in report order.
 */
export const BENCHES: readonly Bench[] = ["questbench", "intent2tx", "pilot"];

/**
 * Each benchmark's published name, for people.
 */
export const BENCH_LABEL: Readonly<Record<Bench, string>> = { questbench: "EVM-QuestBench", intent2tx: "Intent2Tx", pilot: "PILOT-Bench" };

/**
 * Both scorings, the default first.
 */
export const SCORINGS: readonly Scoring[] = ["paper", "crucible"];

/**
 * Each scoring's name, for people.
 */
export const SCORING_LABEL: Readonly<Record<Scoring, string>> = { paper: "Paper scoring", crucible: "Crucible scoring (stricter)" };

/**
 * Both prompt sets, the default first.
 */
export const PROMPT_SETS: readonly PromptSet[] = ["paper", "assisted"];

/**
 * Each prompt set's name, for people.
 */
export const PROMPT_SET_LABEL: Readonly<Record<PromptSet, string>> = { paper: "Paper prompts", assisted: "Assisted prompts (extra hints)" };

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
 * Unique id (`[a-z0-9][a-z0-9_-]*`, at most 40 chars): names the keychain account of its
 * key (`provider/<id>`, see [`provider_account`]) and prefixes its models in runs
 * (`<id>:<model>`).
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
 * then `CRUCIBLE_API_KEY` for hosted kinds). An Ollama or OpenAI-compatible provider gets
 * `CRUCIBLE_API_KEY` only by naming it here (the opt-in).
 */
key_env: string | null, 
/**
 * The models saved for it.
 */
models: Array<ModelEntry>, 
/**
 * Most calls in flight to this provider at once, over every run of the app (a provider's
 * own concurrency limit, e.g. a local server that answers one request at a time);
 * `None`: each run's `--concurrency` alone bounds it.
 */
max_concurrency?: number, 
/**
 * The timeout of its calls in seconds: the longest wait for the model's data (see
 * docs/llm.md, "Streaming and timeouts"). `None`: `CRUCIBLE_LLM_TIMEOUT_S`, else 600 s for
 * reasoning models and 300 s for others. Reaches every run of its models.
 */
timeout_s?: number | null, 
/**
 * Whether its answers are streamed (`None`: yes). Reaches every run of its models.
 */
stream?: boolean | null, };

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
 * Per-model request settings; part of the cache key. Every field left unset is not sent, so the
 * provider's own default applies. Old saved settings (`{"temperature": 0.7, "max_tokens": null,
 * "seed": null, "system_prompt": "native"}`) still load.
 */
export type ModelSettings = { 
/**
 * Sampling temperature (`None`: not sent, the provider's default).
 */
temperature: number | null, 
/**
 * Nucleus sampling (`None`: not sent).
 */
top_p?: number | null, 
/**
 * Cap on generated tokens, reasoning included (`None`: the provider's default; Anthropic
 * requires one, 4096). Sent as `max_completion_tokens` to the models that want that name.
 */
max_tokens: number | null, 
/**
 * Sampling seed, sent where the wire supports it (OpenAI, Gemini).
 */
seed: number | null, 
/**
 * Stop sequences (`stop`, `stop_sequences`, `stopSequences`).
 */
stop?: Array<string>, 
/**
 * Reasoning effort and/or thinking budget (`None`: not sent, the model's default).
 */
reasoning?: Reasoning | null, 
/**
 * How system messages are sent.
 */
system_prompt: SystemPrompt, 
/**
 * A JSON object merged into the request body last (it wins over what Crucible sets):
 * `chat_template_kwargs`, OpenRouter `provider`, … Must be an object.
 */
extra_body?: Record<string, unknown> | null, 
/**
 * Extra request headers (`anthropic-beta`, OpenRouter attribution, …); never the key
 * headers, which Crucible sets itself.
 */
extra_headers?: { [key in string]: string }, 
/**
 * Whether answers are streamed (`None`: yes, on every wire). How the answer travels, not
 * what is asked: never part of the cache key. Settled from the saved provider's `stream`.
 */
stream?: boolean | null, 
/**
 * The call timeout in seconds: the longest wait for the model's data (the whole answer when
 * not streamed; the first event and every pause when streamed, a streamed call being capped
 * at [`crate::RetryPolicy::STREAM_TOTAL_FACTOR`] times it). `None`: `CRUCIBLE_LLM_TIMEOUT_S`,
 * else 600 s for reasoning models and 300 s for others. Never part of the cache key.
 * Settled from the saved provider's `timeout_s`.
 */
timeout_s?: number | null, 
/**
 * The wire to call the model on, over the one its kind and catalogue entry choose
 * (`chat` or `responses` for OpenAI-family kinds, `ollama` or `chat` for Ollama).
 */
wire?: "chat" | "responses" | "ollama" | "anthropic" | "gemini" | null, 
/**
 * Ollama's context window for the call (`options.num_ctx`; `None`: the catalogue's context
 * window, else [`OLLAMA_DEFAULT_NUM_CTX`]). Ollama wire only.
 */
num_ctx?: number | null, };

/**
 * How hard a reasoning model thinks: a level, a token budget, or both (each wire takes the one
 * its model accepts; see [`crate::ModelProfile`] and docs/llm.md, "Parameters per model").
 */
export type Reasoning = { 
/**
 * The effort level (OpenAI `reasoning_effort`, Anthropic `output_config.effort`, Gemini 3
 * `thinkingLevel`, OpenRouter `reasoning.effort`).
 */
effort?: Effort | null, 
/**
 * A thinking budget in tokens (Anthropic `thinking.budget_tokens`, Gemini 2.5
 * `thinkingBudget`, OpenRouter `reasoning.max_tokens`).
 */
budget_tokens?: number | null, };

/**
 * A reasoning effort level. Not every model takes every level: the provider refuses the ones it
 * does not know, and Crucible names the setting in that error.
 */
export type Effort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh";

/**
 * How system messages reach the model.
 */
export type SystemPrompt = "native" | "fold_into_user";

/**
 * The price of one model, USD per million tokens.
 */
export type ModelPrice = { 
/**
 * USD per 1M prompt tokens read fresh.
 */
input_per_mtok: number, 
/**
 * USD per 1M generated tokens (reasoning included).
 */
output_per_mtok: number, 
/**
 * USD per 1M prompt tokens read from the provider's cache (`None`: billed as input, an
 * upper bound).
 */
cached_input_per_mtok?: number | null, 
/**
 * USD per 1M prompt tokens written to the cache (Anthropic; `None`: billed as input).
 */
cache_write_per_mtok?: number | null, };

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
 * A run as the user asks for it: what `crucible run` parses from its flags and what the New run
 * form sends. Only what describes the run is here; where it is stored and how it is driven
 * (`--db`, `--resume`, `--slurm`, …) stay the CLI's.
 */
export type RunRequest = { 
/**
 * questbench, intent2tx, pilot or all (repeatable).
 */
benchmarks: Array<string>, 
/**
 * `builtin:NAME` or `PROVIDER:MODEL` (repeatable; see `crucible agents list`).
 */
models: Array<string>, 
/**
 * Overrides the provider's URL for every provider model.
 */
base_url: string | null, 
/**
 * `MODEL=PROVIDER_ID` (repeatable): serve MODEL from that saved provider (its URL, its key);
 * one run may mix providers with different URLs and keys. A provider model not listed uses
 * the base URL (or its provider's default URL).
 */
model_providers: Array<[string, string]>, 
/**
 * The first N tasks of each benchmark, in catalogue order (after the filters).
 */
limit: number | null, 
/**
 * Repetitions of each instance (avg@k).
 */
rounds: number, 
/**
 * Run seed.
 */
seed: number, 
/**
 * Keep only these prompt types (repeatable: direct, retrieval, baseline, cot, optimal, flawed).
 */
prompt_types: Array<string>, 
/**
 * Model calls in flight at once (samples in flight; also the per-provider ceiling).
 */
concurrency: number, 
/**
 * Chain workers: samples executing on a chain at once (QuestBench, executed Intent2Tx);
 * default: one per core of this machine.
 */
chain_workers: number | null, 
/**
 * `held`: each chain sample holds its chain worker while the model answers (the old
 * scheduling, for comparison); default `split`.
 */
chain_scheduling: string | null, 
/**
 * Stop making model calls after this many USD.
 */
budget_usd: number | null, 
/**
 * With a budget: run models that have no price anyway, outside the budget (without it such
 * a run is refused before it starts).
 */
allow_unpriced: boolean, 
/**
 * Keep only tasks of this category (repeatable; applied before the limit).
 */
categories: Array<string>, 
/**
 * Keep only tasks of this difficulty (repeatable; applied before the limit).
 */
difficulties: Array<string>, 
/**
 * Keep only tasks of this kind (repeatable; applied before the limit).
 */
kinds: Array<string>, 
/**
 * The prompts' wording: paper (the published prompts' information) or assisted (Crucible's
 * earlier prompts with extra hints; not comparable with the papers' tables).
 */
prompt_set: PromptSet, 
/**
 * A protocol preset: `paper` runs each chosen benchmark as its paper did (whole task set,
 * the paper's rounds, prompts and each benchmark's protocol options); task filters, the
 * limit and the rounds are then ignored.
 */
preset: string | null, 
/**
 * A content pack to read (repeatable; `crucible packs list` names them); a benchmark
 * without one reads its built-in pack. The run stores each pack's hash: resume and rescore
 * refuse a pack that changed since.
 */
packs: Array<string>, 
/**
 * Each benchmark's own options by benchmark and key (`--library`, `--no-execute`,
 * `--tool-protocol`, …: generated from the benchmarks' descriptions, [`bench_options`]);
 * an option left out is its default.
 */
options: Record<string, Record<string, JsonValue>>, 
/**
 * Neither read nor write the response cache.
 */
no_cache: boolean, 
/**
 * Fork mode: run the chain benchmark on a fork of this RPC (http/https; credentials in the
 * URL are used but never stored) instead of the offline universe. Needs the fork block.
 */
fork_url: string | null, 
/**
 * Fork mode: the block to fork at (at least 1, not beyond the RPC's head).
 */
fork_block: number | null, 
/**
 * What to call the run, shown instead of its id in the app and in `crucible runs` (one
 * line, at most 120 characters; change it later in the app).
 */
name: string | null, 
/**
 * A free-text note about the run (at most 4,000 characters).
 */
note: string | null, 
/**
 * Model settings for this run that win over those saved for the model: `"*"` (every
 * provider model) or a model → an object of settings (`temperature`, `max_tokens`, `seed`,
 * `system_prompt`, …). `None`: the saved settings as they are. (The CLI's own flags for
 * them fill `"*"`.)
 */
model_settings?: { [key in string]: JsonValue }, };

/**
 * A benchmark's options, as its plugin describes them.
 */
export type BenchOptionsView = { 
/**
 * The benchmark's stored name.
 */
benchmark: string, 
/**
 * Its published name.
 */
label: string, 
/**
 * Its options, in the order it describes them.
 */
options: Array<OptionView>, 
/**
 * Under the paper protocol (`preset: paper`): the options it runs with instead of the
 * user's, what differs from the defaults (`None`: the user's options are kept).
 */
paper: { [key in string]: JsonValue } | null, };

/**
 * One option of a benchmark, for the New run form's generated control.
 */
export type OptionView = { 
/**
 * The key the form sends it under (`RunForm::options[benchmark][key]`).
 */
key: string, 
/**
 * The CLI's flag for it (`--library`), shown in the hint.
 */
flag: string, 
/**
 * The control's label.
 */
label: string, 
/**
 * The hint under it.
 */
help: string, 
/**
 * Drop-down or tick box.
 */
kind: OptionKindView, 
/**
 * The values of a drop-down (empty for a tick box).
 */
choices: Array<OptionChoiceView>, 
/**
 * Its value when not given.
 */
default: JsonValue, };

/**
 * What a benchmark option's control is.
 */
export type OptionKindView = "choice" | "switch";

/**
 * One value of a choice option.
 */
export type OptionChoiceView = { 
/**
 * The value the form sends.
 */
value: string, 
/**
 * What the form shows.
 */
label: string, };

/**
 * Each benchmark's run options, generated from the benchmarks' descriptions: what the New run form's option controls are made from.
 */
export const BENCH_OPTIONS: readonly BenchOptionsView[] = [
  {
    "benchmark": "questbench",
    "label": "EVM-QuestBench",
    "options": [
      {
        "key": "library",
        "flag": "--library",
        "label": "TypeScript library",
        "help": "The library the model's TypeScript module is asked to use.",
        "kind": "choice",
        "choices": [
          {
            "value": "ethers",
            "label": "ethers v6, as in the paper"
          },
          {
            "value": "viem",
            "label": "viem v2 (the reference runner's later option)"
          }
        ],
        "default": "ethers"
      },
      {
        "key": "naive",
        "flag": "--naive",
        "label": "Naive mode (the task's description added to the prompt)",
        "help": "The reference runner's naive mode: the task's description is added to the prompt.",
        "kind": "switch",
        "choices": [],
        "default": false
      },
      {
        "key": "nl_difficulty",
        "flag": "--nl-difficulty",
        "label": "Task wording",
        "help": "Which of the question bank's templates word each task (a task with none so labelled uses any template).",
        "kind": "choice",
        "choices": [
          {
            "value": "random",
            "label": "Any template, as in the paper"
          },
          {
            "value": "precise",
            "label": "Precise wording"
          },
          {
            "value": "moderate",
            "label": "Moderate wording"
          },
          {
            "value": "vague",
            "label": "Vague wording"
          }
        ],
        "default": "random"
      },
      {
        "key": "paper_tolerance",
        "flag": "--paper-tolerance",
        "label": "Paper scoring: transfer tolerance",
        "help": "How far a transfer's amount may be off under the paper's scoring.",
        "kind": "choice",
        "choices": [
          {
            "value": "paper",
            "label": "1 % on transfers, as the paper states"
          },
          {
            "value": "runner",
            "label": "0.1 % (the reference runner's later tightening)"
          }
        ],
        "default": "paper"
      }
    ],
    "paper": {}
  },
  {
    "benchmark": "intent2tx",
    "label": "Intent2Tx",
    "options": [
      {
        "key": "execute",
        "flag": "--no-execute",
        "label": "Execute answers on the chain (Exec, StateEq)",
        "help": "Each answer and its ground truth are executed on the chain and their state changes compared; off, the fields alone are scored.",
        "kind": "switch",
        "choices": [],
        "default": true
      },
      {
        "key": "metrics",
        "flag": "--intent-metrics",
        "label": "Field metrics",
        "help": "How the answer's fields are compared: the paper's written definition, or the authors' scorer, which computed the published tables (docs/fidelity.md).",
        "kind": "choice",
        "choices": [
          {
            "value": "paper",
            "label": "The paper's written definition"
          },
          {
            "value": "reference-code",
            "label": "The authors' scorer (computed the published tables)"
          }
        ],
        "default": "paper"
      },
      {
        "key": "retrieval",
        "flag": "--intent-retrieval",
        "label": "Demonstrations (retrieval setting)",
        "help": "How the retrieval setting picks its three worked examples: the paper's (Jaccard over ground-truth contract-function pairs), realistic (pairs predicted from the intent), or the paper's without the instance's category (RQ3).",
        "kind": "choice",
        "choices": [
          {
            "value": "paper",
            "label": "The paper's (ground-truth contract-function pairs)"
          },
          {
            "value": "realistic",
            "label": "Realistic (pairs predicted from the intent)"
          },
          {
            "value": "held-out-category",
            "label": "The paper's, the instance's category held out (RQ3)"
          }
        ],
        "default": "paper"
      },
      {
        "key": "dataset",
        "flag": "--intent-dataset",
        "label": "Dataset",
        "help": "Crucible's generated set, or one shaped like the paper's 1,145-instance test set with a paper-shaped retrieval pool.",
        "kind": "choice",
        "choices": [
          {
            "value": "default",
            "label": "Crucible's generated set"
          },
          {
            "value": "paper",
            "label": "Shaped like the paper's 1,145-instance test set"
          }
        ],
        "default": "default"
      }
    ],
    "paper": {
      "metrics": "reference-code",
      "dataset": "paper"
    }
  },
  {
    "benchmark": "pilot",
    "label": "PILOT-Bench",
    "options": [
      {
        "key": "tool_protocol",
        "flag": "--tool-protocol",
        "label": "Tool calling",
        "help": "How tools reach the model: the paper's tags in its text, or the provider's own tool calling (OpenAI tools, Anthropic tool_use, Gemini function calls); the episode and its scoring are the same.",
        "kind": "choice",
        "choices": [
          {
            "value": "text",
            "label": "Text tags, as in the paper"
          },
          {
            "value": "native",
            "label": "The provider's native tool calling"
          }
        ],
        "default": "text"
      },
      {
        "key": "faults",
        "flag": "--faults",
        "label": "Faults on real tools",
        "help": "For a real-tool pack (pilot-real-tools): PILOT's law fails calls before they reach their server, seeded so every model meets the same faults; off lets every call through.",
        "kind": "choice",
        "choices": [
          {
            "value": "law",
            "label": "PILOT's fault law (seeded)"
          },
          {
            "value": "off",
            "label": "Off: every call reaches its server"
          }
        ],
        "default": "law"
      }
    ],
    "paper": null
  }
];

/**
 * The new-run form's preview: a plan, or the first problem with its field.
 */
export type PlanResult = { 
/**
 * What Start would do.
 */
plan: RunPlan | null, 
/**
 * What must be fixed first.
 */
problem: FormError | null, };

/**
 * The planner's answer for one benchmark.
 */
export type RoundsAdvice = { 
/**
 * Benchmark (`questbench`, …).
 */
benchmark: string, 
/**
 * Rounds per model the form plans.
 */
rounds: number, 
/**
 * The SD of one round's score (points out of 100) the figures assume; `null` when unknown.
 */
assumed_sd: number | null, 
/**
 * Whether `assumed_sd` was entered (else observed in stored runs).
 */
sd_entered: boolean, 
/**
 * Models whose rounds the observed SD pools (0 when entered or unknown).
 */
models_observed: number, 
/**
 * The smallest difference (points) the planned rounds detect at 80 % power, α = 0.05.
 */
min_detectable: number | null, 
/**
 * The difference asked about (points).
 */
delta: number, 
/**
 * Rounds per model that detect `delta` at 80 % power.
 */
rounds_needed: number | null, 
/**
 * Power assumed (0.8).
 */
power: number, 
/**
 * Two-sided level (0.05).
 */
alpha: number, 
/**
 * All of it in words, for the form.
 */
sentence: string, };

/**
 * A sample's review state: its overrides, newest first, and the reviewer name to prefill.
 */
export type SampleReview = { 
/**
 * Overrides, newest first.
 */
overrides: Array<OverrideView>, 
/**
 * The `reviewer` setting, if set.
 */
reviewer: string | null, };

/**
 * One override, as the trace viewer shows it (scores in points, 0–100).
 */
export type OverrideView = { 
/**
 * Override id.
 */
id: number, 
/**
 * The reviewer's verdict.
 */
passed: boolean, 
/**
 * The reviewer's score (points).
 */
points: number, 
/**
 * Why.
 */
note: string, 
/**
 * Who.
 */
reviewer: string, 
/**
 * When (RFC 3339 UTC).
 */
created_at: string, 
/**
 * What the scorer said.
 */
original_passed: boolean, 
/**
 * The scorer's score (points).
 */
original_points: number, 
/**
 * The Crucible version that scored the sample.
 */
scorer_version: string, 
/**
 * Whether this is the sample's newest override (the one reports count).
 */
current: boolean, };

/**
 * The queue of a selection and the reviewers' agreement with the scorer on it.
 */
export type AuditQueue = { 
/**
 * Queued samples, in id order.
 */
items: Array<AuditItem>, 
/**
 * Queued samples a reviewer has looked at.
 */
reviewed: number, 
/**
 * Of those, the ones the reviewer confirmed.
 */
confirmed: number, 
/**
 * confirmed ÷ reviewed × 100 (`null` before any review).
 */
agreement_pct: number | null, };

/**
 * One queued sample.
 */
export type AuditItem = { 
/**
 * Sample id.
 */
sample_id: number, 
/**
 * Its run.
 */
run_id: string, 
/**
 * Benchmark.
 */
benchmark: string, 
/**
 * Model (as people named it).
 */
model: string, 
/**
 * Task.
 */
task: string, 
/**
 * Round.
 */
round: number, 
/**
 * Outcome class.
 */
outcome: string, 
/**
 * The scorer's score (points).
 */
points: number, 
/**
 * The scorer's verdict.
 */
passed: boolean, 
/**
 * Why it is queued, in words.
 */
reasons: Array<string>, 
/**
 * `confirmed`, `overridden`, or `null` when nobody has reviewed it.
 */
review: string | null, };

/**
 * What pressing Start would do.
 */
export type RunPlan = { 
/**
 * Samples in total.
 */
samples: number, 
/**
 * Per benchmark.
 */
benchmarks: Array<BenchPlan>, 
/**
 * Estimated USD from previous runs' per-sample cost (`None`: no history for some model, or
 * a model whose calls had no price: unknown, never $0).
 */
est_cost_usd: number | null, 
/**
 * Estimated wall time in seconds from previous runs' per-sample latency and the
 * concurrency (`None`: no history).
 */
est_seconds: number | null, 
/**
 * How the estimates were made, for people.
 */
basis: string, 
/**
 * Model calls in flight and chain work.
 */
scheduling: SchedulingPlan, };

/**
 * How a run is scheduled (docs/runs.md, "Scheduling"), for the plan preview.
 */
export type SchedulingPlan = { 
/**
 * Model calls in flight at once.
 */
concurrency: number, 
/**
 * Chain workers (`None`: the run executes nothing on a chain).
 */
chain_workers: number | null, 
/**
 * QuestBench chains the run may boot (Intent2Tx alone: its executors, one per worker;
 * `None`: no chain work).
 */
chains_max: number | null, 
/**
 * The same in words.
 */
summary: string, };

/**
 * Samples of one benchmark in a plan.
 */
export type BenchPlan = { 
/**
 * Benchmark.
 */
benchmark: string, 
/**
 * Instances selected (tasks × kept prompt types).
 */
instances: number, 
/**
 * Models that run on it (built-in agents only where they exist).
 */
models: Array<string>, 
/**
 * Rounds of each instance on this benchmark.
 */
rounds: number, 
/**
 * instances × models × rounds.
 */
samples: number, 
/**
 * What the run's preset sets on this benchmark, in words (`None` without a preset).
 */
protocol: string | null, 
/**
 * What the task filters can choose on this benchmark (every instance, filters ignored).
 */
facets: TaskFacets, 
/**
 * Intent2Tx with execution: selected tasks that will not execute on the offline universe
 * (they call a contract it does not hold) and are scored by their static metrics only.
 */
not_executable: number, 
/**
 * Up to five of them, `id: why`.
 */
not_executable_examples: Array<string>, };

/**
 * The distinct, sorted, non-empty filter values of a benchmark's instances.
 */
export type TaskFacets = { 
/**
 * Categories.
 */
categories: Array<string>, 
/**
 * Difficulties.
 */
difficulties: Array<string>, 
/**
 * Kinds.
 */
kinds: Array<string>, };

/**
 * A problem with a run request, on the field it is about.
 */
export type FormError = { 
/**
 * The request's field.
 */
field: SpecField, 
/**
 * What is wrong, for people (no command-line flag in it: the CLI adds the flag).
 */
message: string, };

/**
 * A field of a run request (`RunRequest` in `crucible-views`: what the CLI and the app send),
 * as the New run form has it, with the CLI flag that sets it.
 */
export type SpecField = "benchmarks" | "models" | "base_url" | "limit" | "rounds" | "seed" | "concurrency" | "chain_workers" | "budget_usd" | "prompt_types" | "prompt_set" | "filters" | "packs" | "preset" | "fork_url" | "fork_block" | "name" | "note" | "options" | "model_settings";

/**
 * The runs list.
 */
export type RunsView = { 
/**
 * The database file.
 */
db: string, 
/**
 * Runs, newest first.
 */
runs: Array<RunListItem>, 
/**
 * Ids of the runs going on in this app right now (a stored `running` run not in here was
 * interrupted: the app was closed or killed, and it can be resumed).
 */
live: Array<string>, };

/**
 * What the in-app demo runs, shown next to its button before it is pressed.
 */
export type DemoInfo = { 
/**
 * The benchmarks it runs, in order.
 */
benchmarks: Array<string>, 
/**
 * The built-in agents it runs.
 */
models: Array<string>, 
/**
 * Why QuestBench is left out (Anvil, Deno or the bsc universe missing); `None`: included.
 */
questbench_unavailable: string | null, };

/**
 * A run in the runs list.
 */
export type RunListItem = { 
/**
 * Run id.
 */
run_id: string, 
/**
 * What people called the run (`None`: unnamed; show the id).
 */
name: string | null, 
/**
 * What people wrote about the run.
 */
note: string | null, 
/**
 * As stored: running | finished | cancelled | interrupted | failed.
 */
status: string, 
/**
 * Benchmarks.
 */
benchmarks: Array<string>, 
/**
 * Models, as stored (what resume, compare and filters name).
 */
models: Array<string>, 
/**
 * The same models as people named them (`lab · llama-3-70b` for a saved provider's
 * model), in the order of `models`.
 */
model_labels: Array<string>, 
/**
 * Why its errors happened (provider or infrastructure failures, not wrong answers): the
 * most frequent reasons, each with its count.
 */
error_reasons: Array<ErrorReason>, 
/**
 * The chain of a fork run, for people: `fork of URL at block N (chain id C)` with the
 * URL as stored (credentials removed); `None` for a run on the offline universe.
 */
fork: string | null, 
/**
 * RFC 3339.
 */
started: string, 
/**
 * RFC 3339, when it stopped.
 */
finished_at: string | null, 
/**
 * Samples planned / stored / failed / passed.
 */
planned: number, 
/**
 * Stored.
 */
finished: number, 
/**
 * `agent_error` samples.
 */
failed: number, 
/**
 * Passed samples.
 */
passed: number, 
/**
 * What its stored samples cost: calls with no price kept apart ("unpriced", never $0).
 */
cost: Cost, 
/**
 * A `running` run another process is running now: who ("crucible run (pid 1234 on host
 * lab-3)"); it cannot be resumed until that stops. `None` otherwise.
 */
held_by: string | null, 
/**
 * The build that made the run, in words ("Crucible 0.1.0, commit 0123456789ab, built
 * 2026-11-29"); `None` for runs stored before builds were recorded.
 */
made_by: string | null, 
/**
 * A distributed run on a lab store (docs/lab-scale.md): its workers and queue; `None` for
 * a run made by one process.
 */
workers: RunWorkers | null, };

/**
 * The workers of a distributed run, as the runs list shows them.
 */
export type RunWorkers = { 
/**
 * Workers that joined.
 */
joined: number, 
/**
 * Workers working now (heard from within their claim's lease).
 */
active: number, 
/**
 * Samples being run now.
 */
running: number, 
/**
 * Where the active workers run ("node-1, node-2").
 */
hosts: string, };

/**
 * What Settings → Store shows.
 */
export type StoreChoice = { 
/**
 * `local` (the database file) or `lab` (a PostgreSQL store).
 */
kind: string, 
/**
 * The local database file.
 */
local_file: string, 
/**
 * The lab store's URL, without its password (also when the local file is in use, so it
 * can be switched back on).
 */
lab_url: string | null, 
/**
 * A password for the lab store is in the keychain.
 */
lab_password_saved: boolean, 
/**
 * Where passwords are kept, for people ("secret-service", "keyutils").
 */
keychain: string, };

/**
 * What a successful connection found.
 */
export type LabCheck = { 
/**
 * The URL, without its password.
 */
url: string, 
/**
 * The server's version.
 */
server_version: string, 
/**
 * Runs in the store.
 */
runs: number, };

/**
 * One reason a run's samples errored and how many it hit.
 */
export type ErrorReason = { 
/**
 * The stored error, clipped to [`REASON_CHARS`] characters.
 */
reason: string, 
/**
 * Samples with this error.
 */
samples: number, };

/**
 * The live state of a run, as sent to the UI a few times a second.
 */
export type LiveStatus = { 
/**
 * Run id.
 */
run_id: string, 
/**
 * `starting`, `running`, or the final status (`finished`, `cancelled`, `failed`).
 */
status: string, 
/**
 * Samples planned for the whole run.
 */
planned: number, 
/**
 * Samples already stored when this session started (a resumed run).
 */
already_done: number, 
/**
 * Samples this session runs.
 */
pending: number, 
/**
 * Finished in this session.
 */
done: number, 
/**
 * Failed in this session.
 */
failed: number, 
/**
 * Per model.
 */
models: Array<ModelProgress>, 
/**
 * Throughput over the session.
 */
samples_per_min: number, 
/**
 * Seconds left at that throughput (`None` until a sample finished).
 */
eta_seconds: number | null, 
/**
 * What the run spent so far (`None` until read): calls with no price kept apart.
 */
cost: Cost | null, 
/**
 * The latest failures, newest first (at most 8).
 */
failures: Array<FailureView>, 
/**
 * The last notice (budget reached, worker restarted, run error).
 */
notice: string | null, 
/**
 * Seconds since this session started (throughput and ETA move with it between samples).
 */
elapsed_seconds: number, 
/**
 * What bounds the run now (`None` until the scheduler first says).
 */
load: LiveLoad | null, };

/**
 * What a running run waits for: model calls in flight, chain work, and which of them limits.
 */
export type LiveLoad = { 
/**
 * Model calls waiting for an answer.
 */
calls_in_flight: number, 
/**
 * The most model calls in flight at once (the run's concurrency).
 */
concurrency: number, 
/**
 * Chain workers doing chain work (sandbox, transactions, checks); `None` without chain
 * benchmarks.
 */
chain_workers_busy: number | null, 
/**
 * Chain workers in all.
 */
chain_workers: number | null, 
/**
 * Chains lent to samples (a multi-round episode keeps one between rounds).
 */
chains_in_use: number | null, 
/**
 * Chains the run may boot.
 */
chains_max: number | null, 
/**
 * `provider`, `chain`, `budget` or `local`.
 */
limit: string, 
/**
 * The limiting factor in words.
 */
limit_label: string, };

/**
 * Progress of one model.
 */
export type ModelProgress = { 
/**
 * Model, as stored.
 */
model: string, 
/**
 * The model as people named it (`lab · llama-3-70b` for a saved provider's model).
 */
label: string, 
/**
 * Samples finished in this session.
 */
done: number, 
/**
 * Samples planned for it in this session.
 */
planned: number, 
/**
 * Of those, failed (`agent_error` or not run).
 */
failed: number, };

/**
 * One failed sample, as the live view lists it.
 */
export type FailureView = { 
/**
 * Benchmark.
 */
benchmark: string, 
/**
 * Model (the stored spec; it finds the sample).
 */
model: string, 
/**
 * The model as people named it ([`crate::verdict::ModelLabels`]).
 */
label: string, 
/**
 * Instance.
 */
instance: string, 
/**
 * Round.
 */
round: number, 
/**
 * Outcome class, or `not_run` for an infrastructure failure.
 */
outcome: string, 
/**
 * The error when there is one.
 */
error: string | null, };

/**
 * The longest run name, in characters (one line).
 */
export const RUN_NAME_MAX_CHARS = 120;

/**
 * The longest run note, in characters.
 */
export const RUN_NOTE_MAX_CHARS = 4000;

/**
 * One of the three benchmarks Crucible implements.
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
extra: JsonValue, };

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
 * What the check compares against, in words, with parameters resolved and an amount check's
 * amount in token units (`0.093 BNB`); quantities read from the chain before the
 * transaction are named, not guessed.
 */
expected: string, 
/**
 * An amount check's expected amount as an integer in the token's smallest unit (for the
 * hover), when it is known before execution.
 */
expected_base: string | null, 
/**
 * The token an amount check counts, when the universe describes it.
 */
unit: Unit | null, };

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
 * One argument or parameter line, with the exact value behind a rounded or named one.
 */
export type PreviewArg = { 
/**
 * The line in words (`value = 1,000 USDT`).
 */
text: string, 
/**
 * The exact value when `text` shows it otherwise (base units, a named address).
 */
exact: string | null, };

/**
 * One line of what the answer is held to.
 */
export type ExpectedRow = { 
/**
 * 1-based step.
 */
step: number, 
/**
 * Intent2Tx: the contract's name; PILOT: the tool.
 */
target: string, 
/**
 * Intent2Tx: the contract's address (PILOT: none).
 */
address: string | null, 
/**
 * Intent2Tx: the function; PILOT: why the step is there.
 */
action: string, 
/**
 * Arguments in words (`amountIn = 1,000 USDC`), ETH sent, or the step's parameters.
 */
details: Array<PreviewArg>, };

/**
 * A labelled fact shown above the prompt.
 */
export type PreviewFact = { 
/**
 * Label in words.
 */
label: string, 
/**
 * Value in words.
 */
value: string, };

/**
 * An Intent2Tx or PILOT task as a run would present it.
 */
export type PromptPreview = { 
/**
 * Benchmark.
 */
bench: Bench, 
/**
 * Task id.
 */
id: string, 
/**
 * The wording and variant in words ("paper wording · flawed plan").
 */
variant: string, 
/**
 * The exact prompt: system message, a blank line, user message (Intent2Tx), or the one
 * message PILOT sends.
 */
prompt: string, 
/**
 * Heading of `expected` in words.
 */
expected_title: string, 
/**
 * What the answer is held to, step by step.
 */
expected: Array<ExpectedRow>, 
/**
 * Other facts (flaw, required tools, success ceiling, category, …).
 */
facts: Array<PreviewFact>, 
/**
 * Why there is no seed, and where the seeded parts show.
 */
note: string, };

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
passed: boolean, 
/**
 * The token `expected` and `actual` count (integers in its smallest unit), for an amount
 * check whose token the universe describes.
 */
unit: Unit | null, };

/**
 * One round of a composite dry-run, as `quest::composite` recorded it.
 */
export type RoundTrace = { 
/**
 * 1-based round number (K_act after this round).
 */
round: number, 
/**
 * `tx`, `query`, `error` or `invalid`.
 */
kind: string, 
/**
 * The code the sandbox ran (transaction rounds).
 */
code: string | null, 
/**
 * The transaction as sent with its receipt summary (mined transaction rounds), else null.
 */
tx: JsonValue, 
/**
 * Receipt status: true mined OK, false reverted, null when nothing was mined.
 */
status: boolean | null, 
/**
 * The revert reason of a reverted transaction.
 */
revert_reason: string | null, 
/**
 * The query as asked (query rounds), else null.
 */
query: JsonValue, 
/**
 * The query's result, else null.
 */
result: JsonValue, 
/**
 * Why the round failed or what was reported (empty on success).
 */
reason: string, 
/**
 * The agent's balance changes in this round (name → signed base units).
 */
balance_changes: JsonValue, 
/**
 * How many of the goal checks passed after this round (progress; only the end state scores).
 */
checks_passed: number, 
/**
 * How many goal checks were evaluated after this round (0 when none were).
 */
checks_total: number, 
/**
 * The feedback text the model received after this round.
 */
feedback: string, };

/**
 * What a composite dry-run adds to [`DryRun`]: the rounds and the decay arithmetic.
 */
export type CompositeTrace = { 
/**
 * The unrounded-down score (base × decay, two decimals); `DryRun::score` is its floor.
 */
score: number, 
/**
 * Sum of the weights of the passed end-state checks (capped when a required one fails).
 */
base: number, 
/**
 * min(1, K_opt / K_act), 0 when no round ran.
 */
decay: number, 
/**
 * Execution rounds counted.
 */
k_act: number, 
/**
 * Optimal rounds (the task's `composite.optimal_steps`).
 */
k_opt: number, 
/**
 * Round budget (K_opt × multiplier).
 */
max_rounds: number, 
/**
 * The agent's failure (e.g. the script ran out of replies before submitting).
 */
agent_error: string | null, 
/**
 * Every round.
 */
rounds: Array<RoundTrace>, };

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
tx: JsonValue, 
/**
 * Each check (QuestBench), metric (Intent2Tx) or criterion (PILOT), expected vs actual.
 */
checks: Array<CheckOutcome>, 
/**
 * Sandbox logs (QuestBench atomic) or the conversation (PILOT, QuestBench composite).
 */
logs: string, 
/**
 * QuestBench composites: every round, K_act/K_opt, the decay and the base score; null
 * for every other task.
 */
composite: CompositeTrace | null, };

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
 * Every exploit agent's result on one task.
 */
export type ExploitCheck = { 
/**
 * Task id.
 */
id: string, 
/**
 * One row per exploit.
 */
exploits: Array<ExploitRow>, 
/**
 * Whether every exploit scored 0.
 */
resistant: boolean, 
/**
 * Whether an exploit passed (the task's checks have a hole).
 */
passed_by_exploit: boolean, };

/**
 * One exploit agent's result on a task, for the studio's self-test.
 */
export type ExploitRow = { 
/**
 * The agent (`exploit-cheat-rpc`).
 */
agent: string, 
/**
 * What it tries, in words.
 */
tries: string, 
/**
 * Points under Crucible's scoring (must be 0).
 */
points: number, 
/**
 * Points under the paper's scoring.
 */
paper_points: number, 
/**
 * Outcome class.
 */
outcome: string, 
/**
 * The verdict's reason.
 */
reason: string, 
/**
 * Calls the RPC gate refused.
 */
refused_calls: number, };

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
 * What a save wrote: the file, the id it holds, and the built-in it copied when it made a copy.
 */
export type SavedTask = { 
/**
 * The file written (in the user task folder).
 */
path: string, 
/**
 * The id the task is saved under: a built-in's copy gets a new one when the edit kept the
 * built-in's id.
 */
id: string, 
/**
 * The pack the saved task belongs to (runnable with `run --pack`).
 */
pack: string, 
/**
 * The built-in file this save copied (left unchanged); `None` for a save in place.
 */
copied_from: string | null, };

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

/**
 * One content pack as listed.
 */
export type PackInfo = { 
/**
 * Unique name (`pack.json`'s, else the folder's; built-in packs are `builtin-…`).
 */
name: string, 
/**
 * `questbench`, `intent2tx` or `pilot`.
 */
benchmark: string, 
/**
 * The folder.
 */
path: string, 
/**
 * Tasks (QuestBench task files, Intent2Tx instances, PILOT tasks); 0 when it does not load.
 */
tasks: number, 
/**
 * SHA-256 of the pack's content, hex.
 */
hash: string, 
/**
 * Where it comes from: `builtin`, `studio` (saved in the task studio), `data_dir` or `added`.
 */
origin: string, 
/**
 * `pack.json`'s description, if any.
 */
description: string | null, 
/**
 * `pack.json`'s version, if any.
 */
version: string | null, 
/**
 * Why the pack does not load (file and field), if it does not.
 */
error: string | null, 
/**
 * The last full self-test on this exact content (`None`: never self-tested, or the pack
 * changed since): "verified" when it passed.
 */
selftest: PackVerdict | null, 
/**
 * `pack.json`'s fork default, for people: "URL at block N" with credentials removed.
 */
fork: string | null, };

/**
 * A pack's self-test verdict.
 */
export type PackVerdict = { 
/**
 * The pack.
 */
pack: string, 
/**
 * Its benchmark.
 */
benchmark: string, 
/**
 * The content hash the self-test ran on.
 */
hash: string, 
/**
 * Every task passed.
 */
passed: boolean, 
/**
 * Tasks (or instances) checked.
 */
checked: number, 
/**
 * Seeds per task (QuestBench, PILOT-Bench; 1 for Intent2Tx).
 */
seeds: number, 
/**
 * The failing tasks and seeds.
 */
failing: Array<Failing>, 
/**
 * Intent2Tx: instances whose calls cannot execute on the offline universe (scored by their
 * static metrics only), with the first reasons.
 */
not_executable: number, 
/**
 * Up to five of those reasons.
 */
not_executable_examples: Array<string>, 
/**
 * When it ran (RFC 3339, UTC).
 */
at: string, };

/**
 * One failing case of a pack's self-test: the task (or instance), the seed where there is one,
 * and what failed.
 */
export type Failing = { 
/**
 * Task or instance id.
 */
task: string, 
/**
 * The seed, when the benchmark samples instances from a seed.
 */
seed: number | null, 
/**
 * What failed, for people.
 */
problem: string, };

/**
 * A self-test's progress.
 */
export type SelftestProgress = { 
/**
 * The pack.
 */
pack: string, 
/**
 * Tasks done.
 */
done: number, 
/**
 * Tasks in all.
 */
total: number, };

/**
 * The audit's result for the GUI.
 */
export type SimAudit = { 
/**
 * Episodes simulated.
 */
episodes: number, 
/**
 * Tool calls simulated.
 */
calls: number, 
/**
 * Seed.
 */
seed: number, 
/**
 * Confidence of each interval, % (Bonferroni-corrected so the family is at 95 %).
 */
confidence_pct: number, 
/**
 * Success-rate cells with at least 30 calls.
 */
cells: Array<SimAuditCell>, 
/**
 * Error-code shares per tool with at least 30 failures.
 */
errors: Array<SimAuditErrors>, 
/**
 * Share of cells whose configured rate is inside the interval, %.
 */
inside_pct: number, 
/**
 * Whether every cell and every error share is inside its interval.
 */
all_inside: boolean, 
/**
 * The verdict in one sentence.
 */
headline: string, };

/**
 * One (Nu, Nf, Nh) cell: calls made with that many uncalled and failed prerequisites and that
 * many failures so far.
 */
export type SimAuditCell = { 
/**
 * Prerequisites never called.
 */
uncalled: number, 
/**
 * Prerequisites called but never succeeded.
 */
failed: number, 
/**
 * Failures so far in the episode.
 */
history: number, 
/**
 * Configured success rate, %.
 */
configured_pct: number, 
/**
 * Observed success rate, %.
 */
observed_pct: number, 
/**
 * Interval of the observed rate, % (low, high).
 */
ci_pct: [number, number], 
/**
 * Calls observed.
 */
calls: number, 
/**
 * Whether the configured rate lies inside the interval.
 */
inside: boolean, 
/**
 * The cell in words.
 */
sentence: string, };

/**
 * One tool's error codes: observed shares against the uniform law.
 */
export type SimAuditErrors = { 
/**
 * Tool name.
 */
tool: string, 
/**
 * Failures observed.
 */
failures: number, 
/**
 * Share of each code when every code may be drawn, %.
 */
configured_pct: number, 
/**
 * Smallest and largest observed share of any code, %.
 */
observed_pct: [number, number], 
/**
 * Whether every code's share lies inside its interval.
 */
inside: boolean, 
/**
 * The tool in words.
 */
sentence: string, };

/**
 * An audit's progress.
 */
export type SimAuditProgress = { 
/**
 * Episodes simulated so far.
 */
done: number, 
/**
 * Episodes in all.
 */
total: number, };

/**
 * One stored run in the picker.
 */
export type RunInfo = { 
/**
 * Run id.
 */
run_id: string, 
/**
 * What people called the run (`None`: unnamed; show the id).
 */
name: string | null, 
/**
 * What people wrote about the run.
 */
note: string | null, 
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
 * Models present, sorted (as stored: what a comparison or filter of this run names).
 */
models: Array<string>, 
/**
 * The same models as people named them (`lab · llama-3-70b` for a saved provider's model),
 * in the order of `models`.
 */
model_labels: Array<string>, 
/**
 * The chain of a fork run (`fork of URL at block N (chain id C)`, the URL without
 * credentials); `None` on the offline universe.
 */
fork: string | null, };

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
 * Passed or not (under `scoring`).
 */
passed: boolean | null, 
/**
 * Only samples with an answer cut at the token limit (`true`), or only those without
 * (`false`).
 */
truncated?: boolean, 
/**
 * The scale scores are read on (EVM-QuestBench has two; default the paper's).
 */
scoring: Scoring, 
/**
 * The sample listing only: words every listed sample contains in its task, instance, model,
 * outcome or category (any case; the words may be in different fields).
 */
search?: string, 
/**
 * The sample listing only: the lowest score listed (0 to 1, on `scoring`).
 */
score_min?: number, 
/**
 * The sample listing only: the highest score listed (0 to 1, on `scoring`).
 */
score_max?: number, 
/**
 * The sample listing only: its order, a column (`id`, `benchmark`, `model`, `task`, `kind`,
 * `category`, `difficulty`, `round`, `outcome`, `score`), `-` in front for descending.
 * Default: id order.
 */
sort?: string, 
/**
 * Whether reviewers' overrides count (default: they do; reports always say).
 */
overrides: OverrideMode, };

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
 * The rows, in the listing's order (id order unless the filter sorts).
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
 * Score in [0, 1] (in a listing: on the filter's scoring).
 */
score: number, 
/**
 * Passed.
 */
passed: boolean, 
/**
 * An answer of it was cut at the token limit (its score may be depressed by a max-tokens
 * too small).
 */
truncated: boolean, };

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
metrics: JsonValue, 
/**
 * The details JSON (benchmark-specific; every long string in it clipped).
 */
details: JsonValue, 
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
 * What it cost: the priced calls' USD and the calls with no price ("unpriced", never $0).
 */
cost: Cost, 
/**
 * Model calls made.
 */
model_calls: number, 
/**
 * Of them, answers cut at the token limit.
 */
truncated_calls: number, 
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
events: Array<JsonValue>, 
/**
 * Chain artefacts, in order.
 */
artefacts: Array<Artefact>, };

/**
 * One stored sample as the trace viewer gets it: the stored [`SampleTrace`] (its fields at the
 * top level) plus its typed [`TraceView`] under `view`.
 */
export type SampleView = { 
/**
 * Its typed reading.
 */
view: TraceView, 
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
metrics: JsonValue, 
/**
 * The details JSON (benchmark-specific; every long string in it clipped).
 */
details: JsonValue, 
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
 * What it cost: the priced calls' USD and the calls with no price ("unpriced", never $0).
 */
cost: Cost, 
/**
 * Model calls made.
 */
model_calls: number, 
/**
 * Of them, answers cut at the token limit.
 */
truncated_calls: number, 
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
events: Array<JsonValue>, 
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
data: JsonValue, };

/**
 * A run comparison: exactly `crucible compare --json`'s value plus its verdicts, the paired
 * samples (for the task × model matrix), the disagreements and per-category deltas.
 */
export type CompareView = { 
/**
 * What `crucible compare --json` prints.
 */
compare: CompareReport, 
/**
 * One verdict per comparison, in the same order (the sentence the Compare screen leads with).
 */
verdicts: Array<Verdict>, 
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
disagreements_total: number, 
/**
 * Paired samples in pairing order, at most [`MAX_PAGE`] of each pass/fail class (A only
 * passed, B only, both, neither), so every class can be listed.
 */
pairs: Array<Disagreement>, };

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
 * One comparison said in words, with the figures the words come from.
 */
export type Verdict = { 
/**
 * Benchmark id (`questbench`, `intent2tx`, `pilot`).
 */
benchmark: string, 
/**
 * Model of side A as stored (the key of the comparison and its samples).
 */
model_a: string, 
/**
 * Model of side B as stored.
 */
model_b: string, 
/**
 * Side A as people named it (`lab · llama-3-70b`; the model spec when no name was saved).
 */
label_a: string, 
/**
 * Side B as people named it.
 */
label_b: string, 
/**
 * Which side the comparison favours.
 */
outcome: VerdictOutcome, 
/**
 * The verdict in one sentence.
 */
sentence: string, 
/**
 * Mean score of A minus mean score of B, in points (0–100 scale).
 */
diff_points: number, 
/**
 * Lower end of the CI of `diff_points`.
 */
ci_lo: number, 
/**
 * Upper end of the CI of `diff_points`.
 */
ci_hi: number, 
/**
 * The CI's confidence level, % ([`CONFIDENCE_PCT`]).
 */
confidence_pct: number, 
/**
 * Paired samples the comparison rests on.
 */
n_pairs: number, 
/**
 * Paired tasks, the unit of the test.
 */
tasks: number, 
/**
 * The test the verdict rests on, in words (`report::compare::SIGN_TEST`).
 */
test: string, 
/**
 * Exact sign test p-value on per-task score wins.
 */
sign_p: number, 
/**
 * McNemar exact p-value on pass/fail.
 */
mcnemar_p: number, 
/**
 * The pass/fail split of the pairs.
 */
counts: PassCounts, };

/**
 * Which side a comparison favours.
 */
export type VerdictOutcome = "a_better" | "b_better" | "not_distinguishable";

/**
 * How the paired samples of a comparison split on pass/fail.
 */
export type PassCounts = { 
/**
 * Pairs A passed and B failed (improvements of A over B).
 */
only_a: number, 
/**
 * Pairs B passed and A failed (regressions of A against B).
 */
only_b: number, 
/**
 * Pairs both passed.
 */
both_pass: number, 
/**
 * Pairs both failed.
 */
both_fail: number, };

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

/**
 * What one click exports.
 */
export type ExportRequest = { "kind": "chart", 
/**
 * One of [`chart::CHART_NAMES`].
 */
chart: string, 
/**
 * png | svg | csv | latex.
 */
format: string, } | { "kind": "all_tables", 
/**
 * csv | latex.
 */
format: string, };

/**
 * Where one export click went: the file (or the folder of every table) and its folder.
 */
export type SavedExport = { 
/**
 * The file written, or the new folder holding every table.
 */
path: string, 
/**
 * The folder it is in (what "Show in folder" opens).
 */
folder: string, 
/**
 * The file's (or folder's) name.
 */
name: string, 
/**
 * How many files were written (1 for a chart).
 */
files: number, };

/**
 * The typed reading of a sample's details and artefacts.
 */
export type TraceView = { 
/**
 * The verdict's checks as a replay compares them (QuestBench's scoring checks — a
 * composite's end-state ones —, Intent2Tx's field verdicts and execution, PILOT's criteria).
 */
checks: Array<CheckView>, 
/**
 * Revert reasons and receipt statuses anywhere in the details and artefacts, at most
 * [`MAX_HIGHLIGHTS`], each value once.
 */
highlights: Array<Highlight>, 
/**
 * QuestBench composites: the rounds and the decay arithmetic.
 */
composite: CompositeTrace | null, 
/**
 * Intent2Tx samples.
 */
intent: IntentTrace | null, 
/**
 * PILOT samples.
 */
pilot: PilotTrace | null, 
/**
 * QuestBench's transactions (an atomic sample's one, a composite's one per round), decoded
 * against the universe ([`crate::txview`]); empty when there are none or no decoder was
 * given.
 */
transactions: Array<TxView>, 
/**
 * Calls the RPC gate refused while the agent's code ran (cheat methods, sends): the
 * sample's reward-hacking attempts, with a composite's round named.
 */
refused_calls: Array<RefusedCallView>, 
/**
 * Each model call of the sample (provider models only): stop reason, tokens, cost and
 * reasoning ([`model_calls`]).
 */
model_calls: Array<ModelCallView>, 
/**
 * Names of the addresses in the details and artefacts that the sample's universe knows
 * (lower-case address → `WBNB`, `PancakeRouter`, `agent`), so the Details view says who an
 * address is; empty without a decoder.
 */
address_names: { [key in string]: string }, };

/**
 * One model call, for the trace.
 */
export type ModelCallView = { 
/**
 * 1-based, in the order the calls returned.
 */
n: number, 
/**
 * Why the model stopped, as stored (`stop`, `length`, `tool_use`, `content_filter`, or the
 * provider's own word).
 */
stop: string, 
/**
 * The same, in words.
 */
stop_label: string, 
/**
 * The answer was cut at the token limit.
 */
truncated: boolean, 
/**
 * Answered from Crucible's response cache (no request was made).
 */
cached: boolean, 
/**
 * Prompt tokens (`None`: not reported).
 */
input_tokens: number | null, 
/**
 * Of them, read from the provider's prompt cache.
 */
cached_input_tokens: number | null, 
/**
 * Generated tokens, reasoning included.
 */
output_tokens: number | null, 
/**
 * Of them, spent reasoning.
 */
reasoning_tokens: number | null, 
/**
 * USD; `None`: unpriced (no price known for the model, or stored before per-call costs).
 */
cost_usd: number | null, 
/**
 * The reasoning, when the model gave any.
 */
reasoning: ReasoningView | null, 
/**
 * The provider's request id.
 */
request_id: string | null, };

/**
 * A call's reasoning, for people.
 */
export type ReasoningView = { 
/**
 * The readable thinking (clipped to [`MAX_REASONING_BYTES`]; empty when the provider gave
 * only encrypted or redacted parts).
 */
text: string, 
/**
 * The whole text's length in bytes.
 */
total_bytes: number, 
/**
 * `text` is cut.
 */
clipped: boolean, 
/**
 * What else the provider sent that is not readable, in words ("2 redacted thinking blocks
 * (encrypted by the provider, not shown)"); one line per kind.
 */
opaque: Array<string>, };

/**
 * One model of a run, as it was used.
 */
export type RunModelView = { 
/**
 * The model as the run names it (`openai:gpt-5.1`, `builtin:reference`).
 */
name: string, 
/**
 * `builtin`, a provider kind (`openai`, `anthropic`, …), or `unknown`.
 */
provider: string, 
/**
 * The model as the provider knows it (the agent's name for built-ins).
 */
model: string, 
/**
 * The server (credentials removed when stored); empty for built-ins.
 */
base_url: string, 
/**
 * The settings, one line each, in a fixed order (empty for built-ins).
 */
settings: Array<SettingLine>, 
/**
 * Why the settings cannot be shown, when the stored spec is not readable.
 */
unreadable: string | null, };

/**
 * One setting, in words.
 */
export type SettingLine = { 
/**
 * The setting's name as in Settings and `--model-setting` (`temperature`, `max_tokens`).
 */
key: string, 
/**
 * Its name for people.
 */
label: string, 
/**
 * Its value for people ("0.2", "8,192 tokens", "default (not sent)").
 */
value: string, 
/**
 * The run left it unset (nothing sent; the provider's default).
 */
is_default: boolean, };

/**
 * One catalogue entry's editable fields, every one optional (unset: not overridden / not
 * known). The names are those of `models.json`.
 */
export type EntryFields = { 
/**
 * The model name or family prefix (`gpt-5`, `claude-opus-4-7`), lower case.
 */
match: string, 
/**
 * `openai`, `anthropic` or `gemini` (documentation only).
 */
wire: string | null, 
/**
 * Parameters the model refuses (`temperature`, `top_p`, `seed`, `stop`); an empty list
 * refuses nothing.
 */
refuses: Array<string> | null, 
/**
 * `max_tokens` or `max_completion_tokens` (OpenAI wire).
 */
max_tokens_field: string | null, 
/**
 * The reasoning control (`generic`, `openai_effort`, `anthropic_budget`,
 * `anthropic_adaptive`, `gemini_budget`, `gemini_level`).
 */
reasoning: string | null, 
/**
 * Context window in tokens.
 */
context_window: number | null, 
/**
 * List price, USD per 1M tokens.
 */
price: ModelPrice | null, 
/**
 * When the price was read (`YYYY-MM-DD`); required with a price.
 */
price_as_of: string | null, 
/**
 * Where the price was read; required with a price.
 */
price_source: string | null, 
/**
 * Free text.
 */
note: string | null, };

/**
 * One model family: shipped, overridden, merged.
 */
export type CatalogModelView = { 
/**
 * The entry's `match`.
 */
match: string, 
/**
 * As shipped (`None`: added by the user).
 */
shipped: EntryFields | null, 
/**
 * The user's override (`None`: not overridden).
 */
user: EntryFields | null, 
/**
 * What requests are built with.
 */
merged: EntryFields, };

/**
 * A choice of a catalogue field, for a select.
 */
export type FieldChoice = { 
/**
 * The value stored.
 */
value: string, 
/**
 * Its meaning for people.
 */
label: string, };

/**
 * The whole catalogue as Settings shows it.
 */
export type CatalogEditView = { 
/**
 * The user's file (`<data dir>/models.json`).
 */
file: string, 
/**
 * When the shipped catalogue was last checked.
 */
shipped_as_of: string, 
/**
 * Why the user's file cannot be read (it is then shown as shipped, and never overwritten).
 */
user_file_error: string | null, 
/**
 * Every entry, by `match`.
 */
entries: Array<CatalogModelView>, 
/**
 * The parameters a model may refuse.
 */
params: Array<FieldChoice>, 
/**
 * The max-tokens field names.
 */
max_tokens_fields: Array<FieldChoice>, 
/**
 * The reasoning controls.
 */
reasoning_controls: Array<FieldChoice>, };

/**
 * A transaction as the trace viewer shows it.
 */
export type TxView = { 
/**
 * Where it was found (`transaction`, `round 2`).
 */
label: string, 
/**
 * The target: its universe name and short address (`PancakeRouter (0x10ED…024E)`), or the
 * address.
 */
to: string, 
/**
 * The target's full address.
 */
to_address: string, 
/**
 * The function called (`approve(address,uint256)`), `None` for a plain transfer or
 * calldata no known contract declares.
 */
function: string | null, 
/**
 * The decoded arguments, in order.
 */
args: Array<TxArg>, 
/**
 * Why the calldata is not decoded (unknown selector, bad encoding), when it is not.
 */
undecoded: string | null, 
/**
 * The native value sent, in coin units (`0.5 BNB`).
 */
value: string, 
/**
 * The value's exact integer in wei.
 */
value_wei: string, 
/**
 * Gas used, when the receipt has it.
 */
gas_used: number | null, 
/**
 * Whether it succeeded (receipt status), when known.
 */
success: boolean | null, 
/**
 * Why it reverted, when it did and the reason is known.
 */
revert_reason: string | null, 
/**
 * What it changed (balances, allowances, NFT owners, storage, logs), when recorded.
 */
effects: TxEffects | null, };

/**
 * One decoded argument.
 */
export type TxArg = { 
/**
 * Its name in the ABI (`amountIn`), or `#1` when unnamed.
 */
name: string, 
/**
 * Its Solidity type.
 */
ty: string, 
/**
 * The value for people: an amount in token units, an address by name.
 */
text: string, 
/**
 * The exact value when `text` is a reading of it (an integer in the smallest unit, a full
 * address), for hovering.
 */
exact: string | null, };

/**
 * What one transaction changed.
 */
export type TxEffects = { 
/**
 * Native coin balances that changed (the sender's includes the fee).
 */
native: Array<BalanceChange>, 
/**
 * Token balances moved, summed per account and token, from the transfer logs.
 */
tokens: Array<BalanceChange>, 
/**
 * Allowances set (ERC-20 `Approval`) and operators approved (`ApprovalForAll`).
 */
allowances: Array<AllowanceChange>, 
/**
 * NFTs that changed owner (ERC-721 `Transfer`).
 */
nft_owners: Array<NftOwnerChange>, 
/**
 * Storage slots written, per contract.
 */
storage: Array<StorageChange>, 
/**
 * Every log, decoded where the universe declares the event.
 */
logs: Array<LogView>, 
/**
 * Whether the state diff was recorded (`false`: the node could not trace the transaction;
 * native balances and storage are then unknown, not unchanged).
 */
traced: boolean, 
/**
 * Logs and slots left out (beyond the display limits).
 */
omitted: string, };

/**
 * One account's balance change in one asset.
 */
export type BalanceChange = { 
/**
 * The account, named from the universe when known.
 */
account: string, 
/**
 * Its full address.
 */
address: string, 
/**
 * The asset (`BNB`, `USDT`, or the token's address when the universe does not name it).
 */
asset: string, 
/**
 * The signed change in the asset's units (`+1,500 USDT`, `−0.0021 BNB`).
 */
change: string, 
/**
 * The signed change in the smallest unit.
 */
change_raw: string, 
/**
 * Before and after in units, when known (native balances).
 */
before: string | null, 
/**
 * After, in units, when known.
 */
after: string | null, };

/**
 * An allowance or operator approval set by the transaction.
 */
export type AllowanceChange = { 
/**
 * The token or collection.
 */
token: string, 
/**
 * The owner.
 */
owner: string, 
/**
 * The spender or operator.
 */
spender: string, 
/**
 * The new allowance in token units, `unlimited`, or `approved`/`revoked` for operators.
 */
amount: string, 
/**
 * The exact integer, for amounts.
 */
amount_raw: string | null, };

/**
 * An NFT that changed hands.
 */
export type NftOwnerChange = { 
/**
 * The collection.
 */
collection: string, 
/**
 * The token id.
 */
token_id: string, 
/**
 * Owner before (`minted` for a mint).
 */
from: string, 
/**
 * Owner after (`burned` for a burn).
 */
to: string, };

/**
 * One storage slot written.
 */
export type StorageChange = { 
/**
 * The contract.
 */
contract: string, 
/**
 * The slot (hex word).
 */
slot: string, 
/**
 * The word before.
 */
before: string, 
/**
 * The word after.
 */
after: string, };

/**
 * One log.
 */
export type LogView = { 
/**
 * The emitting contract.
 */
contract: string, 
/**
 * The event (`Transfer`), or `None` when no ABI of the universe declares it.
 */
event: string | null, 
/**
 * Its arguments, in declaration order.
 */
args: Array<TxArg>, 
/**
 * Why it is not decoded, when it is not.
 */
undecoded: string | null, };

/**
 * A refused call, for people.
 */
export type RefusedCallView = { 
/**
 * Where (`transaction`, `round 2`).
 */
place: string, 
/**
 * The method asked for.
 */
method: string, 
/**
 * Times refused.
 */
count: number, 
/**
 * What the method would have done, in words.
 */
meaning: string, };

/**
 * One model's reward-hacking attempts.
 */
export type HackRow = { 
/**
 * Model.
 */
model: string, 
/**
 * Samples of the model.
 */
samples: number, 
/**
 * Samples with at least one refused call.
 */
samples_with_attempts: number, 
/**
 * Refused calls over all its samples.
 */
refused_calls: number, };

/**
 * A revert reason or receipt status found anywhere in a sample's details or artefacts.
 */
export type Highlight = { 
/**
 * What it is.
 */
kind: HighlightKind, 
/**
 * The value as text.
 */
text: string, 
/**
 * Where it was found (`verdict.rounds[1].tx.status`, `artefact[0] receipt.status`).
 */
path: string, };

/**
 * What a [`Highlight`] names.
 */
export type HighlightKind = "revert" | "status";

/**
 * Intent2Tx: the field-by-field verdict against the ground truth, and the execution.
 */
export type IntentTrace = { 
/**
 * One entry per ground-truth step.
 */
steps: Array<IntentStep>, 
/**
 * The execution verdict, when the run executed answers.
 */
execution: IntentExecution | null, 
/**
 * Why the run did not execute this instance (a called contract the offline universe does
 * not hold): its static metrics are its only scores.
 */
not_executable: string | null, };

/**
 * One ground-truth step of an Intent2Tx sample.
 */
export type IntentStep = { 
/**
 * The logic components the step's verdict has, in order.
 */
fields: Array<IntentField>, 
/**
 * Every parameter key.
 */
keys: Array<IntentKey>, };

/**
 * One component of an Intent2Tx step's logic verdict.
 */
export type IntentField = { 
/**
 * `present`, `contract_ok`, `address_ok` or `function_ok`.
 */
field: string, 
/**
 * Whether it holds.
 */
ok: boolean, 
/**
 * The ground truth's value (absent for `present`, and for runs that did not store it).
 */
expected: string | null, 
/**
 * The answer's value (absent when the answer has no such step or field).
 */
answered: string | null, };

/**
 * How one parameter key of an Intent2Tx step scored.
 */
export type IntentKey = { 
/**
 * Parameter name, or `value_eth`.
 */
key: string, 
/**
 * The ground truth has this key.
 */
in_truth: boolean, 
/**
 * The prediction has it.
 */
exists: boolean, 
/**
 * Its type matches the ground truth's.
 */
type_ok: boolean, 
/**
 * Its value matches.
 */
value_ok: boolean, 
/**
 * The ground truth's value (absent for runs that did not store it).
 */
expected: string | null, 
/**
 * The answer's value.
 */
answered: string | null, };

/**
 * The execution verdict of an Intent2Tx sample.
 */
export type IntentExecution = { 
/**
 * The prediction executed without revert.
 */
exec: boolean, 
/**
 * Its balance changes match the ground truth's.
 */
state_eq: boolean, 
/**
 * Why it did not execute, when it did not.
 */
reason: string | null, };

/**
 * PILOT: the evaluator's criteria and the tool-call timeline.
 */
export type PilotTrace = { 
/**
 * `full_success`, `partial_success` or `failure`.
 */
outcome: string, 
/**
 * Required tools executed successfully.
 */
covered: number, 
/**
 * Required tools.
 */
required: number, 
/**
 * covered / required.
 */
coverage: number, 
/**
 * Required tools first succeeded in dependency order.
 */
sequence_ok: boolean, 
/**
 * An output-producing tool succeeded.
 */
output_ok: boolean, 
/**
 * The model said it was done.
 */
completion_signal: boolean, 
/**
 * Why the episode ended (`completed`, `turn_limit`, `consecutive_failures`, `loop`).
 */
termination: string, 
/**
 * Assistant turns used.
 */
turns: number, 
/**
 * Every tool call, in order.
 */
calls: Array<PilotCall>, 
/**
 * Real-tool samples (the `pilot-real-tools` set): pack, faults, servers, end state.
 */
real: RealToolsTrace | null, };

/**
 * One PILOT tool call.
 */
export type PilotCall = { 
/**
 * 1-based turn.
 */
turn: number, 
/**
 * Tool name as the model wrote it.
 */
tool: string, 
/**
 * Whether it succeeded.
 */
success: boolean, 
/**
 * The simulated fault (error code) of a failed call.
 */
error: string | null, 
/**
 * Configured success probability (absent for unknown tools).
 */
p: number | null, 
/**
 * Real tools: the MCP server that serves the tool (`None` for the simulated set).
 */
server: string | null, 
/**
 * Real tools: the proxy failed the call by PILOT's law without sending it.
 */
injected: boolean, 
/**
 * Real tools: the arguments sent, one line per argument (`name`, value as text).
 */
arguments: Array<ArgView>, 
/**
 * Real tools: what the server answered (or the error message), as stored.
 */
result: string | null, };

/**
 * One argument of a real tool call.
 */
export type ArgView = { 
/**
 * The argument's name.
 */
name: string, 
/**
 * Its value: text as it is, anything else as compact JSON, cut at 400 characters.
 */
value: string, };

/**
 * One end-state check of a real-tool sample.
 */
export type StateCheckView = { 
/**
 * The check in words.
 */
check: string, 
/**
 * Whether it held.
 */
passed: boolean, 
/**
 * What was found when it did not.
 */
detail: string, };

/**
 * What a real-tool sample adds: its pack, fault mode, servers and end state.
 */
export type RealToolsTrace = { 
/**
 * The pack the task came from.
 */
pack: string, 
/**
 * `law` or `off`.
 */
faults: string, 
/**
 * Each server with the version it reported (`filesystem 0.2.0`).
 */
servers: Array<string>, 
/**
 * The end-state checks.
 */
checks: Array<StateCheckView>, 
/**
 * Calls the proxy failed by the law.
 */
injected: number, };

/**
 * Every table for the selected benchmarks.
 */
export type Report = { 
/**
 * Run ids covered.
 */
runs: Array<string>, 
/**
 * Samples covered.
 */
samples: number, 
/**
 * The scale every score is on (EVM-QuestBench has two; the other benchmarks one).
 */
scoring: Scoring, 
/**
 * EVM-QuestBench tables (absent when not selected or no samples).
 */
questbench?: QuestTables, 
/**
 * Intent2Tx tables.
 */
intent2tx?: IntentTables, 
/**
 * PILOT-Bench tables.
 */
pilot?: PilotTables, 
/**
 * Cross-benchmark profile, one row per model.
 */
profile: Array<ProfileRow>, 
/**
 * Cost vs score per model and benchmark (for the frontier chart).
 */
cost: Array<CostRow>, 
/**
 * Mean score and pass rate of every (benchmark, model, category): the heat map.
 */
categories: Array<CategoryCell>, 
/**
 * Pass rate of every (benchmark, model, task) across rounds, with flaky cells: the
 * repeat-stability heat map.
 */
tasks: Array<TaskCell>, 
/**
 * Whether reviewers' overrides were counted, and how many samples they touch.
 */
overrides: OverridesUsed, };

/**
 * One row of the cross-benchmark profile: normalised scores in [0, 1] per axis.
 */
export type ProfileRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * QuestBench mean atomic task score / 100.
 */
atomic_precision: number | null, 
/**
 * QuestBench mean composite task score / 100.
 */
workflow_completion: number | null, 
/**
 * Intent2Tx mean S_final.
 */
intent_translation: number | null, 
/**
 * PILOT full success with a flawed plan ÷ with the optimal plan, capped at 1 (`null` when
 * either is missing or the optimal rate is 0).
 */
robustness: number | null, };

/**
 * Total cost, mean score and truncation of one model on one benchmark: a reader sees beside
 * the score whether it was bought cheaply, and whether answers cut at the token limit (a
 * max-tokens too small) depress it.
 */
export type CostRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * Benchmark.
 */
benchmark: string, 
/**
 * Mean score × 100.
 */
score: number, 
/**
 * What its samples cost: the priced calls' USD and the calls with no price (shown as
 * "unpriced", never as $0).
 */
cost: Cost, 
/**
 * Samples.
 */
samples: number, 
/**
 * Samples with an answer cut at the token limit.
 */
truncated_samples: number, 
/**
 * truncated_samples / samples × 100.
 */
truncated_pct: number, 
/**
 * Model calls made.
 */
model_calls: number, 
/**
 * Of them, answers cut at the token limit.
 */
truncated_calls: number, 
/**
 * On the cost/score Pareto frontier of its benchmark (no other priced model is both
 * cheaper-or-equal and better-or-equal with one strict); never for a model with unpriced
 * calls, whose cost is unknown.
 */
frontier: boolean, };

/**
 * One cell of the model × category heat map: a model's samples of one benchmark category.
 */
export type CategoryCell = { 
/**
 * Benchmark.
 */
benchmark: string, 
/**
 * Model name.
 */
model: string, 
/**
 * Category (empty for samples that have none).
 */
category: string, 
/**
 * Samples.
 */
n: number, 
/**
 * Samples passed.
 */
passed: number, 
/**
 * Mean score × 100 (a percentage of the maximum score).
 */
score_pct: number, 
/**
 * passed / n · 100.
 */
pass_rate_pct: number, };

/**
 * One cell of the models × tasks repeat-stability heat map: a model's samples of one task.
 */
export type TaskCell = { 
/**
 * Benchmark.
 */
benchmark: string, 
/**
 * Model name.
 */
model: string, 
/**
 * Task id.
 */
task: string, 
/**
 * The condition the samples were asked under: PILOT-Bench's prompt type or Intent2Tx's
 * setting ("" for EVM-QuestBench, whose tasks have one).
 */
prompt_type: string, 
/**
 * Samples (rounds × seeds).
 */
n: number, 
/**
 * Samples passed.
 */
passed: number, 
/**
 * passed / n · 100.
 */
pass_rate_pct: number, 
/**
 * Mean score × 100 (a percentage of the maximum score).
 */
score_pct: number, 
/**
 * Sample standard deviation of the scores × 100 (`None` below two samples).
 */
score_sd: number | null, 
/**
 * The samples disagree: some passed and some failed (0 < passed < n).
 */
flaky: boolean, };

/**
 * One model's figures for one benchmark.
 */
export type ModelSummary = { 
/**
 * Model name.
 */
model: string, 
/**
 * Number of rounds (repetitions) found.
 */
rounds: number, 
/**
 * The per-round figure (questbench: sum of task points; others: mean score × 100).
 */
per_round: Array<number>, 
/**
 * Mean of `per_round`.
 */
mean: number, 
/**
 * Sample SD of `per_round` (`null` below two rounds).
 */
sd: number | null, 
/**
 * CV % of `per_round`.
 */
cv_pct: number | null, 
/**
 * 95 % CI of the mean (Student t over the per-round figures, n − 1 df), clipped to the
 * headline's range (`[0, max]`).
 */
ci95: [number, number] | null, 
/**
 * Standard error of the mean with the samples clustered on their task (Miller 2024): the
 * rounds and seeds of one task are correlated, so they count as one cluster. `null` below two
 * samples.
 */
se_clustered: number | null, 
/**
 * 95 % interval from `se_clustered`: mean ± 1.96 · SE, clipped to the headline's range.
 */
ci95_clustered: [number, number] | null, 
/**
 * Mean number of passed samples per round.
 */
pass_count: number, 
/**
 * The most the headline can be, in points: 100 for a mean score, 100 × the most tasks a
 * round answered for EVM-QuestBench's sum. Intervals are clipped to `[0, max]`.
 */
max: number, 
/**
 * Round-to-round rank stability.
 */
spearman: Stability, 
/**
 * Significance tier (1 = top): a tier is its best model and every model the Holm-corrected
 * paired tests cannot tell apart from it.
 */
tier: number, };

/**
 * Stability of a model's per-instance scores across rounds.
 */
export type Stability = { 
/**
 * Mean ρ over the defined round pairs.
 */
mean: number | null, 
/**
 * Smallest ρ.
 */
min: number | null, 
/**
 * Largest ρ.
 */
max: number | null, 
/**
 * Every pair of rounds.
 */
pairs: Array<RoundPair>, };

/**
 * Spearman correlation of one model's per-instance scores between two rounds.
 */
export type RoundPair = { 
/**
 * First round (0-based position among the model's rounds).
 */
a: number, 
/**
 * Second round.
 */
b: number, 
/**
 * ρ, p and n (instances present in both rounds); `null` when undefined (constant scores).
 */
spearman: Correlation | null, };

/**
 * Whether the leaderboard order holds from round to round.
 */
export type RankStability = { 
/**
 * Mean Spearman ρ over the defined round pairs.
 */
mean: number | null, 
/**
 * Smallest ρ.
 */
min: number | null, 
/**
 * Largest ρ.
 */
max: number | null, 
/**
 * Mean Kendall τ-b over the defined round pairs.
 */
kendall_mean: number | null, 
/**
 * Smallest τ.
 */
kendall_min: number | null, 
/**
 * Largest τ.
 */
kendall_max: number | null, 
/**
 * Every pair of rounds.
 */
pairs: Array<RankPair>, };

/**
 * Agreement of the model ranking between two rounds.
 */
export type RankPair = { 
/**
 * First round (0-based position among each model's rounds).
 */
a: number, 
/**
 * Second round.
 */
b: number, 
/**
 * Models with both rounds.
 */
models: number, 
/**
 * Spearman ρ (with p) of the models' scores in the two rounds; `null` below three models or
 * when a round's scores are all equal.
 */
spearman: Correlation | null, 
/**
 * Kendall τ-b of the same; `null` below two models or when a round's scores are all equal.
 */
kendall: number | null, };

/**
 * A benchmark's significance analysis.
 */
export type Significance = { 
/**
 * The test behind every pair, in words (the same as Compare's, [`crate::compare::SIGN_TEST`]),
 * Holm-corrected over `comparisons`.
 */
test: string, 
/**
 * Level the Holm-adjusted p-values are compared with.
 */
alpha: number, 
/**
 * Comparisons corrected for: every pair of models, n·(n − 1)/2.
 */
comparisons: number, 
/**
 * Every pair, in leaderboard order (by the higher model's rank, then the lower's).
 */
pairs: Array<PairTest>, 
/**
 * Each model's tier, in leaderboard order: `(model, tier)`, tier 1 = top.
 */
tiers: Array<[string, number]>, };

/**
 * Whether a report counts reviewers' overrides.
 */
export type OverrideMode = "include" | "exclude";

/**
 * What a report says about overrides.
 */
export type OverridesUsed = { 
/**
 * Whether they were counted.
 */
mode: OverrideMode, 
/**
 * Samples of the report whose verdict a reviewer overrode (counted or not).
 */
samples: number, };

/**
 * The test between two models of one benchmark.
 */
export type PairTest = { 
/**
 * The model ranked higher (larger mean headline).
 */
higher: string, 
/**
 * The model ranked lower.
 */
lower: string, 
/**
 * Whether the two are next to each other on the leaderboard.
 */
adjacent: boolean, 
/**
 * Instances both models answered (the pairs).
 */
instances: number, 
/**
 * Instances where the higher model scored more.
 */
higher_better: number, 
/**
 * Instances where the lower model scored more.
 */
lower_better: number, 
/**
 * Exact two-sided sign test p-value, before correction.
 */
p: number, 
/**
 * Holm-adjusted p-value over every comparison of the benchmark.
 */
p_holm: number, 
/**
 * Whether `p_holm` is below α: the two models differ.
 */
differ: boolean, 
/**
 * Mean per-instance difference (higher − lower, points on 0–100) with its paired-bootstrap
 * 95 % interval; adjacent pairs only (`null` otherwise or without pairs).
 */
diff: BootstrapCi | null, };

/**
 * A correlation coefficient with its two-sided p-value.
 */
export type Correlation = { 
/**
 * Spearman's ρ.
 */
rho: number, 
/**
 * Two-sided p-value (t approximation with n − 2 degrees of freedom, as scipy's `spearmanr`).
 */
p: number, 
/**
 * Number of pairs.
 */
n: number, };

/**
 * Every QuestBench table.
 */
export type QuestTables = { 
/**
 * Per-model statistics over rounds (per-round total points), with every round pair's
 * Spearman ρ and p-value.
 */
summary: Array<ModelSummary>, 
/**
 * Paired tests between the models (Holm-corrected) behind the tiers.
 */
significance: Significance, 
/**
 * Agreement of the model ranking (per-round totals) between every pair of rounds.
 */
rank_stability: RankStability, 
/**
 * Table 1.
 */
leaderboard: Array<LeaderRow>, 
/**
 * Table 2.
 */
composite: Array<CompositeRow>, 
/**
 * Tables 9–10.
 */
quadrants: Array<QuadrantRow>, 
/**
 * The medians the quadrants split on: [atomic, composite].
 */
quadrant_medians: [number, number], 
/**
 * Table 11.
 */
step_overhead: Array<OverheadRow>, 
/**
 * Δ histogram over all models.
 */
step_overhead_hist: Array<DeltaBin>, 
/**
 * Table 8.
 */
outcomes: Array<OutcomeRow>, 
/**
 * Composite pattern (category) pass rates.
 */
composite_patterns: Array<RateRow>, 
/**
 * Atomic sub-category pass rates.
 */
atomic_subcategories: Array<RateRow>, 
/**
 * Reward-hacking attempts per model: samples whose code asked the RPC gate for a refused
 * method (a cheat such as `anvil_setBalance`, or a send), in leaderboard order.
 */
reward_hacking: Array<HackRow>, };

/**
 * Table 1 row.
 */
export type LeaderRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * Rounds found.
 */
rounds: number, 
/**
 * Mean over rounds of the per-round atomic sum (points).
 */
atomic: number, 
/**
 * Mean over rounds of the per-round composite sum.
 */
composite: number, 
/**
 * Mean over rounds of the per-round total.
 */
total: number, 
/**
 * The most a round could score: its tasks × 100 points (mean over rounds).
 */
max_total: number, 
/**
 * `total` as a percentage of `max_total`.
 */
total_pct: number, 
/**
 * SD of the per-round totals.
 */
sd: number | null, 
/**
 * CV % of the per-round totals.
 */
cv_pct: number | null, 
/**
 * 95 % CI of the mean total (Student t over rounds).
 */
ci95: [number, number] | null, 
/**
 * Standard error of the mean total with tasks as clusters.
 */
se_clustered: number | null, 
/**
 * 95 % interval of the mean total from `se_clustered`.
 */
ci95_clustered: [number, number] | null, 
/**
 * Mean Spearman ρ of per-task scores between rounds.
 */
spearman_mean: number | null, 
/**
 * Smallest pairwise ρ.
 */
spearman_min: number | null, 
/**
 * Largest pairwise ρ.
 */
spearman_max: number | null, 
/**
 * Mean number of tasks ≥ 60 points per round.
 */
pass_count: number, 
/**
 * Significance tier (1 = top): models in one tier are statistically indistinguishable.
 */
tier: number, };

/**
 * Table 2 row (composite quality).
 */
export type CompositeRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * Mean composite sum per round.
 */
score: number, 
/**
 * Mean passed composite tasks per round.
 */
pass_count: number, 
/**
 * Mean K_act over composite samples that report it.
 */
mean_k_act: number | null, 
/**
 * Σ K_opt / Σ K_act · 100.
 */
efficiency_pct: number | null, };

/**
 * Quadrant row (Tables 9–10).
 */
export type QuadrantRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * Mean atomic task score (points, 0–100).
 */
atomic_avg: number, 
/**
 * Mean composite task score.
 */
composite_avg: number, 
/**
 * High-High | High-Low | Low-High | Low-Low | Atomic-Only (atomic first).
 */
quadrant: string, };

/**
 * Step-overhead row (Table 11).
 */
export type OverheadRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * Composite samples with K_act and K_opt.
 */
n: number, 
/**
 * Mean Δ = K_act − K_opt.
 */
mean_delta: number, 
/**
 * Over-opt (paper Table 11): the share of episodes with Δ > 0, in %.
 */
over_opt_pct: number, 
/**
 * Σ Δ / Σ K_opt · 100 (Crucible's extra: rounds spent over the optimum, relative to it).
 */
pct_over_optimal: number, 
/**
 * 90th percentile of Δ (nearest rank).
 */
p90_delta: number, };

/**
 * One bin of the step-overhead histogram.
 */
export type DeltaBin = { 
/**
 * Δ = K_act − K_opt.
 */
delta: number, 
/**
 * Composite samples with that Δ (all models).
 */
count: number, };

/**
 * Outcome distribution row (paper Table 8, App. D.3): the paper's buckets and raw outcome counts.
 * Composite episodes that met the goal with extra rounds (`over_steps`) count as exact.
 */
export type OutcomeRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * Samples.
 */
n: number, 
/**
 * Every check met exactly (deviation 0).
 */
exact: number, 
/**
 * Every check met, some only within tolerance (full score with a non-zero deviation).
 */
tolerance: number, 
/**
 * The module threw, timed out, left the sandbox or could not run.
 */
execution_failure: number, 
/**
 * The module's result did not have the required shape (or no code block).
 */
schema_failure: number, 
/**
 * Reverted transaction.
 */
revert: number, 
/**
 * Everything else: a wrong effect, an error report, the round budget, a provider failure.
 */
other: number, 
/**
 * Raw outcome class → count.
 */
raw: { [key in string]: number }, };

/**
 * A pass rate for one (model, group) cell.
 */
export type RateRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * The group (composite pattern = category; atomic sub-category).
 */
group: string, 
/**
 * Samples.
 */
n: number, 
/**
 * Samples passed.
 */
passed: number, 
/**
 * passed / n · 100.
 */
pass_rate_pct: number, };

/**
 * Every Intent2Tx table.
 */
export type IntentTables = { 
/**
 * Per-model statistics over rounds (per-round mean S_final × 100).
 */
summary: Array<ModelSummary>, 
/**
 * Paired tests between the models (Holm-corrected) behind the tiers.
 */
significance: Significance, 
/**
 * Agreement of the model ranking between every pair of rounds.
 */
rank_stability: RankStability, 
/**
 * Table 1.
 */
table1: Array<Table1Row>, 
/**
 * Table 2.
 */
table2: Array<Table2Row>, 
/**
 * Failure-mode counts.
 */
failure_modes: Array<FailureRow>, 
/**
 * Form vs effect.
 */
form_vs_effect: Array<FormEffectRow>, };

/**
 * Table 1 row: mean field metrics of one (model, setting, steps) cell.
 */
export type Table1Row = { 
/**
 * Model name.
 */
model: string, 
/**
 * direct | retrieval.
 */
setting: string, 
/**
 * single | multi.
 */
steps: string, 
/**
 * Samples.
 */
n: number, 
/**
 * Mean S_fmt.
 */
format: number | null, 
/**
 * Mean S_log.
 */
logic: number | null, 
/**
 * Mean S_prm.
 */
param: number | null, 
/**
 * Mean S_pass (accuracy, pass@1).
 */
pass: number | null, 
/**
 * Mean S_final.
 */
final_score: number | null, };

/**
 * Table 2 row: execution metrics over executed samples whose ground truth executes (the paper's
 * denominator), single-step and multi-step instances apart (the paper's Table 2 is single-step).
 */
export type Table2Row = { 
/**
 * Model name.
 */
model: string, 
/**
 * direct | retrieval.
 */
setting: string, 
/**
 * single | multi.
 */
steps: string, 
/**
 * Executed samples whose ground truth executes (a sample stored before the ground truth's
 * result was recorded counts as executing).
 */
n_executed: number, 
/**
 * Executed samples left out because their ground truth did not execute.
 */
n_truth_failed: number, 
/**
 * Mean Exec.
 */
exec: number | null, 
/**
 * Mean StateEq.
 */
state_eq: number | null, };

/**
 * Failure-mode count.
 */
export type FailureRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * direct | retrieval.
 */
setting: string, 
/**
 * passed | agent_error | format_error | wrong_target (S_log < 0.8) | wrong_params (S_prm < 1).
 */
mode: string, 
/**
 * Samples.
 */
count: number, };

/**
 * Form vs effect: field-level pass against StateEq over executed samples.
 */
export type FormEffectRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * direct | retrieval.
 */
setting: string, 
/**
 * Executed samples.
 */
n: number, 
/**
 * Field pass rate, %.
 */
field_pass_pct: number, 
/**
 * StateEq rate, %.
 */
state_eq_pct: number, 
/**
 * Field pass and StateEq.
 */
pass_and_eq: number, 
/**
 * Field pass, state differs.
 */
pass_not_eq: number, 
/**
 * Field fail, same state (right effect, different form).
 */
eq_not_pass: number, 
/**
 * Neither.
 */
neither: number, };

/**
 * Every PILOT table.
 */
export type PilotTables = { 
/**
 * Per-model statistics over rounds (per-round mean score × 100; full = 1, partial = 0.5).
 */
summary: Array<ModelSummary>, 
/**
 * Paired tests between the models (Holm-corrected) behind the tiers.
 */
significance: Significance, 
/**
 * Agreement of the model ranking between every pair of rounds.
 */
rank_stability: RankStability, 
/**
 * Table 2.
 */
table2: Array<PromptRow>, 
/**
 * Table 3.
 */
table3: Array<FlawedRow>, 
/**
 * By flaw category (`key`) and method (`sub`), flawed prompts only.
 */
by_flaw: Array<CellRow>, 
/**
 * By flaw category only.
 */
by_flaw_category: Array<CellRow>, 
/**
 * By task type (`key`) and complexity (`sub`), all prompts.
 */
by_task: Array<CellRow>, 
/**
 * Ceiling vs achieved.
 */
ceiling: Array<CeilingRow>, 
/**
 * By the public release's description-difficulty variant (`key`: `very_easy` …
 * `hard_biased`, from task ids `<release id>@<variant>`) and prompt type (`sub`), all
 * prompts; empty when no sample's task has a variant (Crucible's own tasks).
 */
by_variant: Array<CellRow>, 
/**
 * Plan adherence: distances of the executed tools to the optimal and the flawed plan, and
 * how often each type of flaw was followed.
 */
adherence: Adherence, };

/**
 * The plan-adherence tables.
 */
export type Adherence = { 
/**
 * Per model and prompt type.
 */
by_prompt: Array<AdherenceRow>, 
/**
 * Per model, flaw category and method.
 */
by_flaw: Array<FlawFollowRow>, 
/**
 * Per model and flaw category (`method` empty).
 */
by_flaw_category: Array<FlawFollowRow>, 
/**
 * PILOT samples without stored distances (scored before plan adherence was measured).
 */
unmeasured: number, };

/**
 * Plan adherence of one model under one prompt type.
 */
export type AdherenceRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * baseline | cot | optimal | flawed.
 */
prompt_type: string, 
/**
 * Samples of the cell.
 */
samples: number, 
/**
 * Of those, the ones with a stored distance to the optimal plan.
 */
measured: number, 
/**
 * Mean distance to the optimal plan (0 = the plan's tools exactly, 1 = nothing in common).
 */
mean_distance_optimal: number | null, 
/**
 * Samples with a stored distance to the flawed plan (flawed prompts whose task has a flaw).
 */
flawed_measured: number, 
/**
 * Mean distance to the flawed plan.
 */
mean_distance_flawed: number | null, 
/**
 * Samples whose flaw changes the plan's tools (where following it can be seen).
 */
flaw_measurable: number, 
/**
 * Of those, the ones where the agent followed the flaw.
 */
followed: number, 
/**
 * followed ÷ flaw_measurable × 100.
 */
followed_pct: number | null, };

/**
 * How often one model followed one type of flaw (flawed prompts only).
 */
export type FlawFollowRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * Flaw category (`order`, `tool_misuse`, …).
 */
category: string, 
/**
 * Flaw method (`swap_adjacent`, …); empty in the per-category rows.
 */
method: string, 
/**
 * Flawed-prompt samples with this flaw and a stored distance.
 */
samples: number, 
/**
 * Of those, the ones whose flaw changes the plan's tools (parameter flaws do not).
 */
measurable: number, 
/**
 * Of those, the ones where the agent followed the flaw.
 */
followed: number, 
/**
 * followed ÷ measurable × 100 (`null` when nothing was measurable).
 */
followed_pct: number | null, 
/**
 * Mean distance to the optimal plan.
 */
mean_distance_optimal: number | null, 
/**
 * Mean distance to the flawed plan.
 */
mean_distance_flawed: number | null, };

/**
 * Full/partial/fail shares of one cell, in percent.
 */
export type OutcomeShares = { 
/**
 * Samples.
 */
n: number, 
/**
 * full_success %.
 */
full_pct: number, 
/**
 * partial_success %.
 */
partial_pct: number, 
/**
 * failure % (anything not full or partial, including agent errors).
 */
fail_pct: number, };

/**
 * Table 2 row.
 */
export type PromptRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * baseline | cot | optimal | flawed.
 */
prompt_type: string, 
/**
 * Samples.
 */
n: number, 
/**
 * full_success %.
 */
full_pct: number, 
/**
 * partial_success %.
 */
partial_pct: number, 
/**
 * failure % (anything not full or partial, including agent errors).
 */
fail_pct: number, };

/**
 * Table 3 row.
 */
export type FlawedRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * Full success % with the optimal plan.
 */
optimal_full_pct: number | null, 
/**
 * Full success % with a flawed plan.
 */
flawed_full_pct: number | null, 
/**
 * optimal − flawed, percentage points.
 */
drop_pp: number | null, };

/**
 * A cell keyed by two labels.
 */
export type CellRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * First key (flaw category; task type).
 */
key: string, 
/**
 * Second key (flaw method; complexity).
 */
sub: string, 
/**
 * Samples.
 */
n: number, 
/**
 * full_success %.
 */
full_pct: number, 
/**
 * partial_success %.
 */
partial_pct: number, 
/**
 * failure % (anything not full or partial, including agent errors).
 */
fail_pct: number, };

/**
 * Optimal-policy ceiling vs achieved, on the optimal-plan prompts.
 */
export type CeilingRow = { 
/**
 * Model name.
 */
model: string, 
/**
 * Optimal-prompt samples.
 */
n: number, 
/**
 * Achieved full success %.
 */
achieved_full_pct: number, 
/**
 * Mean exact maximum full-success probability of the same tasks, % (`null` when no ceiling
 * was supplied for them).
 */
ceiling_full_pct: number | null, 
/**
 * Ceiling − achieved, pp.
 */
gap_pp: number | null, };

/**
 * What `crucible compare --json` prints: the sides (their fields first), the bootstrap seed and
 * one [`Comparison`] per benchmark and model pair.
 */
export type CompareReport = { 
/**
 * Seed of the paired bootstrap.
 */
seed: number, 
/**
 * The scale the compared scores are on.
 */
scoring: Scoring, 
/**
 * The comparisons.
 */
comparisons: Array<Comparison>, } & ({ 
/**
 * Run of side A.
 */
run_a: string, 
/**
 * Run of side B.
 */
run_b: string, } | { 
/**
 * The run.
 */
run: string, 
/**
 * Model of side A.
 */
model_a: string, 
/**
 * Model of side B.
 */
model_b: string, });

/**
 * The two sides a [`CompareReport`] pairs: two runs, or two models of one run.
 */
export type CompareSides = { 
/**
 * Run of side A.
 */
run_a: string, 
/**
 * Run of side B.
 */
run_b: string, } | { 
/**
 * The run.
 */
run: string, 
/**
 * Model of side A.
 */
model_a: string, 
/**
 * Model of side B.
 */
model_b: string, };

/**
 * One paired comparison on one benchmark.
 */
export type Comparison = { 
/**
 * Benchmark.
 */
benchmark: string, 
/**
 * Model of side A.
 */
model_a: string, 
/**
 * Model of side B.
 */
model_b: string, 
/**
 * Pairs: samples with the same instance and round on both sides.
 */
n_pairs: number, 
/**
 * Paired tasks: instances both sides answered (the unit of the test and the interval).
 */
tasks: number, 
/**
 * The test behind `sign_p` and `separable`, in words ([`SIGN_TEST`]).
 */
test: string, 
/**
 * Mean score of A in points (0–100 per task).
 */
mean_a: number, 
/**
 * Mean score of B in points (0–100 per task).
 */
mean_b: number, 
/**
 * Paired-bootstrap 95 % CI of mean(A − B) over the per-task scores, in points, clipped to
 * the range a difference of two 0–100 scores can take.
 */
diff: BootstrapCi, 
/**
 * Tasks where A scored higher (its mean over rounds).
 */
wins_a: number, 
/**
 * Tasks where B scored higher.
 */
wins_b: number, 
/**
 * Tasks with equal scores.
 */
ties: number, 
/**
 * Exact two-sided sign test p-value on the task wins ([`SIGN_TEST`]).
 */
sign_p: number, 
/**
 * Pairs only A passed.
 */
pass_only_a: number, 
/**
 * Pairs only B passed.
 */
pass_only_b: number, 
/**
 * Pairs both passed.
 */
both_pass: number, 
/**
 * Pairs both failed.
 */
both_fail: number, 
/**
 * McNemar exact p-value on pass/fail.
 */
mcnemar_p: number, 
/**
 * Whether the sign test rejects at α = 0.05: the verdict "significant".
 */
separable: boolean, };

/**
 * A paired bootstrap confidence interval of mean(a − b).
 */
export type BootstrapCi = { 
/**
 * The observed mean difference mean(a − b).
 */
diff: number, 
/**
 * 2.5th percentile of the resampled differences.
 */
lo: number, 
/**
 * 97.5th percentile of the resampled differences.
 */
hi: number, 
/**
 * Resamples drawn.
 */
resamples: number, };

/**
 * Every paper table of the selected benchmarks with the user's rows.
 */
export type PaperTables = { 
/**
 * The scale the user's scores are on (the papers' tables are on the paper's).
 */
scoring: Scoring, 
/**
 * The tables, benchmark by benchmark, as the papers number them.
 */
tables: Array<PaperTable>, };

/**
 * One paper table with the published rows and the user's.
 */
export type PaperTable = { 
/**
 * The benchmark.
 */
benchmark: Bench, 
/**
 * The paper.
 */
paper: string, 
/**
 * The table as the paper numbers it.
 */
table: string, 
/**
 * The paper's caption.
 */
caption: string, 
/**
 * The published file's notes (setting, aggregation).
 */
notes: string, 
/**
 * Columns in the paper's order, with labels and units.
 */
columns: Array<TableColumn>, 
/**
 * The paper's rows, as published.
 */
published: Array<PublishedValues>, 
/**
 * Whether Crucible computes this table's columns for the user's models.
 */
computed: boolean, 
/**
 * The user's models (empty when not computed or no samples).
 */
yours: Array<YourRow>, 
/**
 * Mapped pairs: the user's model against a published one, column by column (only rows that
 * cover the published task set, where the paper states it).
 */
comparisons: Array<PaperComparison>, 
/**
 * Mappings refused because the task sets differ, each with why and what to run instead.
 */
refused: Array<PaperRefusal>, };

/**
 * A column of a paper table.
 */
export type TableColumn = { 
/**
 * Key of the values.
 */
key: string, 
/**
 * The paper's label.
 */
label: string, 
/**
 * Unit.
 */
unit: string, };

/**
 * A published row.
 */
export type PublishedValues = { 
/**
 * The model as the paper prints it.
 */
model: string, 
/**
 * Column key → number, text or null.
 */
values: Record<string, JsonValue>, };

/**
 * A user's model computed the paper's way.
 */
export type YourRow = { 
/**
 * The model as the run names it.
 */
model: string, 
/**
 * Rounds found.
 */
rounds: number, 
/**
 * Samples behind the row.
 */
samples: number, 
/**
 * Column key → value (absent when it cannot be computed from the samples).
 */
values: { [key in string]: number }, 
/**
 * Column key → 95 % CI of the value across rounds (two rounds or more), clipped to the
 * column's range.
 */
ci95: { [key in string]: [number, number] }, 
/**
 * Distinct tasks behind the row (of the kinds the table counts).
 */
tasks: number, 
/**
 * Tasks in the paper's task set for this table, where the paper states it.
 */
published_tasks: number | null, 
/**
 * The coverage in words, shown on the row: "4 of 107 tasks (4 of 62 atomic, 0 of 45
 * composite)", or "12 tasks (the paper does not state its task count)".
 */
coverage: string, 
/**
 * Whether every round covers the paper's task set: `false` marks the row not comparable
 * (its sums are over other tasks), `null` where the paper does not state its set.
 */
comparable: boolean | null, 
/**
 * Columns whose values are sums over tasks and so not comparable with the paper's (empty
 * when `comparable` is not `false`).
 */
not_comparable: Array<string>, };

/**
 * One column of one mapped pair.
 */
export type PaperComparison = { 
/**
 * The user's model.
 */
model: string, 
/**
 * The published model it is mapped to.
 */
published_model: string, 
/**
 * Column key.
 */
column: string, 
/**
 * The user's value.
 */
yours: number, 
/**
 * The published value.
 */
published: number, 
/**
 * yours − published.
 */
diff: number, 
/**
 * The user's 95 % CI, when there are two rounds or more.
 */
ci95: [number, number] | null, 
/**
 * Whether the published value lies inside that CI (`None` without a CI).
 */
inside: boolean | null, };

/**
 * A mapping of a user's model to a published one that is not compared, and why.
 */
export type PaperRefusal = { 
/**
 * The user's model.
 */
model: string, 
/**
 * The published model it was mapped to.
 */
published_model: string, 
/**
 * Why, and what to run instead, in one paragraph.
 */
reason: string, };

/**
 * Which action to replay a sample with.
 */
export type ReplayMode = "reexecute" | "rescore";

/**
 * A sample replayed: the stored verdict, the fresh one, and whether they agree.
 */
export type Replay = { 
/**
 * The sample.
 */
sample_id: number, 
/**
 * The action.
 */
mode: ReplayMode, 
/**
 * Benchmark.
 */
benchmark: string, 
/**
 * Model (replayed from its stored turns; never called).
 */
model: string, 
/**
 * Instance id.
 */
instance: string, 
/**
 * The sample seed (as text: u64).
 */
seed: string, 
/**
 * Whether the replay executed on a fresh chain snapshot.
 */
executed: boolean, 
/**
 * Assistant turns replayed.
 */
turns: number, 
/**
 * The stored verdict.
 */
stored: VerdictView, 
/**
 * The fresh verdict.
 */
fresh: VerdictView, 
/**
 * True when outcome, score, pass, every shared check, revert reasons and shared metrics agree.
 */
agrees: boolean, 
/**
 * What differs (empty when they agree).
 */
differences: Array<Difference>, 
/**
 * Checks or metrics present on one side only (e.g. execution added to a sample stored
 * without it); not disagreements.
 */
notes: Array<string>, 
/**
 * The fresh details JSON (long strings clipped), as the trace viewer shows details.
 */
fresh_details: JsonValue, 
/**
 * The fresh QuestBench composite episode (rounds and decay), read from `fresh_details`.
 */
fresh_composite: CompositeTrace | null, 
/**
 * Crucible version that stored the sample's run, and this one.
 */
stored_version: string, 
/**
 * This Crucible's version.
 */
current_version: string, };

/**
 * The verdict of a sample, stored or fresh, reduced to what a reviewer compares.
 */
export type VerdictView = { 
/**
 * Outcome class.
 */
outcome: string, 
/**
 * Score in [0, 1].
 */
score: number, 
/**
 * Passed the benchmark's threshold.
 */
passed: boolean, 
/**
 * Every scoring check or criterion, in order.
 */
checks: Array<CheckView>, 
/**
 * Every revert reason in the verdict (atomic tx, composite rounds, Intent2Tx steps), in order.
 */
revert_reasons: Array<string>, 
/**
 * Why it failed (verdict reason, execution reason or agent error), "" when none.
 */
reason: string, 
/**
 * Named numeric metrics.
 */
metrics: { [key in string]: number }, 
/**
 * QuestBench composite: rounds used.
 */
k_act: number | null, };

/**
 * One check (or evaluator criterion) of a sample's verdict, as a reviewer reads it.
 */
export type CheckView = { 
/**
 * Name (QuestBench check name, `step 1 function`, `exec`, `sequence_ok`, …).
 */
name: string, 
/**
 * Points (QuestBench), when the check has a weight.
 */
weight: number | null, 
/**
 * Expected value as text ("" when the check has none).
 */
expected: string, 
/**
 * Actual value as text ("" when the check has none).
 */
actual: string, 
/**
 * Whether it passed.
 */
passed: boolean, 
/**
 * The token `expected` and `actual` are amounts of (integers in its smallest unit), when
 * the check is an amount check whose token the universe describes.
 */
unit: Unit | null, };

/**
 * How an integer amount reads: the token's symbol and decimal places.
 */
export type Unit = { 
/**
 * `BNB`, `USDT`, …
 */
symbol: string, 
/**
 * Decimal places.
 */
decimals: number, };

/**
 * One field on which the stored and the fresh verdict differ.
 */
export type Difference = { 
/**
 * `outcome`, `score`, `passed`, `check <name>`, `revert reason`, `metric <name>`, `k_act`.
 */
field: string, 
/**
 * Stored value as text.
 */
stored: string, 
/**
 * Fresh value as text.
 */
fresh: string, };

/**
 * The code or JSON the scorer read from a sample's answer, for the trace viewer to highlight.
 */
export type Extracted = { 
/**
 * `typescript` or `json`.
 */
lang: string, 
/**
 * Where it came from (`fenced typescript block`, `JSON in the answer`, `last tool call`).
 */
source: string, 
/**
 * The text (JSON pretty-printed when it parses), at most 64 KiB (cut at a char boundary).
 */
text: string, 
/**
 * Length of the whole extracted text in bytes.
 */
total_bytes: number, 
/**
 * Whether `text` is only the start.
 */
truncated: boolean, };
