// The only place that talks to the Rust side. Every command resolves to a `Result`, never throws:
// the Rust commands reject with `{ kind, message }` (bindings.ts `CommandError`), and anything
// else (no Tauri runtime, a serialisation bug) is folded into kind "internal".
import { invoke } from "@tauri-apps/api/core";
import type {
  ChartView,
  CommandError,
  CompareView,
  ConnectionTest,
  Facets,
  ProviderEntry,
  ProvidersView,
  RunInfo,
  SampleFilter,
  SamplePage,
  SampleTrace,
  SystemStatus,
} from "./bindings";

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

/** Versions, data dir, external tools and built universes (Rust: `get_system_status`). */
export const getSystemStatus = (): Promise<Result<SystemStatus>> =>
  call<SystemStatus>("get_system_status");

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
export const removeProvider = (id: string): Promise<Result<ProvidersView>> =>
  call<ProvidersView>("remove_provider", { id });

/** One cheap real call to a saved model; the report carries the exact error. */
export const testConnection = (id: string, model: string): Promise<Result<ConnectionTest>> =>
  call<ConnectionTest>("test_connection", { id, model });

// --- Results explorer (Rust: commands/results.rs) ---

/** Every stored run, newest first. */
export const resultsRuns = (): Promise<Result<RunInfo[]>> => call<RunInfo[]>("results_runs");

/** The report of a selection: exactly the JSON `crucible report --json` prints. */
export const resultsReport = (filter: SampleFilter): Promise<Result<unknown>> => call<unknown>("results_report", { filter });

/** Categories and difficulties of a selection. */
export const resultsFacets = (filter: SampleFilter): Promise<Result<Facets>> => call<Facets>("results_facets", { filter });

/** The report's charts as SVG. */
export const resultsCharts = (filter: SampleFilter): Promise<Result<ChartView[]>> => call<ChartView[]>("results_charts", { filter });

/** One page of samples. */
export const resultsSamples = (filter: SampleFilter, offset: number, limit: number): Promise<Result<SamplePage>> =>
  call<SamplePage>("results_samples", { filter, offset, limit });

/** One sample's trace (long texts clipped). */
export const resultsSample = (id: number): Promise<Result<SampleTrace>> => call<SampleTrace>("results_sample", { id });

/** A clipped text in full. */
export const resultsSampleText = (id: number, field: string): Promise<Result<string>> =>
  call<string>("results_sample_text", { id, field });

/** The stored sample as pretty JSON. */
export const resultsSampleJson = (id: number): Promise<Result<string>> => call<string>("results_sample_json", { id });

/** Two runs compared. */
export const resultsCompare = (runA: string, runB: string): Promise<Result<CompareView>> =>
  call<CompareView>("results_compare", { runA, runB });

/** Writes a chart (png/svg) or the tables (csv/latex); returns the paths. */
export const resultsExport = (filter: SampleFilter, chart: string, format: string, dir: string | null = null): Promise<Result<string[]>> =>
  call<string[]>("results_export", { filter, chart, format, dir });
