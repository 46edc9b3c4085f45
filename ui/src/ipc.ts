// The only place that talks to the Rust side. Every command resolves to a `Result`, never throws:
// the Rust commands reject with `{ kind, message }` (bindings.ts `CommandError`), and anything
// else (no Tauri runtime, a serialisation bug) is folded into kind "internal".
import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type {
  ChartView, CommandError, CompareView, DemoInfo, Extracted, Replay, ReplayMode, ConnectionTest, Facets, LiveStatus, PlanResult, ProviderEntry, ProvidersView, Report, RunForm, RunInfo, RunsView, SampleFilter, SamplePage, SampleView, Scoring, PaperTables,
  PerfMark, SystemStatus, LocatedTool, ConfigReset, UniverseBuild, ToolInstall, PackInfo, PackVerdict, SelftestProgress,
} from "./bindings";
import type { DatabaseCheck, FirstStart, FreshDatabase, LabCheck, OpenedDatabase, Recovery, StoreChoice } from "./bindings";
import type { CatalogEditView, EntryFields, RunModelView } from "./bindings";
import type { ExportRequest, SavedExport } from "./bindings";
import type { AuditQueue, ExploitCheck, FormError, OverrideView, RoundsAdvice, SampleReview, SimAudit, SimAuditProgress } from "./bindings";

export type Result<T> = { ok: true; value: T } | { ok: false; error: CommandError };

function asCommandError(e: unknown): CommandError {
  if (e !== null && typeof e === "object" && "kind" in e && "message" in e) {
    const { kind, message } = e as { kind: unknown; message: unknown };
    if (typeof kind === "string" && typeof message === "string") {
      return e as CommandError;
    }
  }
  return { kind: "internal", message: e instanceof Error ? e.message : String(e) };
}

async function call<T>(cmd: string, args?: Record<string, unknown>): Promise<Result<T>> {
  try {
    return { ok: true, value: await invoke<T>(cmd, args) };
  } catch (e) {
    return { ok: false, error: asCommandError(e) };
  }
}

/**
 * A change of a lab run (delete, cancel, rename, a reviewer's override) that the store refused
 * because another member made the run (Rust: `StoreError::NotOwner`, whose message names the
 * owner) is asked about once; confirmed, it is sent again with `force`.
 */
async function ownerChecked<T>(cmd: string, args: Record<string, unknown>): Promise<Result<T>> {
  const r = await call<T>(cmd, args);
  if (r.ok || !r.error.message.includes("another member's run needs an explicit force")) return r;
  if (!window.confirm(`${r.error.message}\n\nDo it anyway?`)) return r;
  return call<T>(cmd, { ...args, force: true });
}

/** Versions, data dir, external tools and built universes (Rust: `get_system_status`). */
export const getSystemStatus = (): Promise<Result<SystemStatus>> =>
  call<SystemStatus>("get_system_status");

/** The demo run a fresh user's first start makes in the background (Rust: `first_start`). */
export const firstStart = (): Promise<Result<FirstStart>> => call<FirstStart>("first_start");

/** Checks that `path` runs and is `tool`, then saves it in the config file (Rust: `locate_tool`). */
export const locateTool = (tool: string, path: string): Promise<Result<LocatedTool>> =>
  call<LocatedTool>("locate_tool", { tool, path });

/** Moves the config file aside (the backup's name returned) and writes the defaults. */
export const resetConfig = (): Promise<Result<ConfigReset>> => call<ConfigReset>("reset_config");

/** Starts building a universe in the background; poll `universeBuilds` for progress. */
export const buildUniverse = (profile: string): Promise<Result<UniverseBuild[]>> =>
  call<UniverseBuild[]>("build_universe", { profile });

/** Universe builds started in this app: running (seconds so far), built or failed. */
export const universeBuilds = (): Promise<Result<UniverseBuild[]>> => call<UniverseBuild[]>("universe_builds");

/** Shows a folder inside the data folder (an export's) in the file manager; returns the folder. */
export const openFolder = (path: string): Promise<Result<string>> => call<string>("open_folder", { path });

/** Starts installing a tool's pinned package in the background; poll `toolInstalls` for progress. */
export const installTool = (tool: string): Promise<Result<ToolInstall[]>> =>
  call<ToolInstall[]>("install_tool", { tool });

/** Tool installs started in this app: running (step, bytes so far), installed or failed. */
export const toolInstalls = (): Promise<Result<ToolInstall[]>> => call<ToolInstall[]>("tool_installs");

// --- Run console: providers and models (Rust: commands/providers.rs) ---

/** Saved providers with their key sources, and the built-in agents. */
export const listProviders = (): Promise<Result<ProvidersView>> => call<ProvidersView>("list_providers");

/** Adds or edits a provider; a non-empty `key` goes to the OS keychain and is never returned. */
export const saveProvider = (
  entry: ProviderEntry,
  previousId: string | null,
  key: string | null,
): Promise<Result<ProvidersView>> =>
  call<ProvidersView>("save_provider", { entry, previousId, key });

/** Removes a provider and its stored key. */
/** The models the provider's API lists (`entry` as typed; `key` typed, else the stored one). */
export const providerModels = (entry: ProviderEntry, key: string | null): Promise<Result<string[]>> =>
  call<string[]>("provider_models", { entry, key });

export const removeProvider = (id: string): Promise<Result<ProvidersView>> =>
  call<ProvidersView>("remove_provider", { id });

/** One cheap real call to a saved model; the report carries the exact error. */
export const testConnection = (id: string, model: string): Promise<Result<ConnectionTest>> =>
  call<ConnectionTest>("test_connection", { id, model });

// --- Run console: runs (Rust: commands/runs.rs, live.rs) ---

/** The plan preview of the new-run form, or its first problem with the field named. */
export const planRun = (form: RunForm): Promise<Result<PlanResult>> => call<PlanResult>("plan_run", { form });

/** The rounds planner: per benchmark, the smallest difference `rounds` rounds detect and the rounds
 *  `delta` points need (from stored runs, or the entered round-to-round `sd`). */
export const roundsAdvice = (benchmarks: string[], rounds: number, delta: number, sd: number | null): Promise<Result<RoundsAdvice[]>> =>
  call<RoundsAdvice[]>("rounds_advice", { benchmarks, rounds, delta, sd });

/** A sample's reviewer overrides (newest first) and the reviewer name to prefill. */
export const sampleReview = (runId: string, sampleId: number): Promise<Result<SampleReview>> =>
  call<SampleReview>("sample_review", { runId, sampleId });

/** Records a reviewer's override of a sample's verdict (`points` 0–100 or null). */
export const annotateSample = (sampleId: number, passed: boolean, points: number | null, note: string, reviewer: string): Promise<Result<OverrideView>> =>
  ownerChecked<OverrideView>("annotate_sample", { sampleId, passed, points, note, reviewer });

/** The validator-audit queue of the selected runs (every run when none). */
export const auditQueue = (runs: string[]): Promise<Result<AuditQueue>> => call<AuditQueue>("audit_queue", { runs });

/** The reviewer agrees with the scorer's verdict of a sample. */
export const confirmSample = (sampleId: number, note: string, reviewer: string): Promise<Result<OverrideView>> =>
  ownerChecked<OverrideView>("confirm_sample", { sampleId, note, reviewer });

/** Starts a run; resolves to its id once it exists in the database. */
export const startRun = (form: RunForm): Promise<Result<string>> => call<string>("start_run", { form });

/** Finishes the missing samples of a stored run. */
export const resumeRun = (runId: string): Promise<Result<string>> => call<string>("resume_run", { runId });

/** Cancels a run going on in this app. */
export const cancelRun = (runId: string): Promise<Result<null>> => ownerChecked<null>("cancel_run", { runId });

/** Deletes a stored run with its samples (refused for a run going on in this app). */
export const deleteRun = (runId: string): Promise<Result<null>> => ownerChecked<null>("delete_run", { runId });

/**
 * Names a stored run and sets its note; an empty one clears it (Rust: `annotate_run`). Resolves
 * to `null` once saved, or to the refused field's problem (`name` or `note`) with nothing saved.
 */
export const annotateRun = (runId: string, name: string | null, note: string | null): Promise<Result<FormError | null>> =>
  ownerChecked<FormError | null>("annotate_run", { runId, name, note });

/** Every stored run, newest first, and the ids running in this app. */
export const listRuns = (): Promise<Result<RunsView>> => call<RunsView>("list_runs_view");

/** The live status of a run going on in this app (null: not running here). */
export const getLive = (runId: string): Promise<Result<LiveStatus | null>> =>
  call<LiveStatus | null>("get_live", { runId });

/** Subscribes to `run:progress` (a few updates a second per running run); returns the unsubscribe. */
export async function onRunProgress(cb: (s: LiveStatus) => void): Promise<() => void> {
  try {
    return await listen<LiveStatus>("run:progress", (e) => cb(e.payload));
  } catch {
    return () => {};
  }
}

// Tasks page (the studio). Rust: src-tauri/src/commands/tasks.rs.
import type {
  BankImport, Bench, Catalogue, DryRun, IntentImport, PromptPreview, PromptSet, QuestRender, SavedTask, Selftest,
  SolutionChoice, TaskDetail, Validation,
} from "./bindings";

/** Every task of the three benchmarks (Rust: `list_tasks`). */
export const listTasks = (): Promise<Result<Catalogue>> => call<Catalogue>("list_tasks");
/** One task's detail view (Rust: `get_task`). */
export const getTask = (bench: Bench, id: string): Promise<Result<TaskDetail>> =>
  call<TaskDetail>("get_task", { bench, id });
/** Renders QuestBench task text at a seed (Rust: `render_quest_task`). */
export const renderQuestTask = (text: string, path: string, seed: number): Promise<Result<QuestRender>> =>
  call<QuestRender>("render_quest_task", { text, path, seed });
/** The exact prompt of an Intent2Tx or PILOT task and what scoring expects (Rust: `preview_task`). */
export const previewTask = (bench: Bench, id: string, wording: PromptSet, prompt: string | null): Promise<Result<PromptPreview>> =>
  call<PromptPreview>("preview_task", { bench, id, wording, prompt });
/** Validates QuestBench task text as the loader would at `path` (Rust: `validate_quest_task`). */
export const validateQuestTask = (text: string, path: string): Promise<Result<Validation>> =>
  call<Validation>("validate_quest_task", { text, path });
/** Saves edited QuestBench task text opened from `path` (Rust: `save_quest_task`): in place in the
 *  user task folder, a built-in task as a copy with its solution files. */
export const saveQuestTask = (text: string, path: string): Promise<Result<SavedTask>> =>
  call<SavedTask>("save_quest_task", { text, path });
/** The wizard: copies an atomic task (or `text`, its unsaved edit) under a new id (Rust: `new_quest_task`). */
export const newQuestTask = (template: string, id: string, text: string | null = null): Promise<Result<string>> =>
  call<string>("new_quest_task", { template, id, text });
/** Converts a public question-bank file into a draft (Rust: `import_question_bank`). */
export const importQuestionBank = (text: string, file: string): Promise<Result<BankImport>> =>
  call<BankImport>("import_question_bank", { text, file });
/** Imports Intent2Tx instances; with `name` they are written (Rust: `import_intent_instances`). */
export const importIntentInstances = (text: string, name: string | null): Promise<Result<IntentImport>> =>
  call<IntentImport>("import_intent_instances", { text, name });
/** Dry-runs a solution (Rust: `dry_run`). */
export const dryRun = (
  bench: Bench, id: string, seed: number, solution: SolutionChoice, prompt: string | null, execute: boolean,
): Promise<Result<DryRun>> => call<DryRun>("dry_run", { bench, id, seed, solution, prompt, execute });
/** The reviewer's name recorded with overrides (Rust: `reviewer_name`). */
export const reviewerName = (): Promise<Result<string | null>> => call<string | null>("reviewer_name", {});

/** Which store the app uses: the local file or a lab store (Rust: `store_choice`). */
export const storeChoice = (): Promise<Result<StoreChoice>> => call<StoreChoice>("store_choice", {});

/** Connects to a lab store without switching (Rust: `test_lab_store`). */
export const testLabStore = (url: string, password: string | null): Promise<Result<LabCheck>> =>
  call<LabCheck>("test_lab_store", { url, password });

/** Switches to a lab store after connecting; the password goes to the keychain (Rust: `use_lab_store`). */
export const useLabStore = (url: string, password: string | null): Promise<Result<LabCheck>> =>
  call<LabCheck>("use_lab_store", { url, password });

/** Switches back to the local database file (Rust: `use_local_store`). */
export const useLocalStore = (keep: boolean): Promise<Result<StoreChoice>> => call<StoreChoice>("use_local_store", { keep });

/** Saves the reviewer's name; returns it as kept (Rust: `set_reviewer_name`). */
export const setReviewerName = (name: string): Promise<Result<string>> => call<string>("set_reviewer_name", { name });

/** Every built-in exploit agent on a QuestBench task; each must score 0 (Rust: `exploit_quest_task`). */
export const exploitQuestTask = (id: string): Promise<Result<ExploitCheck>> =>
  call<ExploitCheck>("exploit_quest_task", { id });

/** Reference + known-wrong over seeds 0..N (Rust: `selftest_quest_task`). */
export const selftestQuestTask = (id: string, seeds: number): Promise<Result<Selftest>> =>
  call<Selftest>("selftest_quest_task", { id, seeds });
/** The task format's JSON Schema, as text (Rust: `get_quest_schema`). */
export const getQuestSchema = (): Promise<Result<string>> => call<string>("get_quest_schema");
/** Validates one Intent2Tx instance's JSON (Rust: `validate_intent_instance`). */
export const validateIntentInstance = (text: string): Promise<Result<Validation>> =>
  call<Validation>("validate_intent_instance", { text });
/** Saves an Intent2Tx instance into a studio pack (Rust: `save_intent_instance`); a built-in one as a copy. */
export const saveIntentInstance = (text: string, pack: string): Promise<Result<SavedTask>> =>
  call<SavedTask>("save_intent_instance", { text, pack });
/** The Intent2Tx instance JSON Schema (drives the editor's completion). */
export const getIntentSchema = (): Promise<Result<string>> => call<string>("get_intent_schema");
/** Validates one PILOT-Bench task's JSON against the registry (Rust: `validate_pilot_task`). */
export const validatePilotTask = (text: string): Promise<Result<Validation>> =>
  call<Validation>("validate_pilot_task", { text });
/** Saves a PILOT-Bench task into the studio's pack (Rust: `save_pilot_task`); a built-in one as a copy. */
export const savePilotTask = (text: string): Promise<Result<SavedTask>> => call<SavedTask>("save_pilot_task", { text });
/** The PILOT-Bench task JSON Schema (drives the editor's completion). */
export const getPilotSchema = (): Promise<Result<string>> => call<string>("get_pilot_schema");

// --- Results explorer (Rust: commands/results.rs) ---

/** Every stored run, newest first. */
export const resultsRuns = (): Promise<Result<RunInfo[]>> => call<RunInfo[]>("results_runs");

/** The report of a selection: exactly what `crucible report --json` prints. */
export const resultsReport = (filter: SampleFilter): Promise<Result<Report>> => call<Report>("results_report", { filter });

/** Categories and difficulties of a selection. */
export const resultsFacets = (filter: SampleFilter): Promise<Result<Facets>> => call<Facets>("results_facets", { filter });

/** The papers' tables with the published rows beside the selection's models (Rust: `results_paper_tables`). */
export const resultsPaperTables = (filter: SampleFilter, map: Record<string, string>): Promise<Result<PaperTables>> =>
  call<PaperTables>("results_paper_tables", { filter, map });

/** The report's charts as SVG. */
export const resultsCharts = (filter: SampleFilter): Promise<Result<ChartView[]>> => call<ChartView[]>("results_charts", { filter });
/** Loads the store into the explorer and the newest run's report in the background. */
export const resultsWarm = (): Promise<Result<null>> => call<null>("results_warm", {});

/** One page of samples. */
export const resultsSamples = (filter: SampleFilter, offset: number, limit: number): Promise<Result<SamplePage>> =>
  call<SamplePage>("results_samples", { filter, offset, limit });

/** One sample's trace (long texts clipped) with its typed reading (checks, highlights, rounds, criteria). */
export const resultsSample = (id: number): Promise<Result<SampleView>> => call<SampleView>("results_sample", { id });

/** A clipped text in full. */
export const resultsSampleText = (id: number, field: string): Promise<Result<string>> =>
  call<string>("results_sample_text", { id, field });

/** The stored sample as pretty JSON. */
export const resultsSampleJson = (id: number): Promise<Result<string>> => call<string>("results_sample_json", { id });

/** Two runs compared. */
export const resultsCompare = (runA: string, runB: string, scoring: Scoring): Promise<Result<CompareView>> =>
  call<CompareView>("results_compare", { runA, runB, scoring });

/** Writes a chart (png/svg) or the tables (csv/latex); returns the paths. */
export const resultsExport = (filter: SampleFilter, chart: string, format: string, dir: string | null = null): Promise<Result<string[]>> =>
  call<string[]>("results_export", { filter, chart, format, dir });

/** Saves one export (a chart, or every table when asked) where the person chooses (`ask`: the native save dialog at Downloads) or straight into Downloads; `null` when they cancelled (Rust: `results_save_export`). */
export const resultsSaveExport = (filter: SampleFilter, request: ExportRequest, ask = true): Promise<Result<SavedExport | null>> =>
  call<SavedExport | null>("results_save_export", { filter, request, ask });

/** Shows an exported file's folder in the file manager (Rust: `show_in_folder`). */
export const showInFolder = (path: string): Promise<Result<string>> => call<string>("show_in_folder", { path });

/** Re-executes (`reexecute`) or re-scores (`rescore`) one stored sample; read-only (Rust: `results_replay`). `allowReplay`: the user confirmed re-scoring a real-tool sample (required for a lab store's). */
export const resultsReplay = (id: number, mode: ReplayMode, allowReplay = false): Promise<Result<Replay>> =>
  call<Replay>("results_replay", allowReplay ? { id, mode, allowReplay } : { id, mode });

/** Two models of one run on the same instances (Rust: `results_compare_models`). */
export const resultsCompareModels = (run: string, modelA: string, modelB: string, scoring: Scoring): Promise<Result<CompareView>> =>
  call<CompareView>("results_compare_models", { run, modelA, modelB, scoring });

/** The code/JSON the scorer read from a sample's answer, or null (Rust: `results_extracted`). */
export const resultsExtracted = (id: number): Promise<Result<Extracted | null>> => call<Extracted | null>("results_extracted", { id });

// --- Perf hook (Rust: commands/perf.rs; active only when the app runs under `crucible bench app`) ---

/** Reports a perf mark; resolves to the perf run's id after a `ready` mark when the bench asked for one. */
export const perfMark = (mark: PerfMark): Promise<Result<string | null>> =>
  call<string | null>("perf_mark", { mark });

/** What the in-app demo runs (QuestBench only when Anvil, Deno and the bsc universe are there). */
export const demoInfo = (): Promise<Result<DemoInfo>> => call<DemoInfo>("demo_info");

/** Starts the in-app demo; resolves to its run id. */
export const startDemo = (): Promise<Result<string>> => call<string>("start_demo");

// --- Content packs (Rust: commands/packs.rs) ---

/** Every content pack with its task count, origin, load error and last self-test. */
export const listPacks = (): Promise<Result<PackInfo[]>> => call<PackInfo[]>("list_packs");

/** Adds a folder as a pack (it must load); resolves to the new list. */
export const addPack = (dir: string): Promise<Result<PackInfo[]>> => call<PackInfo[]>("add_pack", { dir });

/** Removes an added pack from the list (the folder is left); resolves to the new list. */
export const removePack = (name: string): Promise<Result<PackInfo[]>> => call<PackInfo[]>("remove_pack", { name });

/** Self-tests a pack (progress arrives through `onSelftestProgress`); the verdict is recorded. */
export const selftestPack = (name: string, seeds: number): Promise<Result<PackVerdict>> =>
  call<PackVerdict>("selftest_pack", { name, seeds });

/** Runs the PILOT simulator fidelity audit (progress through `onSimAuditProgress`; Rust:
 *  `audit_pilot_simulator`). */
export const auditPilotSimulator = (episodes: number, seed = 0): Promise<Result<SimAudit>> =>
  call<SimAudit>("audit_pilot_simulator", { episodes, seed });

/** Subscribes to the simulator audit's progress; resolves to the unsubscribe function. */
export async function onSimAuditProgress(cb: (p: SimAuditProgress) => void): Promise<() => void> {
  try {
    return await listen<SimAuditProgress>("pilot:audit", (e) => cb(e.payload));
  } catch {
    return () => {};
  }
}

/** Subscribes to self-test progress; resolves to the unsubscribe function. */
export async function onSelftestProgress(cb: (p: SelftestProgress) => void): Promise<() => void> {
  try {
    return await listen<SelftestProgress>("pack:selftest", (e) => cb(e.payload));
  } catch {
    return () => {};
  }
}

// --- A damaged or foreign database file (Rust: commands/database.rs) ---

/** The database file and what is wrong with it, in one plain sentence. */
export const checkDatabase = (): Promise<Result<DatabaseCheck>> => call<DatabaseCheck>("check_database");

/** Moves the database file aside (never deleted) and starts a new, empty one in its place. */
export const startFreshDatabase = (): Promise<Result<FreshDatabase>> => call<FreshDatabase>("start_fresh_database");

/** Moves the database file aside and copies what can still be read from it into a new one. */
export const recoverDatabase = (): Promise<Result<Recovery>> => call<Recovery>("recover_database");

/** Checks that `path` is a Crucible database, remembers it in the settings file and uses it. */
export const openDatabase = (path: string): Promise<Result<OpenedDatabase>> =>
  call<OpenedDatabase>("open_database", { path });

/** Each model of a run with the settings the run used, in words (Rust: `run_model_settings`). */
export const runModelSettings = (runId: string): Promise<Result<RunModelView[]>> =>
  call<RunModelView[]>("run_model_settings", { runId });

/** The model catalogue: shipped, the user's overrides, merged (Rust: `model_catalog`). */
export const modelCatalog = (): Promise<Result<CatalogEditView>> => call<CatalogEditView>("model_catalog");

/** Saves the user's override of one catalogue entry; the error names the field at fault. */
export const saveModelOverride = (entry: EntryFields): Promise<Result<CatalogEditView>> =>
  call<CatalogEditView>("save_model_override", { entry });

/** Removes the user's override of catalogue entry `family`: the shipped entry applies again. */
export const resetModelOverride = (family: string): Promise<Result<CatalogEditView>> =>
  call<CatalogEditView>("reset_model_override", { family });
