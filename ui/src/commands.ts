// Generated from the Rust commands by src-tauri/src/ipc.rs (each `#[crucible_ipc::command]`). Do not edit.
// Regenerate: CRUCIBLE_UPDATE_BINDINGS=1 cargo test -p crucible-app --features custom-protocol --lib bindings
import { call, ownerChecked, type Result } from "./call";
import type {
  AuditQueue, BankImport, Bench, CatalogEditView, Catalogue, ChartView, CompareView, ConfigReset,
  ConnectionTest, DatabaseCheck, DemoInfo, DryRun, EntryFields, ExploitCheck, ExportRequest,
  Extracted, Facets, FirstStart, FormError, FreshDatabase, IntentImport, LabCheck, LiveStatus,
  LocatedTool, OpenedDatabase, OverrideView, PackInfo, PackVerdict, PaperTables, PerfMark,
  PlanResult, PromptPreview, PromptSet, ProviderEntry, ProvidersView, QuestRender, Recovery,
  Replay, ReplayMode, Report, RoundsAdvice, RunInfo, RunModelView, RunRequest, RunsView,
  SampleFilter, SamplePage, SampleReview, SampleView, SavedExport, SavedTask, Scoring, Selftest,
  SimAudit, SolutionChoice, StoreChoice, SystemStatus, TaskDetail, ToolInstall, UniverseBuild,
  Validation,
} from "./bindings";

/**
 * What Home shows: the first-start demo's state.
 *
 * Rust: `first_start::first_start`.
 */
export const firstStart = (): Promise<Result<FirstStart>> =>
  call<FirstStart>("first_start");

/**
 * Which store the app uses.
 *
 * Rust: `commands::store::store_choice`.
 */
export const storeChoice = (): Promise<Result<StoreChoice>> =>
  call<StoreChoice>("store_choice");

/**
 * Connects to a lab store without switching to it: what is there, or why it failed.
 *
 * Rust: `commands::store::test_lab_store`.
 */
export const testLabStore = (url: string, password: string | null): Promise<Result<LabCheck>> =>
  call<LabCheck>("test_lab_store", { url, password });

/**
 * Switches the app to a lab store after connecting to it; the password (typed, or found in
 * the URL) is saved in the keychain, the URL without it in the config file.
 *
 * Rust: `commands::store::use_lab_store`.
 */
export const useLabStore = (url: string, password: string | null): Promise<Result<LabCheck>> =>
  call<LabCheck>("use_lab_store", { url, password });

/**
 * Switches the app back to the local database file (the lab URL and password stay saved for
 * next time only if `keep` is true).
 *
 * Rust: `commands::store::use_local_store`.
 */
export const useLocalStore = (keep: boolean): Promise<Result<StoreChoice>> =>
  call<StoreChoice>("use_local_store", { keep });

/**
 * Versions, data dir, external tools and built universes (`crucible_views::status::system_status`).
 *
 * Rust: `commands::system::get_system_status`.
 */
export const getSystemStatus = (): Promise<Result<SystemStatus>> =>
  call<SystemStatus>("get_system_status");

/**
 * Checks that `path` runs and is `tool` (`anvil`, `deno`, `bwrap`), saves it in the config file
 * and reloads the configuration (`crucible_ops::setup::locate_tool`).
 *
 * Rust: `commands::system::locate_tool`.
 */
export const locateTool = (tool: string, path: string): Promise<Result<LocatedTool>> =>
  call<LocatedTool>("locate_tool", { tool, path });

/**
 * Moves the config file aside (its new name returned) and writes the defaults, then reloads.
 *
 * Rust: `commands::system::reset_config`.
 */
export const resetConfig = (): Promise<Result<ConfigReset>> =>
  call<ConfigReset>("reset_config");

/**
 * Starts building a universe profile in the background; poll `universe_builds` for progress.
 *
 * Rust: `commands::system::build_universe`.
 */
export const buildUniverse = (profile: string): Promise<Result<Array<UniverseBuild>>> =>
  call<Array<UniverseBuild>>("build_universe", { profile });

/**
 * The universe builds started in this app: running (seconds so far), built or failed.
 *
 * Rust: `commands::system::universe_builds`.
 */
export const universeBuilds = (): Promise<Result<Array<UniverseBuild>>> =>
  call<Array<UniverseBuild>>("universe_builds");

/**
 * Starts installing `tool` (`anvil`, `deno`) from the pinned npm package in the background
 * (`crucible_ops::install::install_tool`); poll `tool_installs` for progress. The config
 * is reloaded once the program is saved, so the next status shows it found.
 *
 * Rust: `commands::system::install_tool`.
 */
export const installTool = (tool: string): Promise<Result<Array<ToolInstall>>> =>
  call<Array<ToolInstall>>("install_tool", { tool });

/**
 * The tool installs started in this app: running (step, bytes), installed or failed.
 *
 * Rust: `commands::system::tool_installs`.
 */
export const toolInstalls = (): Promise<Result<Array<ToolInstall>>> =>
  call<Array<ToolInstall>>("tool_installs");

/**
 * Shows a folder inside the data folder (an export's) in the file manager; returns the folder.
 *
 * Rust: `commands::system::open_folder`.
 */
export const openFolder = (path: string): Promise<Result<string>> =>
  call<string>("open_folder", { path });

/**
 * "Show in folder" after an export: the file's folder in the file manager, for folders inside
 * the data folder or ones this app saved exports into; returns the folder. When no file manager
 * can show it the error says where the files are (the page then offers to copy the path).
 *
 * Rust: `commands::system::show_in_folder`.
 */
export const showInFolder = (path: string): Promise<Result<string>> =>
  call<string>("show_in_folder", { path });

/**
 * Appends `mark` to the perf file. On the first `ready` mark with `CRUCIBLE_PERF_RUN` set, starts
 * the perf run against that URL and returns its id (the UI then measures it); otherwise `None`.
 *
 * Rust: `commands::perf::perf_mark`.
 */
export const perfMark = (mark: PerfMark): Promise<Result<string | null>> =>
  call<string | null>("perf_mark", { mark });

/**
 * The database file and what is wrong with it, in one plain sentence.
 *
 * Rust: `commands::database::check_database`.
 */
export const checkDatabase = (): Promise<Result<DatabaseCheck>> =>
  call<DatabaseCheck>("check_database");

/**
 * Moves the database file aside (never deleted) and starts a new, empty one in its place.
 *
 * Rust: `commands::database::start_fresh_database`.
 */
export const startFreshDatabase = (): Promise<Result<FreshDatabase>> =>
  call<FreshDatabase>("start_fresh_database");

/**
 * Moves the database file aside and copies what can still be read from it into a new one.
 *
 * Rust: `commands::database::recover_database`.
 */
export const recoverDatabase = (): Promise<Result<Recovery>> =>
  call<Recovery>("recover_database");

/**
 * Checks that `path` is a Crucible database, remembers it in the config file and uses it.
 *
 * Rust: `commands::database::open_database`.
 */
export const openDatabase = (path: string): Promise<Result<OpenedDatabase>> =>
  call<OpenedDatabase>("open_database", { path });

/**
 * The saved providers, each with its key source, and the built-in agents.
 *
 * Rust: `commands::providers::list_providers`.
 */
export const listProviders = (): Promise<Result<ProvidersView>> =>
  call<ProvidersView>("list_providers");

/**
 * Adds or edits a provider (`previous_id`: the id it had before an edit). A non-empty `key` is
 * stored in the keychain under the provider's id; an empty or absent one leaves the stored key.
 *
 * Rust: `commands::providers::save_provider`.
 */
export const saveProvider = (entry: ProviderEntry, previousId: string | null, key: string | null): Promise<Result<ProvidersView>> =>
  call<ProvidersView>("save_provider", { entry, previousId, key });

/**
 * Removes a provider and its stored key.
 *
 * Rust: `commands::providers::remove_provider`.
 */
export const removeProvider = (id: string): Promise<Result<ProvidersView>> =>
  call<ProvidersView>("remove_provider", { id });

/**
 * One cheap real call to `model` of provider `id`; the report holds the exact error.
 *
 * Rust: `commands::providers::test_connection`.
 */
export const testConnection = (id: string, model: string): Promise<Result<ConnectionTest>> =>
  call<ConnectionTest>("test_connection", { id, model });

/**
 * The models the provider's API lists, for the provider form: `entry` as typed (saved or not),
 * with the key typed into the form, else the one stored for it (keychain, then variable).
 *
 * Rust: `commands::providers::provider_models`.
 */
export const providerModels = (entry: ProviderEntry, key: string | null): Promise<Result<Array<string>>> =>
  call<Array<string>>("provider_models", { entry, key });

/**
 * The model catalogue: each entry shipped, overridden and merged.
 *
 * Rust: `commands::catalog::model_catalog`.
 */
export const modelCatalog = (): Promise<Result<CatalogEditView>> =>
  call<CatalogEditView>("model_catalog");

/**
 * Saves the user's override of one catalogue entry (checked first; other entries kept).
 *
 * Rust: `commands::catalog::save_model_override`.
 */
export const saveModelOverride = (entry: EntryFields): Promise<Result<CatalogEditView>> =>
  call<CatalogEditView>("save_model_override", { entry });

/**
 * Removes the user's override of entry `family` (its `match`): the shipped entry applies again.
 *
 * Rust: `commands::catalog::reset_model_override`.
 */
export const resetModelOverride = (family: string): Promise<Result<CatalogEditView>> =>
  call<CatalogEditView>("reset_model_override", { family });

/**
 * Each model of a run with the settings the run used, in words.
 *
 * Rust: `commands::catalog::run_model_settings`.
 */
export const runModelSettings = (runId: string): Promise<Result<Array<RunModelView>>> =>
  call<Array<RunModelView>>("run_model_settings", { runId });

/**
 * What Start would do, or the first form problem (with its field) — never an exception.
 *
 * Rust: `commands::runs::plan_run`.
 */
export const planRun = (form: RunRequest): Promise<Result<PlanResult>> =>
  call<PlanResult>("plan_run", { form });

/**
 * The rounds planner: per benchmark, the smallest difference `rounds` rounds detect and the
 * rounds `delta` points need, from the newest stored runs' variation or the entered `sd`.
 *
 * Rust: `commands::runs::rounds_advice`.
 */
export const roundsAdvice = (benchmarks: Array<string>, rounds: number, delta: number, sd: number | null): Promise<Result<Array<RoundsAdvice>>> =>
  call<Array<RoundsAdvice>>("rounds_advice", { benchmarks, rounds, delta, sd });

/**
 * Starts a run; returns its id once it exists in the database.
 *
 * Rust: `commands::runs::start_run`.
 */
export const startRun = (form: RunRequest): Promise<Result<string>> =>
  call<string>("start_run", { form });

/**
 * Finishes the missing samples of a stored run (also one interrupted by closing the app).
 *
 * Rust: `commands::runs::resume_run`.
 */
export const resumeRun = (runId: string): Promise<Result<string>> =>
  call<string>("resume_run", { runId });

/**
 * Cancels a run going on in this app; samples in flight are dropped (resumable later). A
 * distributed run of the lab store that another member made is refused, naming its owner,
 * unless `force` (the UI asks first).
 *
 * Another lab member's run: asks the person, then sends it again with `force` (call.ts `ownerChecked`).
 *
 * Rust: `commands::runs::cancel_run`.
 */
export const cancelRun = (runId: string): Promise<Result<null>> =>
  ownerChecked<null>("cancel_run", { runId });

/**
 * Every run in the database, newest first, and which are going on in this app.
 *
 * Rust: `commands::runs::list_runs_view`.
 */
export const listRunsView = (): Promise<Result<RunsView>> =>
  call<RunsView>("list_runs_view");

/**
 * The live status of a run going on in this app (`None`: not running here).
 *
 * Rust: `commands::runs::get_live`.
 */
export const getLive = (runId: string): Promise<Result<LiveStatus | null>> =>
  call<LiveStatus | null>("get_live", { runId });

/**
 * Deletes a stored run with its samples, transcripts and artefacts. Refuses a run going on in
 * this app (cancel it first), and another lab member's run unless `force` (the message names
 * the owner). The UI asks for confirmation before calling this.
 *
 * Another lab member's run: asks the person, then sends it again with `force` (call.ts `ownerChecked`).
 *
 * Rust: `commands::runs::delete_run`.
 */
export const deleteRun = (runId: string): Promise<Result<null>> =>
  ownerChecked<null>("delete_run", { runId });

/**
 * Names a stored run and sets its note (an empty one clears it), also while it runs: nothing
 * else of the run changes. A refused name or note is the problem on its field (`name` or
 * `note`) with nothing saved; `None` once saved. An unknown run is `not_found`; another lab
 * member's run is refused, naming its owner, unless `force`.
 *
 * Another lab member's run: asks the person, then sends it again with `force` (call.ts `ownerChecked`).
 *
 * Rust: `commands::runs::annotate_run`.
 */
export const annotateRun = (runId: string, name: string | null, note: string | null): Promise<Result<FormError | null>> =>
  ownerChecked<FormError | null>("annotate_run", { runId, name, note });

/**
 * What the in-app demo will run (with QuestBench only when Anvil, Deno and the bsc universe are
 * there; otherwise the reason).
 *
 * Rust: `commands::runs::demo_info`.
 */
export const demoInfo = (): Promise<Result<DemoInfo>> =>
  call<DemoInfo>("demo_info");

/**
 * Starts the in-app demo (built-in agents; QuestBench included when the chain can run).
 *
 * Rust: `commands::runs::start_demo`.
 */
export const startDemo = (): Promise<Result<string>> =>
  call<string>("start_demo");

/**
 * Every pack with its task count, hash, origin, load error and last self-test verdict.
 *
 * Rust: `commands::packs::list_packs`.
 */
export const listPacks = (): Promise<Result<Array<PackInfo>>> =>
  call<Array<PackInfo>>("list_packs");

/**
 * Adds a folder as a pack (it must load); returns the new list.
 *
 * Rust: `commands::packs::add_pack`.
 */
export const addPack = (dir: string): Promise<Result<Array<PackInfo>>> =>
  call<Array<PackInfo>>("add_pack", { dir });

/**
 * Removes an added pack from the list (its folder is left as it is); returns the new list.
 *
 * Rust: `commands::packs::remove_pack`.
 */
export const removePack = (name: string): Promise<Result<Array<PackInfo>>> =>
  call<Array<PackInfo>>("remove_pack", { name });

/**
 * Self-tests pack `name` on `seeds` seeds, reporting progress; the verdict is recorded.
 *
 * Rust: `commands::packs::selftest_pack`.
 */
export const selftestPack = (name: string, seeds: number): Promise<Result<PackVerdict>> =>
  call<PackVerdict>("selftest_pack", { name, seeds });

/**
 * Runs the simulator fidelity audit over `episodes` episodes (default 10,000) on `seed`.
 *
 * Rust: `commands::pilot::audit_pilot_simulator`.
 */
export const auditPilotSimulator = (episodes: number | null, seed: number | null): Promise<Result<SimAudit>> =>
  call<SimAudit>("audit_pilot_simulator", { episodes, seed });

/**
 * Every task of the three benchmarks, and the files that did not load.
 *
 * Rust: `commands::tasks::list_tasks`.
 */
export const listTasks = (): Promise<Result<Catalogue>> =>
  call<Catalogue>("list_tasks");

/**
 * One task's detail view.
 *
 * Rust: `commands::tasks::get_task`.
 */
export const getTask = (bench: Bench, id: string): Promise<Result<TaskDetail>> =>
  call<TaskDetail>("get_task", { bench, id });

/**
 * Renders QuestBench task text (possibly unsaved) at a seed.
 *
 * Rust: `commands::tasks::render_quest_task`.
 */
export const renderQuestTask = (text: string, path: string, seed: number): Promise<Result<QuestRender>> =>
  call<QuestRender>("render_quest_task", { text, path, seed });

/**
 * The exact prompt of an Intent2Tx or PILOT task in `wording`, with what scoring expects
 * (`prompt` is the PILOT prompt type: baseline, cot, optimal, flawed).
 *
 * Rust: `commands::tasks::preview_task`.
 */
export const previewTask = (bench: Bench, id: string, wording: PromptSet, prompt: string | null): Promise<Result<PromptPreview>> =>
  call<PromptPreview>("preview_task", { bench, id, wording, prompt });

/**
 * Validates QuestBench task text as the loader would at `path`.
 *
 * Rust: `commands::tasks::validate_quest_task`.
 */
export const validateQuestTask = (text: string, path: string): Promise<Result<Validation>> =>
  call<Validation>("validate_quest_task", { text, path });

/**
 * Saves edited QuestBench task text opened from `path`: in place in the user task folder, else
 * (a built-in task) as a copy with its solution files in the user task folder.
 *
 * Rust: `commands::tasks::save_quest_task`.
 */
export const saveQuestTask = (text: string, path: string): Promise<Result<SavedTask>> =>
  call<SavedTask>("save_quest_task", { text, path });

/**
 * The wizard: copies an atomic task (or `text`, the author's unsaved edit of it) into the user
 * folder under a new id; returns the new path.
 *
 * Rust: `commands::tasks::new_quest_task`.
 */
export const newQuestTask = (template: string, id: string, text: string | null): Promise<Result<string>> =>
  call<string>("new_quest_task", { template, id, text });

/**
 * Converts a public question-bank file into a draft task (not saved).
 *
 * Rust: `commands::tasks::import_question_bank`.
 */
export const importQuestionBank = (text: string, file: string): Promise<Result<BankImport>> =>
  call<BankImport>("import_question_bank", { text, file });

/**
 * Imports Intent2Tx instances; with `name`, writes them to the user folder.
 *
 * Rust: `commands::tasks::import_intent_instances`.
 */
export const importIntentInstances = (text: string, name: string | null): Promise<Result<IntentImport>> =>
  call<IntentImport>("import_intent_instances", { text, name });

/**
 * Dry-runs a solution: QuestBench and (with `execute`) Intent2Tx on their booted chains, PILOT
 * in the simulator. `prompt` is the PILOT prompt type (baseline, cot, optimal, flawed).
 *
 * Rust: `commands::tasks::dry_run`.
 */
export const dryRun = (bench: Bench, id: string, seed: number, solution: SolutionChoice, prompt: string | null, execute: boolean): Promise<Result<DryRun>> =>
  call<DryRun>("dry_run", { bench, id, seed, solution, prompt, execute });

/**
 * Runs a QuestBench task's reference and known-wrong solutions on seeds `0..seeds`.
 *
 * Rust: `commands::tasks::selftest_quest_task`.
 */
export const selftestQuestTask = (id: string, seeds: number): Promise<Result<Selftest>> =>
  call<Selftest>("selftest_quest_task", { id, seeds });

/**
 * Runs every built-in exploit agent on a QuestBench task; each must score 0.
 *
 * Rust: `commands::tasks::exploit_quest_task`.
 */
export const exploitQuestTask = (id: string): Promise<Result<ExploitCheck>> =>
  call<ExploitCheck>("exploit_quest_task", { id });

/**
 * The QuestBench task format's JSON Schema (drives the editor's completion).
 *
 * Rust: `commands::tasks::get_quest_schema`.
 */
export const getQuestSchema = (): Promise<Result<string>> =>
  call<string>("get_quest_schema");

/**
 * Validates one Intent2Tx instance's JSON text; the problem names the field.
 *
 * Rust: `commands::tasks::validate_intent_instance`.
 */
export const validateIntentInstance = (text: string): Promise<Result<Validation>> =>
  call<Validation>("validate_intent_instance", { text });

/**
 * Saves an Intent2Tx instance into the studio pack `pack` (replacing the instance with its id
 * there; a built-in instance is saved as a copy under a new id).
 *
 * Rust: `commands::tasks::save_intent_instance`.
 */
export const saveIntentInstance = (text: string, pack: string): Promise<Result<SavedTask>> =>
  call<SavedTask>("save_intent_instance", { text, pack });

/**
 * The JSON Schema of an Intent2Tx instance (drives the editor's completion).
 *
 * Rust: `commands::tasks::get_intent_schema`.
 */
export const getIntentSchema = (): Promise<Result<string>> =>
  call<string>("get_intent_schema");

/**
 * Validates one PILOT-Bench task's JSON text against Crucible's registry.
 *
 * Rust: `commands::tasks::validate_pilot_task`.
 */
export const validatePilotTask = (text: string): Promise<Result<Validation>> =>
  call<Validation>("validate_pilot_task", { text });

/**
 * Saves a PILOT-Bench task into the studio's pack (a built-in task as a copy under a new id).
 *
 * Rust: `commands::tasks::save_pilot_task`.
 */
export const savePilotTask = (text: string): Promise<Result<SavedTask>> =>
  call<SavedTask>("save_pilot_task", { text });

/**
 * The JSON Schema of a PILOT-Bench task (drives the editor's completion).
 *
 * Rust: `commands::tasks::get_pilot_schema`.
 */
export const getPilotSchema = (): Promise<Result<string>> =>
  call<string>("get_pilot_schema");

/**
 * Every stored run, newest first.
 *
 * Rust: `commands::results::results_runs`.
 */
export const resultsRuns = (): Promise<Result<Array<RunInfo>>> =>
  call<Array<RunInfo>>("results_runs");

/**
 * The report of a selection (what `crucible report --json` prints; PILOT ceiling included).
 *
 * Rust: `commands::results::results_report`.
 */
export const resultsReport = (filter: SampleFilter): Promise<Result<Report>> =>
  call<Report>("results_report", { filter });

/**
 * Category and difficulty values of a selection, for the filter menus.
 *
 * Rust: `commands::results::results_facets`.
 */
export const resultsFacets = (filter: SampleFilter): Promise<Result<Facets>> =>
  call<Facets>("results_facets", { filter });

/**
 * The papers' tables with the published rows beside the selection's models (`crucible report
 * --paper-tables --json`); `map` pairs a model of the selection with a published model.
 *
 * Rust: `commands::results::results_paper_tables`.
 */
export const resultsPaperTables = (filter: SampleFilter, map: { [key in string]: string }): Promise<Result<PaperTables>> =>
  call<PaperTables>("results_paper_tables", { filter, map });

/**
 * The SVG of every chart of a selection's report.
 *
 * Rust: `commands::results::results_charts`.
 */
export const resultsCharts = (filter: SampleFilter): Promise<Result<Array<ChartView>>> =>
  call<Array<ChartView>>("results_charts", { filter });

/**
 * Reads the store into the explorer's memory and computes the newest run's report, so the
 * first Results view is instant. The UI calls it once the first screen is shown; failures
 * (no store yet) are not an error for the user and are only logged.
 *
 * Rust: `commands::results::results_warm`.
 */
export const resultsWarm = (): Promise<Result<null>> =>
  call<null>("results_warm");

/**
 * One page of the samples matching a filter.
 *
 * Rust: `commands::results::results_samples`.
 */
export const resultsSamples = (filter: SampleFilter, offset: number, limit: number): Promise<Result<SamplePage>> =>
  call<SamplePage>("results_samples", { filter, offset, limit });

/**
 * One sample's trace (long texts clipped) with its typed reading (checks, highlights, rounds,
 * field verdicts, criteria).
 *
 * Rust: `commands::results::results_sample`.
 */
export const resultsSample = (id: number): Promise<Result<SampleView>> =>
  call<SampleView>("results_sample", { id });

/**
 * The whole `prompt` or `raw_answer` of a sample ("show all").
 *
 * Rust: `commands::results::results_sample_text`.
 */
export const resultsSampleText = (id: number, field: string): Promise<Result<string>> =>
  call<string>("results_sample_text", { id, field });

/**
 * The whole stored sample as pretty JSON ("copy as JSON").
 *
 * Rust: `commands::results::results_sample_json`.
 */
export const resultsSampleJson = (id: number): Promise<Result<string>> =>
  call<string>("results_sample_json", { id });

/**
 * Two runs side by side (`crucible compare`, seed 0) with verdicts, paired samples,
 * disagreements and category deltas.
 *
 * Rust: `commands::results::results_compare`.
 */
export const resultsCompare = (runA: string, runB: string, scoring: Scoring): Promise<Result<CompareView>> =>
  call<CompareView>("results_compare", { runA, runB, scoring });

/**
 * Writes a chart (png/svg) or every table (csv/latex) of a selection into `dir` (default
 * `<data dir>/exports`), the same files the CLI writes; returns their paths.
 *
 * Rust: `commands::results::results_export`.
 */
export const resultsExport = (filter: SampleFilter, chart: string, format: string, dir: string | null): Promise<Result<Array<string>>> =>
  call<Array<string>>("results_export", { filter, chart, format, dir });

/**
 * Saves one export (a chart, or every table when the person asks for all) with a name that
 * carries the runs and the chart. `ask`: a native save dialog (the desktop portal where there
 * is one) opens at the Downloads folder with that name; otherwise the file goes straight to
 * Downloads. Never overwrites: a taken name gets a number. `None`: the person cancelled.
 *
 * Rust: `commands::results::results_save_export`.
 */
export const resultsSaveExport = (filter: SampleFilter, request: ExportRequest, ask: boolean): Promise<Result<SavedExport | null>> =>
  call<SavedExport | null>("results_save_export", { filter, request, ask });

/**
 * Re-executes or re-scores one stored sample (read-only) and returns the fresh verdict next to
 * the stored one. Chains are booted on first use, watched, and kept for the next replay.
 * Re-scoring a real-tool sample of a lab store replays someone else's model calls through the
 * MCP servers: refused unless `allow_replay` (the page asks first).
 *
 * Rust: `commands::results::results_replay`.
 */
export const resultsReplay = (id: number, mode: ReplayMode, allowReplay: boolean | null): Promise<Result<Replay>> =>
  call<Replay>("results_replay", { id, mode, allowReplay });

/**
 * Two models of one run side by side on the same instances (`crucible compare --run --models`).
 *
 * Rust: `commands::results::results_compare_models`.
 */
export const resultsCompareModels = (run: string, modelA: string, modelB: string, scoring: Scoring): Promise<Result<CompareView>> =>
  call<CompareView>("results_compare_models", { run, modelA, modelB, scoring });

/**
 * The code or JSON the scorer read from a sample's answer (clipped), for highlighting.
 *
 * Rust: `commands::results::results_extracted`.
 */
export const resultsExtracted = (id: number): Promise<Result<Extracted | null>> =>
  call<Extracted | null>("results_extracted", { id });

/**
 * A sample's overrides (newest first) and the reviewer name to prefill the override form with.
 *
 * Rust: `commands::results::sample_review`.
 */
export const sampleReview = (runId: string, sampleId: number): Promise<Result<SampleReview>> =>
  call<SampleReview>("sample_review", { runId, sampleId });

/**
 * Records a reviewer's override of a sample's verdict (`points` 0–100, or none for full marks
 * on pass and zero on fail). Nothing is stored when the input is refused, or when the sample
 * belongs to another lab member's run and `force` is not set.
 *
 * Another lab member's run: asks the person, then sends it again with `force` (call.ts `ownerChecked`).
 *
 * Rust: `commands::results::annotate_sample`.
 */
export const annotateSample = (sampleId: number, passed: boolean, points: number | null, note: string, reviewer: string): Promise<Result<OverrideView>> =>
  ownerChecked<OverrideView>("annotate_sample", { sampleId, passed, points, note, reviewer });

/**
 * The validator-audit queue of the selected runs (every run when none).
 *
 * Rust: `commands::results::audit_queue`.
 */
export const auditQueue = (runs: Array<string>): Promise<Result<AuditQueue>> =>
  call<AuditQueue>("audit_queue", { runs });

/**
 * A reviewer agrees with the scorer's verdict of a sample (the audit queue's Confirm).
 *
 * Another lab member's run: asks the person, then sends it again with `force` (call.ts `ownerChecked`).
 *
 * Rust: `commands::results::confirm_sample`.
 */
export const confirmSample = (sampleId: number, note: string, reviewer: string): Promise<Result<OverrideView>> =>
  ownerChecked<OverrideView>("confirm_sample", { sampleId, note, reviewer });

/**
 * The reviewer's name recorded with overrides (the `reviewer` setting), if set.
 *
 * Rust: `commands::results::reviewer_name`.
 */
export const reviewerName = (): Promise<Result<string | null>> =>
  call<string | null>("reviewer_name");

/**
 * Saves the reviewer's name (one line, at most 120 characters); returns it as kept.
 *
 * Rust: `commands::results::set_reviewer_name`.
 */
export const setReviewerName = (name: string): Promise<Result<string>> =>
  call<string>("set_reviewer_name", { name });
