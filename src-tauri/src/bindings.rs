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

/// A unit enum's values in order and their names for people, as two constants (`list`, `labels`)
/// typed by the enum's generated type `ty`: the one place the UI gets them from.
fn enum_constants(
    out: &mut String,
    ty: &str,
    (list, list_doc): (&str, &str),
    (labels, labels_doc): (&str, &str),
    items: &[(&str, &str)],
) {
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let ids: Vec<String> = items.iter().map(|(id, _)| quote(id)).collect();
    let named: Vec<String> = items
        .iter()
        .map(|(id, label)| format!("{id}: {}", quote(label)))
        .collect();
    out.push_str(&format!(
        "\n/**\n * {list_doc}\n */\nexport const {list}: readonly {ty}[] = [{}];\n",
        ids.join(", ")
    ));
    out.push_str(&format!(
        "\n/**\n * {labels_doc}\n */\nexport const {labels}: Readonly<Record<{ty}, string>> = {{ {} }};\n",
        named.join(", ")
    ));
}

/// The benchmarks in report order and their published names (`crucible_core::BenchmarkId::ALL`
/// and `label`), the two scorings with their names (`crucible_core::Scoring`) and the two prompt
/// sets (`crucible_core::PromptSet`).
fn benchmarks(out: &mut String) {
    use crucible_core::{BenchmarkId, PromptSet, Scoring};
    let benches: Vec<(&str, &str)> = BenchmarkId::ALL
        .iter()
        .map(|b| (b.as_str(), b.label()))
        .collect();
    enum_constants(
        out,
        "Bench",
        ("BENCHES", "Every benchmark, in report order."),
        (
            "BENCH_LABEL",
            "Each benchmark's published name, for people.",
        ),
        &benches,
    );
    let scorings: Vec<(&str, &str)> = Scoring::ALL
        .iter()
        .map(|s| (s.as_str(), s.label()))
        .collect();
    enum_constants(
        out,
        "Scoring",
        ("SCORINGS", "Both scorings, the default first."),
        ("SCORING_LABEL", "Each scoring's name, for people."),
        &scorings,
    );
    let sets: Vec<(&str, &str)> = PromptSet::ALL
        .iter()
        .map(|s| (s.as_str(), s.label()))
        .collect();
    enum_constants(
        out,
        "PromptSet",
        ("PROMPT_SETS", "Both prompt sets, the default first."),
        ("PROMPT_SET_LABEL", "Each prompt set's name, for people."),
        &sets,
    );
}

/// Every benchmark's run options as each benchmark describes them
/// (`crucible_views::console::bench_options`): the New run form draws its option controls from
/// this constant, so an option added in a benchmark's crate appears in the form with no UI code.
fn bench_options(out: &mut String) {
    let json = serde_json::to_string_pretty(&crucible_views::console::bench_options())
        .unwrap_or_else(|_| "[]".into());
    out.push_str(&format!(
        "\n/**\n * Each benchmark's run options, generated from the benchmarks' descriptions: what the New run form's option controls are made from.\n */\nexport const BENCH_OPTIONS: readonly BenchOptionsView[] = {json};\n"
    ));
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
    decl::<crucible_core::BuildInfo>(&mut out);
    decl::<crate::first_start::FirstStart>(&mut out);
    decl::<ToolStatus>(&mut out);
    decl::<ToolLocation>(&mut out);
    decl::<UniverseStatus>(&mut out);
    decl::<UniverseState>(&mut out);
    decl::<crucible_ops::setup::LocatedTool>(&mut out);
    decl::<crucible_ops::setup::ConfigReset>(&mut out);
    decl::<crucible_ops::setup::UniverseBuilt>(&mut out);
    decl::<crate::live::UniverseBuild>(&mut out);
    decl::<crate::live::UniverseBuildState>(&mut out);
    decl::<crucible_ops::install::InstalledTool>(&mut out);
    decl::<crucible_ops::install::InstallStage>(&mut out);
    decl::<crate::live::ToolInstall>(&mut out);
    decl::<crate::live::ToolInstallState>(&mut out);
    decl::<crucible_views::perf_hook::PerfMark>(&mut out);
    decl::<crucible_ops::database::DatabaseCheck>(&mut out);
    decl::<crucible_ops::database::DatabaseState>(&mut out);
    decl::<crucible_ops::database::FreshDatabase>(&mut out);
    decl::<crucible_ops::database::Recovery>(&mut out);
    decl::<crucible_ops::database::OpenedDatabase>(&mut out);
    // Any JSON (stored details, events, artefacts, a studio task's extra view).
    decl::<serde_json::Value>(&mut out);
    decl::<crucible_core::Scoring>(&mut out);
    decl::<crucible_core::PromptSet>(&mut out);
    decl::<crucible_core::Cost>(&mut out);
    benchmarks(&mut out);
    // Run console: providers and models.
    {
        use crucible_llm::{
            ConnectionTest, Effort, KeySource, ModelEntry, ModelPrice, ModelSettings, Provider,
            ProviderEntry, Reasoning, SystemPrompt,
        };
        decl::<crate::ProvidersView>(&mut out);
        decl::<crate::ProviderView>(&mut out);
        decl::<crate::BuiltinAgentView>(&mut out);
        decl::<ProviderEntry>(&mut out);
        decl::<ModelEntry>(&mut out);
        decl::<ModelSettings>(&mut out);
        decl::<Reasoning>(&mut out);
        decl::<Effort>(&mut out);
        decl::<SystemPrompt>(&mut out);
        decl::<ModelPrice>(&mut out);
        decl::<Provider>(&mut out);
        decl::<KeySource>(&mut out);
        decl::<ConnectionTest>(&mut out);
    }
    // Run console: runs.
    {
        use crucible_views::console::{
            BenchPlan, ErrorReason, FailureView, FormError, LiveLoad, LiveStatus, ModelProgress,
            RunListItem, RunPlan, RunRequest, SchedulingPlan, TaskFacets,
        };
        decl::<RunRequest>(&mut out);
        decl::<crucible_views::console::BenchOptionsView>(&mut out);
        decl::<crucible_views::console::OptionView>(&mut out);
        decl::<crucible_views::console::OptionKindView>(&mut out);
        decl::<crucible_views::console::OptionChoiceView>(&mut out);
        bench_options(&mut out);
        decl::<crate::PlanResult>(&mut out);
        decl::<crucible_views::planner::RoundsAdvice>(&mut out);
        decl::<crucible_views::review::SampleReview>(&mut out);
        decl::<crucible_views::review::OverrideView>(&mut out);
        decl::<crucible_views::audit::AuditQueue>(&mut out);
        decl::<crucible_views::audit::AuditItem>(&mut out);
        decl::<RunPlan>(&mut out);
        decl::<SchedulingPlan>(&mut out);
        decl::<BenchPlan>(&mut out);
        decl::<TaskFacets>(&mut out);
        decl::<FormError>(&mut out);
        decl::<crucible_run::SpecField>(&mut out);
        decl::<crate::RunsView>(&mut out);
        decl::<crate::DemoInfo>(&mut out);
        decl::<RunListItem>(&mut out);
        decl::<crucible_views::console::RunWorkers>(&mut out);
        decl::<crucible_views::lab::StoreChoice>(&mut out);
        decl::<crucible_views::lab::LabCheck>(&mut out);
        decl::<ErrorReason>(&mut out);
        decl::<LiveStatus>(&mut out);
        decl::<LiveLoad>(&mut out);
        decl::<ModelProgress>(&mut out);
        decl::<FailureView>(&mut out);
        // A run's name and note: the limits `annotate_run` and the new-run form check.
        out.push_str(&format!(
            "\n/**\n * The longest run name, in characters (one line).\n */\nexport const RUN_NAME_MAX_CHARS = {};\n",
            crucible_store::NAME_MAX_CHARS
        ));
        out.push_str(&format!(
            "\n/**\n * The longest run note, in characters.\n */\nexport const RUN_NOTE_MAX_CHARS = {};\n",
            crucible_store::NOTE_MAX_CHARS
        ));
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
        decl::<PreviewArg>(&mut out);
        decl::<ExpectedRow>(&mut out);
        decl::<PreviewFact>(&mut out);
        decl::<PromptPreview>(&mut out);
        decl::<Validation>(&mut out);
        decl::<SolutionChoice>(&mut out);
        decl::<CheckOutcome>(&mut out);
        decl::<RoundTrace>(&mut out);
        decl::<CompositeTrace>(&mut out);
        decl::<DryRun>(&mut out);
        decl::<SelftestRow>(&mut out);
        decl::<Selftest>(&mut out);
        decl::<crucible_views::studio::ExploitCheck>(&mut out);
        decl::<crucible_views::studio::ExploitRow>(&mut out);
        decl::<crucible_ops::studio::IntentRowError>(&mut out);
        decl::<crucible_ops::studio::IntentImport>(&mut out);
        decl::<crucible_ops::studio::SavedTask>(&mut out);
        decl::<Unmapped>(&mut out);
        decl::<BankImport>(&mut out);
        decl::<crucible_catalog::packs::PackInfo>(&mut out);
        decl::<crucible_catalog::selftest::PackVerdict>(&mut out);
        decl::<crucible_catalog::selftest::Failing>(&mut out);
        decl::<crate::commands::packs::SelftestProgress>(&mut out);
        decl::<crucible_views::sim_audit::SimAudit>(&mut out);
        decl::<crucible_views::sim_audit::SimAuditCell>(&mut out);
        decl::<crucible_views::sim_audit::SimAuditErrors>(&mut out);
        decl::<crate::commands::pilot::SimAuditProgress>(&mut out);
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
        decl::<crucible_views::trace::SampleView>(&mut out);
        decl::<ClippedText>(&mut out);
        decl::<Artefact>(&mut out);
        decl::<CompareView>(&mut out);
        decl::<CategoryDelta>(&mut out);
        decl::<Disagreement>(&mut out);
        decl::<crucible_views::verdict::Verdict>(&mut out);
        decl::<crucible_views::verdict::VerdictOutcome>(&mut out);
        decl::<crucible_views::verdict::PassCounts>(&mut out);
        decl::<Facets>(&mut out);
        decl::<ChartView>(&mut out);
        decl::<crucible_views::exports::ExportRequest>(&mut out);
        decl::<crate::commands::results::SavedExport>(&mut out);
    }
    // Results explorer: the typed reading of a sample's trace.
    {
        use crucible_views::trace::*;
        decl::<TraceView>(&mut out);
        decl::<ModelCallView>(&mut out);
        decl::<ReasoningView>(&mut out);
    }
    // The run page's model settings and Settings → Providers' model catalogue.
    {
        use crucible_views::model_catalog::*;
        use crucible_views::run_models::*;
        decl::<RunModelView>(&mut out);
        decl::<SettingLine>(&mut out);
        decl::<EntryFields>(&mut out);
        decl::<CatalogModelView>(&mut out);
        decl::<FieldChoice>(&mut out);
        decl::<CatalogEditView>(&mut out);
    }
    {
        use crucible_views::trace::*;
        decl::<crucible_views::txview::TxView>(&mut out);
        decl::<crucible_views::txview::TxArg>(&mut out);
        decl::<crucible_views::txview::TxEffects>(&mut out);
        decl::<crucible_views::txview::BalanceChange>(&mut out);
        decl::<crucible_views::txview::AllowanceChange>(&mut out);
        decl::<crucible_views::txview::NftOwnerChange>(&mut out);
        decl::<crucible_views::txview::StorageChange>(&mut out);
        decl::<crucible_views::txview::LogView>(&mut out);
        decl::<crucible_views::trace::RefusedCallView>(&mut out);
        decl::<crucible_report::quest::HackRow>(&mut out);
        decl::<Highlight>(&mut out);
        decl::<HighlightKind>(&mut out);
        decl::<IntentTrace>(&mut out);
        decl::<IntentStep>(&mut out);
        decl::<IntentField>(&mut out);
        decl::<IntentKey>(&mut out);
        decl::<IntentExecution>(&mut out);
        decl::<PilotTrace>(&mut out);
        decl::<PilotCall>(&mut out);
        decl::<crucible_views::trace::ArgView>(&mut out);
        decl::<crucible_views::trace::StateCheckView>(&mut out);
        decl::<crucible_views::trace::RealToolsTrace>(&mut out);
    }
    // Results explorer: the report (`crucible report --json`) and comparisons
    // (`crucible compare --json`).
    {
        use crucible_report::{
            intent, pilot, quest, repeat, significance, stats, summary, CategoryCell,
            CompareReport, CompareSides, Comparison, CostRow, ProfileRow, Report,
        };
        decl::<Report>(&mut out);
        decl::<ProfileRow>(&mut out);
        decl::<CostRow>(&mut out);
        decl::<CategoryCell>(&mut out);
        decl::<repeat::TaskCell>(&mut out);
        decl::<summary::ModelSummary>(&mut out);
        decl::<summary::Stability>(&mut out);
        decl::<summary::RoundPair>(&mut out);
        decl::<summary::RankStability>(&mut out);
        decl::<summary::RankPair>(&mut out);
        decl::<significance::Significance>(&mut out);
        decl::<crucible_report::overrides::OverrideMode>(&mut out);
        decl::<crucible_report::overrides::OverridesUsed>(&mut out);
        decl::<significance::PairTest>(&mut out);
        decl::<stats::Correlation>(&mut out);
        decl::<quest::QuestTables>(&mut out);
        decl::<quest::LeaderRow>(&mut out);
        decl::<quest::CompositeRow>(&mut out);
        decl::<quest::QuadrantRow>(&mut out);
        decl::<quest::OverheadRow>(&mut out);
        decl::<quest::DeltaBin>(&mut out);
        decl::<quest::OutcomeRow>(&mut out);
        decl::<quest::RateRow>(&mut out);
        decl::<intent::IntentTables>(&mut out);
        decl::<intent::Table1Row>(&mut out);
        decl::<intent::Table2Row>(&mut out);
        decl::<intent::FailureRow>(&mut out);
        decl::<intent::FormEffectRow>(&mut out);
        decl::<pilot::PilotTables>(&mut out);
        decl::<crucible_report::adherence::Adherence>(&mut out);
        decl::<crucible_report::adherence::AdherenceRow>(&mut out);
        decl::<crucible_report::adherence::FlawFollowRow>(&mut out);
        decl::<pilot::OutcomeShares>(&mut out);
        decl::<pilot::PromptRow>(&mut out);
        decl::<pilot::FlawedRow>(&mut out);
        decl::<pilot::CellRow>(&mut out);
        decl::<pilot::CeilingRow>(&mut out);
        decl::<CompareReport>(&mut out);
        decl::<CompareSides>(&mut out);
        decl::<Comparison>(&mut out);
        decl::<stats::BootstrapCi>(&mut out);
        use crucible_report::reproduce;
        decl::<reproduce::PaperTables>(&mut out);
        decl::<reproduce::PaperTable>(&mut out);
        decl::<reproduce::TableColumn>(&mut out);
        decl::<reproduce::PublishedValues>(&mut out);
        decl::<reproduce::YourRow>(&mut out);
        decl::<reproduce::PaperComparison>(&mut out);
        decl::<reproduce::PaperRefusal>(&mut out);
    }
    // Results explorer: sample actions.
    {
        use crucible_views::inspect::{
            CheckView, Difference, Extracted, Replay, ReplayMode, Unit, VerdictView,
        };
        decl::<ReplayMode>(&mut out);
        decl::<Replay>(&mut out);
        decl::<VerdictView>(&mut out);
        decl::<CheckView>(&mut out);
        decl::<Unit>(&mut out);
        decl::<Difference>(&mut out);
        decl::<Extracted>(&mut out);
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Fails when the committed generated file `rel` (from the workspace root) is not `want`;
    /// with `CRUCIBLE_UPDATE_BINDINGS` set, writes it instead.
    pub(crate) fn check_generated(rel: &str, want: &str) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(rel);
        if std::env::var_os("CRUCIBLE_UPDATE_BINDINGS").is_some() {
            std::fs::write(&path, want).unwrap();
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
    fn bindings_file_is_current() {
        check_generated(BINDINGS_PATH, &typescript());
    }

    /// Every field name of every object in `v` (map keys of `raw` outcome counts excepted).
    fn keys(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    out.insert(k.clone());
                    if k != "raw" {
                        keys(x, out);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
            _ => {}
        }
    }

    #[test]
    fn every_field_of_a_report_and_a_comparison_is_declared() {
        use crucible_bench::synth::{generate, SynthSpec};
        use crucible_report::compare::compare_samples;
        use crucible_report::{BenchSelection, CompareReport, CompareSides};
        let spec = SynthSpec {
            models: 3,
            rounds: 2,
            intent_tasks: 4,
            pilot_tasks: 4,
            seed: 1,
        };
        let ds = generate(&spec);
        let report = crucible_report::build(&ds, BenchSelection(None), &Default::default());
        assert!(
            report.questbench.is_some() && report.intent2tx.is_some() && report.pilot.is_some()
        );
        // Two models of the one synthetic run, paired on their instances of one benchmark.
        let (bench, m0) = (ds.samples[0].bench, ds.samples[0].model);
        let m1 = ds
            .samples
            .iter()
            .map(|s| s.model)
            .find(|&m| m != m0)
            .unwrap();
        let side = |m: u32| -> Vec<&crucible_report::Sample> {
            ds.samples
                .iter()
                .filter(|s| s.model == m && s.bench == bench)
                .collect()
        };
        let compare = CompareReport {
            sides: CompareSides::Runs {
                run_a: "a".into(),
                run_b: "b".into(),
            },
            seed: 0,
            scoring: crucible_core::Scoring::Paper,
            comparisons: compare_samples(bench, "a", "b", &side(m0), &side(m1), 0)
                .into_iter()
                .collect(),
        };
        assert_eq!(compare.comparisons.len(), 1);
        let mut names = std::collections::BTreeSet::new();
        keys(&serde_json::to_value(&report).unwrap(), &mut names);
        keys(&serde_json::to_value(&compare).unwrap(), &mut names);
        let ts = typescript();
        for k in &names {
            assert!(
                ts.contains(&format!("\n{k}: ")) || ts.contains(&format!("\n{k}?: ")),
                "the report's field {k:?} is not declared in the bindings"
            );
        }
    }

    #[test]
    fn bindings_name_every_command_type() {
        let ts = typescript();
        for name in [
            "CommandError",
            "ErrorKind",
            "SystemStatus",
            "RealToolsTrace",
            "StateCheckView",
            "ArgView",
            "BuildInfo",
            "FirstStart",
            "ToolStatus",
            "ToolLocation",
            "UniverseStatus",
            "UniverseState",
            "LocatedTool",
            "ConfigReset",
            "DatabaseCheck",
            "Recovery",
            "UniverseBuild",
            "UniverseBuildState",
            "ToolInstall",
            "ToolInstallState",
            "InstalledTool",
            "InstallStage",
            "ProvidersView",
            "ProviderEntry",
            "KeySource",
            "ConnectionTest",
            "RunRequest",
            "RunWorkers",
            "StoreChoice",
            "LabCheck",
            "PlanResult",
            "RoundsAdvice",
            "SampleReview",
            "OverrideView",
            "AuditQueue",
            "RunsView",
            "LiveStatus",
            "Catalogue",
            "TaskDetail",
            "QuestRender",
            "PromptPreview",
            "Validation",
            "SolutionChoice",
            "DryRun",
            "Selftest",
            "ExploitCheck",
            "IntentImport",
            "SavedTask",
            "BankImport",
            "Replay",
            "ReplayMode",
            "VerdictView",
            "Report",
            "QuestTables",
            "IntentTables",
            "PilotTables",
            "Adherence",
            "SimAudit",
            "SimAuditProgress",
            "CompareReport",
            "SampleView",
            "TraceView",
            "ModelCallView",
            "RunModelView",
            "CatalogEditView",
            "JsonValue",
        ] {
            assert!(
                ts.contains(&format!("export type {name} ")),
                "{name} missing from bindings:\n{ts}"
            );
        }
        let mut seen = std::collections::BTreeSet::new();
        for line in ts.lines() {
            if let Some(rest) = line.strip_prefix("export type ") {
                let name = rest.split([' ', '<']).next().unwrap_or_default();
                assert!(seen.insert(name.to_string()), "{name} is declared twice");
            }
        }
        assert!(
            ts.contains("export const BENCH_LABEL") && ts.contains("\"EVM-QuestBench\""),
            "benchmark labels missing from bindings"
        );
        assert!(
            !ts.contains("bigint"),
            "JSON numbers must not be typed as bigint:\n{ts}"
        );
    }
}
