// The only place that talks to the Rust side. Every command resolves to a `Result`, never throws:
// the Rust commands reject with `{ kind, message }` (bindings.ts `CommandError`), and anything
// else (no Tauri runtime, a serialisation bug) is folded into kind "internal".
import { invoke } from "@tauri-apps/api/core";
import type { CommandError, SystemStatus } from "./bindings";

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

// Tasks page (the studio). Rust: src-tauri/src/commands/tasks.rs.
import type {
  BankImport, Bench, Catalogue, DryRun, IntentImport, QuestRender, Selftest, SolutionChoice,
  TaskDetail, Validation,
} from "./bindings";

/** Every task of the three benchmarks (Rust: `list_tasks`). */
export const listTasks = (): Promise<Result<Catalogue>> => call<Catalogue>("list_tasks");
/** One task's detail view (Rust: `get_task`). */
export const getTask = (bench: Bench, id: string): Promise<Result<TaskDetail>> =>
  call<TaskDetail>("get_task", { bench, id });
/** Renders QuestBench task text at a seed (Rust: `render_quest_task`). */
export const renderQuestTask = (text: string, path: string, seed: number): Promise<Result<QuestRender>> =>
  call<QuestRender>("render_quest_task", { text, path, seed });
/** Validates QuestBench task text as the loader would at `path` (Rust: `validate_quest_task`). */
export const validateQuestTask = (text: string, path: string): Promise<Result<Validation>> =>
  call<Validation>("validate_quest_task", { text, path });
/** Saves QuestBench task text if valid (Rust: `save_quest_task`); resolves to the path. */
export const saveQuestTask = (text: string, path: string): Promise<Result<string>> =>
  call<string>("save_quest_task", { text, path });
/** The wizard: copies an atomic task under a new id (Rust: `new_quest_task`). */
export const newQuestTask = (template: string, id: string): Promise<Result<string>> =>
  call<string>("new_quest_task", { template, id });
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
/** Reference + known-wrong over seeds 0..N (Rust: `selftest_quest_task`). */
export const selftestQuestTask = (id: string, seeds: number): Promise<Result<Selftest>> =>
  call<Selftest>("selftest_quest_task", { id, seeds });
/** The task format's JSON Schema, as text (Rust: `get_quest_schema`). */
export const getQuestSchema = (): Promise<Result<string>> => call<string>("get_quest_schema");
