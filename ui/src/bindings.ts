// placeholder; regenerated from Rust
export type ErrorKind = "config" | "internal";
export type CommandError = { kind: ErrorKind; message: string };
export type ToolLocation = { kind: "found"; path: string } | { kind: "missing"; message: string };
export type ToolStatus = { name: string; purpose: string; location: ToolLocation };
export type UniverseState = { kind: "built"; chain_id: number | null; contracts: number | null } | { kind: "not_built" } | { kind: "unreadable"; message: string };
export type UniverseStatus = { profile: string; manifest: string; state: UniverseState };
export type SystemStatus = { version: string; data_dir: string; project_dir: string; tools: Array<ToolStatus>; universes: Array<UniverseStatus> };
