//! PILOT-Bench's public release as a content pack, against the committed cut
//! `tests/fixtures/pilot-release/` (6 release tasks × 8 variants + the release's registry): it
//! loads through `TaskLibrary::load` with the release's own registry and `<id>@<variant>` ids,
//! `crucible packs add` detects it, a real run of the reference agent through the run machinery
//! stores each sample's variant and the report groups by it, the self-test passes, and bad input
//! is refused with the file, task and field named. When the full release sits next to the
//! project (`../shared/data/pilot-public-release`) it is checked too: 5,040 tasks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crucible_core::{Benchmark, Config, Scoring};
use crucible_pilot::release::VARIANTS;
use crucible_pilot::seam::PilotBench;
use crucible_pilot::suite::Engine;
use crucible_pilot::{selftest, TaskLibrary};
use crucible_report::{self as report, BenchSelection, Dataset};
use crucible_run::{self as run, RunContext, RunSpec};
use crucible_store::Store;
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pilot-release")
}

fn full_release() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/pilot-public-release");
    p.join("tool_registry.json").is_file().then_some(p)
}

fn copy_fixture(to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(fixture()).unwrap().flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

const IDS: [&str; 6] = [
    "task_30fbef8d",
    "task_987ea2ec",
    "task_a6d6152f",
    "task_ac278ee8",
    "task_c6baebe1",
    "task_d83ab39d",
];

#[test]
fn the_release_cut_loads_as_released_with_its_own_registry_and_variant_ids() {
    let lib = TaskLibrary::load(&fixture()).unwrap();
    assert_eq!(lib.tasks.len(), 6 * 8);
    let mut per_variant: BTreeMap<String, usize> = BTreeMap::new();
    for t in &lib.tasks {
        let v = t.task.variant.clone().unwrap();
        let r = t.task.release.as_ref().unwrap();
        assert_eq!(t.task.instance_id, format!("{}@{v}", r.instance_id));
        assert!(IDS.contains(&r.instance_id.as_str()));
        assert_eq!(r.file, format!("task_library_enhanced_v3_{v}.json"));
        // In the unbiased files the per-task level is the variant itself.
        if !v.ends_with("_biased") {
            assert_eq!(r.difficulty_level.as_deref(), Some(v.as_str()));
        }
        assert!(r.extra.contains_key("enhancement_timestamp"));
        *per_variant.entry(v).or_default() += 1;
    }
    assert_eq!(per_variant.len(), 8);
    assert!(per_variant.values().all(|n| *n == 6));
    // The release's registry, not Crucible's: the validator depends on the parser only, the
    // writer on the transformer and the network validator.
    let reg = &lib.registry;
    let deps = |n: &str| reg.tool(reg.id(n).unwrap()).dependencies.clone();
    assert_eq!(
        deps("data_processing_validator"),
        ["data_processing_parser"]
    );
    assert_eq!(
        deps("file_operations_writer"),
        ["data_processing_transformer", "network_validator"]
    );
    assert_eq!(reg.tools()[0].name, "file_operations_reader");
    assert_eq!(reg.tools()[2].name, "network_fetcher", "file order kept");
    let crucible = crucible_pilot::Registry::generate();
    assert_ne!(
        crucible
            .tool(crucible.id("file_operations_writer").unwrap())
            .dependencies,
        deps("file_operations_writer")
    );
    // Kept as released: the validator is listed before the parser it depends on.
    let t = lib.get("task_ac278ee8@hard").unwrap();
    assert_eq!(
        t.task.required_tools,
        [
            "network_fetcher",
            "data_processing_validator",
            "data_processing_parser"
        ]
    );
    assert_eq!(t.task.category, "api_integration");
    assert_eq!(
        t.task.task_type,
        crucible_pilot::TaskType::ComplexNetworkIntegration
    );
    let files = &lib.release.as_ref().unwrap().files;
    assert_eq!(
        files.iter().map(|f| f.variant.as_str()).collect::<Vec<_>>(),
        VARIANTS
    );
    assert_eq!(files[0].metadata["num_tasks"], 630, "file metadata kept");

    if let Some(dir) = full_release() {
        let full = TaskLibrary::load(&dir).unwrap();
        assert_eq!(full.tasks.len(), 5040);
        let ids: BTreeSet<&str> = full
            .tasks
            .iter()
            .map(|t| t.task.release.as_ref().unwrap().instance_id.as_str())
            .collect();
        assert_eq!(ids.len(), 630);
    }
}

#[test]
fn selftest_passes_on_the_release_cut_and_counts_its_quirks() {
    let lib = TaskLibrary::load(&fixture()).unwrap();
    let rep = selftest::run(&lib, &[1, 2, 3, 4]);
    let failing: Vec<_> = rep.failing().map(|r| (&r.task, &r.problems)).collect();
    assert!(rep.passed, "{failing:?}");
    assert_eq!((rep.tasks, rep.passed_tasks), (48, 48));
    // 2 of the 6 ids list a tool before its prerequisite, 5 list no output tool, 5 leave a
    // prerequisite unlisted; each in all 8 variants.
    assert_eq!(
        (
            rep.quirks.order_conflict,
            rep.quirks.no_output_tool,
            rep.quirks.unlisted_prerequisites
        ),
        (16, 40, 40)
    );
    for r in &rep.results {
        assert_eq!(r.seeds.len(), 4);
        assert!(r.ceiling > 0.0 && r.ceiling < 1.0);
        assert!(r.variant.is_some());
    }
    let v = serde_json::to_value(&rep).unwrap();
    assert_eq!(v["passed"], true);
    assert!(v["definition"].as_str().unwrap().contains("fault-free"));
}

/// The release's library as the run machinery sees it: PILOT only, shared, no chain.
struct ReleaseSet(Arc<dyn Benchmark>);

impl run::Benchmarks for ReleaseSet {
    fn needs_chain(&self, _: &str) -> bool {
        false
    }
    fn benchmark(&self, b: &str) -> Option<Arc<dyn Benchmark>> {
        (b == "pilot").then(|| self.0.clone())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_of_the_release_pack_stores_variants_and_the_report_groups_by_them() {
    let lib = TaskLibrary::load(&fixture()).unwrap();
    let bench: Arc<dyn Benchmark> = Arc::new(PilotBench::new(Engine::new(lib)));
    let load: run::LoadBenchmarks = Arc::new(move |_: &Config, _: &RunSpec| {
        Ok(Arc::new(ReleaseSet(bench.clone())) as Arc<dyn run::Benchmarks>)
    });
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("c.db")).await.unwrap();
    let ctx = RunContext::new(Config::test(), store.clone(), load);
    let mut s = RunSpec::new(
        vec!["pilot".into()],
        vec!["builtin:reference".into(), "builtin:no-retry".into()],
    );
    s.seed = 5;
    s.concurrency = 2;
    let rep = run::start(&ctx, s).await.unwrap();
    // 48 tasks × 4 prompt types × 2 agents, every one finished (none crashed on the release's
    // order conflicts or missing output tools).
    assert_eq!(rep.samples, 48 * 4 * 2);
    assert_eq!(
        (rep.finished, rep.failed, rep.status.as_str()),
        (rep.samples, 0, "finished")
    );
    let samples = store.samples(&rep.run_id).await.unwrap();
    let mut reference_full = 0;
    for (_, smp) in &samples {
        let d: Value = serde_json::from_str(&smp.details).unwrap();
        let variant = d["variant"].as_str().unwrap();
        assert!(VARIANTS.contains(&variant), "{variant}");
        assert!(smp.instance.starts_with(&format!(
            "{}@{variant}#",
            d["release"]["instance_id"].as_str().unwrap()
        )));
        assert!(d["release"]["quirks"].is_object());
        if smp.model == "builtin:reference" && smp.outcome == "full_success" {
            reference_full += 1;
        }
    }
    assert!(reference_full > 48 * 4 / 2, "{reference_full}");
    // Re-scoring replays the stored answers to the same results.
    let again = run::rescore(&ctx, &rep.run_id).await.unwrap();
    assert_eq!(again.changed, Some(0));

    let ds = Dataset::load(
        &store,
        std::slice::from_ref(&rep.run_id),
        BenchSelection(None),
        Scoring::Crucible,
    )
    .await
    .unwrap();
    let r = report::build(&ds, BenchSelection(None), &Default::default());
    let p = r.pilot.as_ref().unwrap();
    // One row per (model, variant, prompt type): 2 × 8 × 4, each of 6 tasks.
    assert_eq!(p.by_variant.len(), 2 * 8 * 4);
    assert!(p.by_variant.iter().all(|row| row.shares.n == 6));
    let keys: Vec<&str> = p
        .by_variant
        .iter()
        .filter(|row| row.model == "builtin:reference" && row.sub == "optimal")
        .map(|row| row.key.as_str())
        .collect();
    assert_eq!(keys, VARIANTS, "variants in report order");
    // The per-variant shares add up to the prompt table's.
    let full_by_variant: f64 = p
        .by_variant
        .iter()
        .filter(|row| row.model == "builtin:reference" && row.sub == "optimal")
        .map(|row| row.shares.full_pct * row.shares.n as f64 / 100.0)
        .sum();
    let t2 = p
        .table2
        .iter()
        .find(|row| row.model == "builtin:reference" && row.prompt_type == "optimal")
        .unwrap();
    assert!((full_by_variant - t2.shares.full_pct * t2.shares.n as f64 / 100.0).abs() < 1e-6);
    let tables = report::export::tables(&r);
    assert!(tables.iter().any(|(name, _)| *name == "pilot_by_variant"));

    // The CLI's report prints the variant table and exports it.
    let db = dir.path().join("c.db");
    let out_dir = dir.path().join("export");
    let out = crate::support::crucible_command(&dir.path().join("data"))
        .args([
            "report",
            "--db",
            db.to_str().unwrap(),
            "--bench",
            "pilot",
            "--no-ceiling",
        ])
        .args(["--format", "csv", "--out", out_dir.to_str().unwrap()])
        .output()
        .unwrap();
    let text = crate::support::succeeded(&out);
    assert!(
        text.contains("by description-difficulty variant") && text.contains("hard_biased"),
        "{text}"
    );
    let exported: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        exported.iter().any(|n| n.starts_with("pilot_by_variant")),
        "{exported:?}"
    );
}

use crate::support::crucible_cli as crucible;

#[test]
fn packs_add_detects_the_raw_release_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let folder = tmp.path().join("release-cut");
    copy_fixture(&folder);
    let (ok, added, err) = crucible(&data, &["packs", "add", folder.to_str().unwrap(), "--json"]);
    assert!(ok, "{err}");
    assert_eq!(
        (
            added["name"].as_str(),
            added["benchmark"].as_str(),
            added["tasks"].as_u64()
        ),
        (Some("release-cut"), Some("pilot"), Some(48))
    );
    if let Some(dir) = full_release() {
        let (ok, added, err) = crucible(&data, &["packs", "add", dir.to_str().unwrap(), "--json"]);
        assert!(ok, "{err}");
        assert_eq!(
            (added["benchmark"].as_str(), added["tasks"].as_u64()),
            (Some("pilot"), Some(5040))
        );
    }
    // A broken copy is listed with the file and field that break it; the others still load.
    std::fs::write(
        folder.join("task_library_enhanced_v3_hard.json"),
        r#"{"tasks": [{"instance_id": "task_x"}], "metadata": {}}"#,
    )
    .unwrap();
    let (ok, list, err) = crucible(&data, &["packs", "list", "--json"]);
    assert!(ok, "{err}");
    let broken = list
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "release-cut")
        .unwrap();
    let e = broken["error"].as_str().unwrap();
    assert!(
        e.contains("task_library_enhanced_v3_hard.json") && e.contains("task task_x: task_type"),
        "{e}"
    );
    assert!(list
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "builtin-pilot" && p["error"].is_null()));
}

#[test]
fn bad_release_input_names_the_file_the_task_and_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("r");
    copy_fixture(&dir);
    let easy = dir.join("task_library_enhanced_v3_easy.json");
    let original = std::fs::read_to_string(&easy).unwrap();
    let load_err = || TaskLibrary::load(&dir).unwrap_err().to_string();

    // Malformed JSON.
    std::fs::write(&easy, &original[..original.len() / 2]).unwrap();
    let e = load_err();
    assert!(e.contains("task_library_enhanced_v3_easy.json"), "{e}");

    // An unknown tool in a task.
    let mut v: Value = serde_json::from_str(&original).unwrap();
    v["tasks"][1]["required_tools"][1] = "file_operations_teleporter".into();
    let id = v["tasks"][1]["instance_id"].as_str().unwrap().to_string();
    std::fs::write(&easy, v.to_string()).unwrap();
    let e = load_err();
    assert!(
        e.contains("task_library_enhanced_v3_easy.json")
            && e.contains(&format!("task {id}: required_tools[1]"))
            && e.contains("file_operations_teleporter"),
        "{e}"
    );

    // `tasks` of the wrong type.
    std::fs::write(&easy, r#"{"tasks": {}, "metadata": {}}"#).unwrap();
    let e = load_err();
    assert!(e.contains("easy.json: tasks: expected an array"), "{e}");

    // A registry entry without errors, and a dependency on a tool that is not there.
    std::fs::write(&easy, &original).unwrap();
    let reg_path = dir.join("tool_registry.json");
    let reg_text = std::fs::read_to_string(&reg_path).unwrap();
    let mut reg: Value = serde_json::from_str(&reg_text).unwrap();
    reg["utility_logger"]["errors"] = Value::Array(vec![]);
    std::fs::write(&reg_path, reg.to_string()).unwrap();
    let e = load_err();
    assert!(
        e.contains("tool_registry.json: tool utility_logger: errors"),
        "{e}"
    );
    let mut reg: Value = serde_json::from_str(&reg_text).unwrap();
    reg["network_poster"]["dependencies"][0] = "quantum_teleporter".into();
    std::fs::write(&reg_path, reg.to_string()).unwrap();
    let e = load_err();
    assert!(
        e.contains("tool network_poster: dependencies[0]") && e.contains("quantum_teleporter"),
        "{e}"
    );

    // No registry at all.
    std::fs::remove_file(&reg_path).unwrap();
    let e = load_err();
    assert!(
        e.contains("tool_registry.json") && e.contains("not found"),
        "{e}"
    );

    // Nothing was written into the pack folder by any of this.
    let names: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 8 + 1, "{names:?}");
}

#[test]
fn pilot_selftest_and_import_release_through_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let fx = fixture();
    let fx = fx.to_str().unwrap();
    let (ok, rep, err) = crucible(
        &data,
        &[
            "pilot",
            "selftest",
            "--tasks-dir",
            fx,
            "--seeds",
            "7,8",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(
        (rep["passed"].as_bool(), rep["tasks"].as_u64()),
        (Some(true), Some(48))
    );
    assert_eq!(rep["seeds"], serde_json::json!([7, 8]));

    let (ok, imp, err) = crucible(
        &data,
        &["pilot", "import-release", fx, "--name", "pr", "--json"],
    );
    assert!(ok, "{err}");
    assert_eq!(imp["tasks"].as_u64(), Some(48));
    let pack = data.join("packs/pr");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(pack.join("pack.json")).unwrap()).unwrap();
    assert_eq!(manifest["benchmark"], "pilot");
    assert!(
        !pack.join("README.md").exists(),
        "only the release's own files are copied"
    );
    let (ok, list, err) = crucible(&data, &["packs", "list", "--json"]);
    assert!(ok, "{err}");
    let p = list
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "pr")
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(
        (p["benchmark"].as_str(), p["tasks"].as_u64()),
        (Some("pilot"), Some(48))
    );
    // Importing again under the same name is refused and leaves the first import intact.
    let (ok, _, err) = crucible(&data, &["pilot", "import-release", fx, "--name", "pr"]);
    assert!(!ok && err.contains("exists already"), "{err}");
    assert!(pack.join("pack.json").is_file());
    // A folder that is not the release is refused by name.
    let (ok, _, err) = crucible(
        &data,
        &[
            "pilot",
            "import-release",
            tmp.path().to_str().unwrap(),
            "--name",
            "x",
        ],
    );
    assert!(
        !ok && err.contains("not a PILOT-Bench release folder"),
        "{err}"
    );
    assert!(!data.join("packs/x").exists());
}
