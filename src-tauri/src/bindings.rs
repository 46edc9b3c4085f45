//! The TypeScript types of everything that crosses the IPC boundary, generated from the Rust
//! types with ts-rs into one committed file, `ui/src/bindings.ts`. A type a command takes or
//! returns must be listed in [`typescript`]; the test below fails when the file is stale.
//!
//! Regenerate: `CRUCIBLE_UPDATE_BINDINGS=1 cargo test -p crucible-app --features custom-protocol --lib bindings`.

use ts_rs::TS;

/// Where the generated file lives, relative to the workspace root.
pub const BINDINGS_PATH: &str = "ui/src/bindings.ts";

/// One declaration with its doc comment, `export`ed.
fn decl<T: TS>(out: &mut String) {
    let cfg = ts_rs::Config::new();
    out.push('\n');
    if let Some(docs) = T::docs() {
        out.push_str(&docs);
    }
    out.push_str("export ");
    out.push_str(&T::decl(&cfg));
    out.push('\n');
}

/// The whole contents of `ui/src/bindings.ts`.
pub fn typescript() -> String {
    use crucible_views::status::{
        SystemStatus, ToolLocation, ToolStatus, UniverseState, UniverseStatus,
    };
    let mut out = String::from(
        "// Generated from the Rust types by src-tauri/src/bindings.rs (ts-rs). Do not edit.\n\
         // Regenerate: CRUCIBLE_UPDATE_BINDINGS=1 cargo test -p crucible-app --features custom-protocol --lib bindings\n",
    );
    decl::<crate::CommandError>(&mut out);
    decl::<crate::ErrorKind>(&mut out);
    decl::<SystemStatus>(&mut out);
    decl::<ToolStatus>(&mut out);
    decl::<ToolLocation>(&mut out);
    decl::<UniverseStatus>(&mut out);
    decl::<UniverseState>(&mut out);
    decl::<crucible_bench::perf::PerfMark>(&mut out);
    // Run console: providers and models.
    {
        use crucible_llm::{
            ConnectionTest, KeySource, ModelEntry, ModelPrice, ModelSettings, Provider,
            ProviderEntry, SystemPrompt,
        };
        decl::<crate::ProvidersView>(&mut out);
        decl::<crate::ProviderView>(&mut out);
        decl::<crate::BuiltinAgentView>(&mut out);
        decl::<ProviderEntry>(&mut out);
        decl::<ModelEntry>(&mut out);
        decl::<ModelSettings>(&mut out);
        decl::<SystemPrompt>(&mut out);
        decl::<ModelPrice>(&mut out);
        decl::<Provider>(&mut out);
        decl::<KeySource>(&mut out);
        decl::<ConnectionTest>(&mut out);
    }
    // Run console: runs.
    {
        use crucible_views::console::{
            BenchPlan, FailureView, FormError, LiveStatus, ModelProgress, RunForm, RunListItem,
            RunPlan, TaskFacets,
        };
        decl::<RunForm>(&mut out);
        decl::<crate::PlanResult>(&mut out);
        decl::<RunPlan>(&mut out);
        decl::<BenchPlan>(&mut out);
        decl::<TaskFacets>(&mut out);
        decl::<FormError>(&mut out);
        decl::<crate::RunsView>(&mut out);
        decl::<crate::DemoInfo>(&mut out);
        decl::<RunListItem>(&mut out);
        decl::<LiveStatus>(&mut out);
        decl::<ModelProgress>(&mut out);
        decl::<FailureView>(&mut out);
    }
    // Tasks page (the studio).
    {
        use crucible_questbench::import::{BankImport, Unmapped};
        use crucible_views::studio::*;
        decl::<Bench>(&mut out);
        decl::<Origin>(&mut out);
        decl::<TaskSummary>(&mut out);
        decl::<LoadProblem>(&mut out);
        decl::<Catalogue>(&mut out);
        decl::<WrongSolution>(&mut out);
        decl::<TaskDetail>(&mut out);
        decl::<ParamRow>(&mut out);
        decl::<CheckRow>(&mut out);
        decl::<QuestRender>(&mut out);
        decl::<Validation>(&mut out);
        decl::<SolutionChoice>(&mut out);
        decl::<CheckOutcome>(&mut out);
        decl::<RoundTrace>(&mut out);
        decl::<CompositeTrace>(&mut out);
        decl::<DryRun>(&mut out);
        decl::<SelftestRow>(&mut out);
        decl::<Selftest>(&mut out);
        decl::<IntentRowError>(&mut out);
        decl::<IntentImport>(&mut out);
        decl::<Unmapped>(&mut out);
        decl::<BankImport>(&mut out);
    }
    // Results explorer.
    {
        use crucible_views::results::{
            Artefact, CategoryDelta, ChartView, ClippedText, CompareView, Disagreement, Facets,
            RunInfo, SampleFilter, SamplePage, SampleSummary, SampleTrace,
        };
        decl::<RunInfo>(&mut out);
        decl::<SampleFilter>(&mut out);
        decl::<SamplePage>(&mut out);
        decl::<SampleSummary>(&mut out);
        decl::<SampleTrace>(&mut out);
        decl::<ClippedText>(&mut out);
        decl::<Artefact>(&mut out);
        decl::<CompareView>(&mut out);
        decl::<CategoryDelta>(&mut out);
        decl::<Disagreement>(&mut out);
        decl::<Facets>(&mut out);
        decl::<ChartView>(&mut out);
    }
    // Results explorer: sample actions.
    {
        use crucible_views::inspect::{
            CheckView, Difference, Extracted, Replay, ReplayMode, VerdictView,
        };
        decl::<ReplayMode>(&mut out);
        decl::<Replay>(&mut out);
        decl::<VerdictView>(&mut out);
        decl::<CheckView>(&mut out);
        decl::<Difference>(&mut out);
        decl::<Extracted>(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_file_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(BINDINGS_PATH);
        let want = typescript();
        if std::env::var_os("CRUCIBLE_UPDATE_BINDINGS").is_some() {
            std::fs::write(&path, &want).unwrap();
            return;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is stale; regenerate it with \
             `CRUCIBLE_UPDATE_BINDINGS=1 cargo test -p crucible-app --features custom-protocol --lib bindings` \
             and commit it",
            path.display()
        );
    }

    #[test]
    fn bindings_name_every_command_type() {
        let ts = typescript();
        for name in [
            "CommandError",
            "ErrorKind",
            "SystemStatus",
            "ToolStatus",
            "ToolLocation",
            "UniverseStatus",
            "UniverseState",
            "ProvidersView",
            "ProviderEntry",
            "KeySource",
            "ConnectionTest",
            "RunForm",
            "PlanResult",
            "RunsView",
            "LiveStatus",
            "Catalogue",
            "TaskDetail",
            "QuestRender",
            "Validation",
            "SolutionChoice",
            "DryRun",
            "Selftest",
            "IntentImport",
            "BankImport",
            "Replay",
            "ReplayMode",
            "VerdictView",
        ] {
            assert!(
                ts.contains(&format!("export type {name} ")),
                "{name} missing from bindings:\n{ts}"
            );
        }
        assert!(
            !ts.contains("bigint"),
            "JSON numbers must not be typed as bigint:\n{ts}"
        );
    }
}
