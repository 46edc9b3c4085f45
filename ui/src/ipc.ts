// The only place that talks to the Rust side. The command wrappers are generated from the Rust
// declarations into commands.ts (one per `#[crucible_ipc::command]`, see src-tauri/src/ipc.rs);
// how they call (`Result`, the owner check) is call.ts. Hand-written here: the event
// subscriptions, which are not commands.
import { listen } from "@tauri-apps/api/event";
import type { LiveStatus, SelftestProgress, SimAuditProgress } from "./bindings";

export * from "./commands";
export type { Result } from "./call";

/** Subscribes to `event`; resolves to the unsubscribe function (a no-op without Tauri). */
async function subscribe<T>(event: string, cb: (payload: T) => void): Promise<() => void> {
  try {
    return await listen<T>(event, (e) => cb(e.payload));
  } catch {
    return () => {};
  }
}

/** Subscribes to `run:progress` (a few updates a second per running run); returns the unsubscribe. */
export const onRunProgress = (cb: (s: LiveStatus) => void): Promise<() => void> =>
  subscribe("run:progress", cb);

/** Subscribes to the PILOT simulator audit's progress (`pilot:audit`). */
export const onSimAuditProgress = (cb: (p: SimAuditProgress) => void): Promise<() => void> =>
  subscribe("pilot:audit", cb);

/** Subscribes to a content pack's self-test progress (`pack:selftest`). */
export const onSelftestProgress = (cb: (p: SelftestProgress) => void): Promise<() => void> =>
  subscribe("pack:selftest", cb);
