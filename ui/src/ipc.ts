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
