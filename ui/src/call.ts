// How the generated wrappers (commands.ts) call a command. Every command resolves to a `Result`,
// never throws: the Rust commands reject with `{ kind, message }` (bindings.ts `CommandError`),
// and anything else (no Tauri runtime, a serialisation bug) is folded into kind "internal".
import { invoke } from "@tauri-apps/api/core";
import type { CommandError } from "./bindings";

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

/** Calls command `cmd` with `args` (Tauri's camelCase keys). */
export async function call<T>(cmd: string, args?: Record<string, unknown>): Promise<Result<T>> {
  try {
    return { ok: true, value: await invoke<T>(cmd, args) };
  } catch (e) {
    return { ok: false, error: asCommandError(e) };
  }
}

/**
 * A change of a lab run (delete, cancel, rename, a reviewer's override) that the store refused
 * because another member made the run (Rust: `StoreError::NotOwner`, whose message names the
 * owner) is asked about once; confirmed, it is sent again with `force`. The commands declared
 * `#[crucible_ipc::command(owner)]` are called through this.
 */
export async function ownerChecked<T>(cmd: string, args: Record<string, unknown>): Promise<Result<T>> {
  const r = await call<T>(cmd, args);
  if (r.ok || !r.error.message.includes("another member's run needs an explicit force")) return r;
  if (!window.confirm(`${r.error.message}\n\nDo it anyway?`)) return r;
  return call<T>(cmd, { ...args, force: true });
}
