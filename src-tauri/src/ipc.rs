//! Every command the UI can call, listed once. Each is an fn declared with
//! `#[crucible_ipc::command]` in `commands/<area>.rs`; [`commands!`] below names it, and from
//! that one list come both the handler Tauri registers ([`handler`]) and the TypeScript wrappers
//! in the committed, generated `ui/src/commands.ts` ([`typescript`]): one `export const` per
//! command, named in camelCase, taking the arguments the UI sends (Tauri's camelCase keys) and
//! resolving to a `Result` of the command's result type. A command and its wrapper cannot
//! diverge: the test below fails when the file is stale.
//!
//! This module only describes commands; what a wrapper does with a call (folding errors into
//! `Result`, the owner check's confirm-and-retry) is hand-written in `ui/src/call.ts`, and the
//! event subscriptions in `ui/src/ipc.ts`.
//!
//! Regenerate: `CRUCIBLE_UPDATE_BINDINGS=1 cargo test -p crucible-app --features custom-protocol --lib bindings`.

use std::collections::BTreeSet;

use ts_rs::TS;

use crate::CommandError;

/// Where the generated file lives, relative to the workspace root.
pub const COMMANDS_PATH: &str = "ui/src/commands.ts";

/// One command as `#[crucible_ipc::command]` read it from the fn's signature.
#[derive(Debug, Clone, Copy)]
pub struct Declaration {
    /// The command's name on the wire: the Rust fn's (`list_runs_view`).
    pub name: &'static str,
    /// The Rust module path of the declaration (`crucible_app::commands::runs::cancel_run`).
    pub module: &'static str,
    /// The fn's `///` lines, as written.
    pub doc: &'static [&'static str],
    /// The arguments the UI sends, in order (Tauri's own and an owner check's `force` left out).
    pub args: &'static [Arg],
    /// The TypeScript type the command resolves to.
    pub result: fn() -> String,
    /// Whether a refusal because another lab member owns the run is asked about and retried with
    /// `force` (`#[crucible_ipc::command(owner)]`).
    pub owner: bool,
}

/// One argument of a [`Declaration`].
#[derive(Debug, Clone, Copy)]
pub struct Arg {
    /// The Rust name (`run_id`); the UI sends it in camelCase (`runId`), as Tauri expects.
    pub name: &'static str,
    /// Its TypeScript type.
    pub ty: fn() -> String,
}

/// The TypeScript type of `T`. Integers of 64 bits are `number`: the IPC carries JSON, which has
/// no other kind of number.
pub fn ts<T: TS + ?Sized>() -> String {
    T::name(&ts_rs::Config::new().with_large_int("number"))
}

/// What a command's return type resolves to in the UI: the `Ok` of a `Result`, or the value a
/// command that cannot fail returns (each such type is listed here).
#[diagnostic::on_unimplemented(
    message = "a command returns `Result<_, CommandError>`, or a type listed in `returns_plain!` (src-tauri/src/ipc.rs)"
)]
pub trait Returns {
    /// The TypeScript type the UI receives.
    fn ts() -> String;
}

impl<T: TS> Returns for Result<T, CommandError> {
    fn ts() -> String {
        ts::<T>()
    }
}

/// Commands that cannot fail return these directly.
macro_rules! returns_plain {
    ($($t:ty),*) => {$(
        impl Returns for $t {
            fn ts() -> String {
                ts::<$t>()
            }
        }
    )*};
}
returns_plain!(
    (),
    String,
    crucible_views::studio::Validation,
    crate::first_start::FirstStart
);

/// Names each command once: `handler()` is what Tauri registers, `declarations()` what
/// `ui/src/commands.ts` is generated from — the same list, so neither has one the other lacks.
/// A path here whose fn is not declared with `#[crucible_ipc::command]` does not compile.
macro_rules! commands {
    ($($($segment:ident)::+),* $(,)?) => {
        /// The invoke handler of every command.
        pub(crate) fn handler() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($($segment)::+),*]
        }

        /// Every command, in the order of the list.
        pub fn declarations() -> Vec<Declaration> {
            vec![$($($segment)::+::declaration()),*]
        }
    };
}

commands![
    crate::first_start::first_start,
    crate::commands::store::store_choice,
    crate::commands::store::test_lab_store,
    crate::commands::store::use_lab_store,
    crate::commands::store::use_local_store,
    crate::commands::system::get_system_status,
    crate::commands::system::locate_tool,
    crate::commands::system::reset_config,
    crate::commands::system::build_universe,
    crate::commands::system::universe_builds,
    crate::commands::system::install_tool,
    crate::commands::system::tool_installs,
    crate::commands::system::open_folder,
    crate::commands::system::show_in_folder,
    crate::commands::perf::perf_mark,
    // A damaged or foreign database file (the panel of `database_damaged` errors)
    crate::commands::database::check_database,
    crate::commands::database::start_fresh_database,
    crate::commands::database::recover_database,
    crate::commands::database::open_database,
    // Run console (Settings → Providers & models; Runs)
    crate::commands::providers::list_providers,
    crate::commands::providers::save_provider,
    crate::commands::providers::remove_provider,
    crate::commands::providers::test_connection,
    crate::commands::providers::provider_models,
    crate::commands::catalog::model_catalog,
    crate::commands::catalog::save_model_override,
    crate::commands::catalog::reset_model_override,
    crate::commands::catalog::run_model_settings,
    crate::commands::runs::plan_run,
    crate::commands::runs::rounds_advice,
    crate::commands::runs::start_run,
    crate::commands::runs::resume_run,
    crate::commands::runs::cancel_run,
    crate::commands::runs::list_runs_view,
    crate::commands::runs::get_live,
    crate::commands::runs::delete_run,
    crate::commands::runs::annotate_run,
    crate::commands::runs::demo_info,
    crate::commands::runs::start_demo,
    // Settings → Content packs (and the New run form's pack list)
    crate::commands::packs::list_packs,
    crate::commands::packs::add_pack,
    crate::commands::packs::remove_pack,
    crate::commands::packs::selftest_pack,
    crate::commands::pilot::audit_pilot_simulator,
    // Tasks page (the studio)
    crate::commands::tasks::list_tasks,
    crate::commands::tasks::get_task,
    crate::commands::tasks::render_quest_task,
    crate::commands::tasks::preview_task,
    crate::commands::tasks::validate_quest_task,
    crate::commands::tasks::save_quest_task,
    crate::commands::tasks::new_quest_task,
    crate::commands::tasks::import_question_bank,
    crate::commands::tasks::import_intent_instances,
    crate::commands::tasks::dry_run,
    crate::commands::tasks::selftest_quest_task,
    crate::commands::tasks::exploit_quest_task,
    crate::commands::tasks::get_quest_schema,
    crate::commands::tasks::validate_intent_instance,
    crate::commands::tasks::save_intent_instance,
    crate::commands::tasks::get_intent_schema,
    crate::commands::tasks::validate_pilot_task,
    crate::commands::tasks::save_pilot_task,
    crate::commands::tasks::get_pilot_schema,
    // Results explorer and the reviewer's verdicts
    crate::commands::results::results_runs,
    crate::commands::results::results_report,
    crate::commands::results::results_facets,
    crate::commands::results::results_paper_tables,
    crate::commands::results::results_charts,
    crate::commands::results::results_warm,
    crate::commands::results::results_samples,
    crate::commands::results::results_sample,
    crate::commands::results::results_sample_text,
    crate::commands::results::results_sample_json,
    crate::commands::results::results_compare,
    crate::commands::results::results_export,
    crate::commands::results::results_save_export,
    crate::commands::results::results_replay,
    crate::commands::results::results_compare_models,
    crate::commands::results::results_extracted,
    crate::commands::results::sample_review,
    crate::commands::results::annotate_sample,
    crate::commands::results::audit_queue,
    crate::commands::results::confirm_sample,
    crate::commands::results::reviewer_name,
    crate::commands::results::set_reviewer_name,
];

/// `snake_case` → `camelCase`, as Tauri renames a command's arguments (and as the wrappers are
/// named).
fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The type names a TypeScript type refers to (those `ui/src/bindings.ts` declares); the
/// built-in generics and keywords are not among them.
fn named_types(ty: &str, out: &mut BTreeSet<String>) {
    const BUILT_IN: [&str; 3] = ["Array", "Record", "Partial"];
    for word in ty.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if word.starts_with(|c: char| c.is_ascii_uppercase()) && !BUILT_IN.contains(&word) {
            out.insert(word.to_string());
        }
    }
}

/// A `///` comment as a JSDoc block: intra-doc links become code spans, and the Rust side is
/// named at the end.
fn jsdoc(d: &Declaration) -> String {
    let mut out = String::from("/**\n");
    for line in d.doc {
        let line = line.strip_prefix(' ').unwrap_or(line);
        let line = line
            .replace("[`", "`")
            .replace("`]", "`")
            .replace("*/", "*\\/");
        out.push_str(if line.is_empty() { " *" } else { " * " });
        out.push_str(&line);
        out.push('\n');
    }
    if d.owner {
        out.push_str(
            " *\n * Another lab member's run: asks the person, then sends it again with `force` \
             (call.ts `ownerChecked`).\n",
        );
    }
    let module = d.module.split_once("::").map_or(d.module, |(_, m)| m);
    out.push_str(&format!(" *\n * Rust: `{module}`.\n */\n"));
    out
}

/// The whole contents of `ui/src/commands.ts`.
pub fn typescript() -> String {
    let declarations = declarations();
    let mut types = BTreeSet::new();
    let mut body = String::new();
    for d in &declarations {
        let result = (d.result)();
        named_types(&result, &mut types);
        let params: Vec<String> = d
            .args
            .iter()
            .map(|a| {
                let ty = (a.ty)();
                named_types(&ty, &mut types);
                format!("{}: {ty}", camel(a.name))
            })
            .collect();
        let keys: Vec<String> = d.args.iter().map(|a| camel(a.name)).collect();
        let how = if d.owner { "ownerChecked" } else { "call" };
        let args = if keys.is_empty() {
            String::new()
        } else {
            format!(", {{ {} }}", keys.join(", "))
        };
        body.push('\n');
        body.push_str(&jsdoc(d));
        body.push_str(&format!(
            "export const {} = ({}): Promise<Result<{result}>> =>\n  {how}<{result}>(\"{}\"{args});\n",
            camel(d.name),
            params.join(", "),
            d.name,
        ));
    }
    let mut out = String::from(
        "// Generated from the Rust commands by src-tauri/src/ipc.rs (each `#[crucible_ipc::command]`). Do not edit.\n\
         // Regenerate: CRUCIBLE_UPDATE_BINDINGS=1 cargo test -p crucible-app --features custom-protocol --lib bindings\n\
         import { call, ownerChecked, type Result } from \"./call\";\n",
    );
    // The type names, a line of them at a time, as a person would wrap them.
    out.push_str("import type {\n");
    let mut line = String::new();
    for name in types {
        if !line.is_empty() && line.len() + name.len() > 96 {
            out.push_str(&format!("  {}\n", line.trim_end()));
            line.clear();
        }
        line.push_str(&name);
        line.push_str(", ");
    }
    out.push_str(&format!("  {}\n}} from \"./bindings\";\n", line.trim_end()));
    out.push_str(&body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_bindings_are_current() {
        crate::bindings::tests::check_generated(COMMANDS_PATH, &typescript());
    }

    #[test]
    fn every_declared_command_is_listed_once() {
        let listed: Vec<&str> = declarations().iter().map(|d| d.name).collect();
        let unique: BTreeSet<&str> = listed.iter().copied().collect();
        assert_eq!(unique.len(), listed.len(), "a command is listed twice");
        // A fn declared with the attribute but missing from `commands!` would be neither
        // registered nor wrapped.
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut declared = BTreeSet::new();
        let mut dirs = vec![src];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let mut lines = text.lines();
                while let Some(line) = lines.next() {
                    if !line.trim_start().starts_with("#[crucible_ipc::command") {
                        continue;
                    }
                    let sig = lines.next().unwrap_or_default();
                    let name = sig
                        .split("fn ")
                        .nth(1)
                        .and_then(|s| s.split('(').next())
                        .unwrap_or_default();
                    declared.insert(name.to_string());
                }
            }
        }
        let listed: BTreeSet<String> = unique.iter().map(|s| s.to_string()).collect();
        let unlisted: Vec<&String> = declared.difference(&listed).collect();
        assert!(
            unlisted.is_empty(),
            "{unlisted:?} declared with `#[crucible_ipc::command]` but not in `commands!` \
             (src-tauri/src/ipc.rs): neither registered nor wrapped"
        );
    }

    #[test]
    fn every_type_a_command_names_is_in_the_bindings() {
        let bindings = crate::bindings::typescript();
        let mut types = BTreeSet::new();
        for d in declarations() {
            named_types(&(d.result)(), &mut types);
            for a in d.args {
                named_types(&(a.ty)(), &mut types);
            }
        }
        for name in types {
            assert!(
                bindings.contains(&format!("export type {name} ")),
                "{name} is taken or returned by a command but not declared in ui/src/bindings.ts: \
                 add it to src-tauri/src/bindings.rs"
            );
        }
    }

    #[test]
    fn names_are_camel_case_as_tauri_sends_them() {
        for (snake, want) in [
            ("run_id", "runId"),
            ("model_a", "modelA"),
            ("list_runs_view", "listRunsView"),
            ("id", "id"),
        ] {
            assert_eq!(camel(snake), want);
        }
    }
}
