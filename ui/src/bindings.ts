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
export type ErrorKind = "config" | "internal";

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
