//! The real-tool set on the real MCP servers (installed by `.ci/mcp-servers`).

use std::sync::Arc;

use crucible_core::{run_builtin, Benchmark, Config};
use crucible_mcp::Installation;
use crucible_pilot::real::{FaultMode, RealToolBench, RealToolSet};

fn bench(faults: FaultMode) -> RealToolBench {
    let config = Config::test();
    let set = RealToolSet::load(&config.project_dir.join("tasks/pilot-real-tools")).unwrap();
    RealToolBench::new(Arc::new(set), Installation::from_config(&config).unwrap())
        .with_faults(faults)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_solves_every_task_with_faults_off() {
    let b = bench(FaultMode::Off);
    assert_eq!(b.set().tasks.len(), 24);
    let tools = b.set().tools();
    assert!(tools.len() >= 15, "{tools:?}");
    let catalog = b.catalog().await.unwrap();
    for t in &tools {
        assert!(catalog.find(t).is_some(), "{t} is not served");
    }
    for task in &b.set().tasks {
        let instance = format!("{}#optimal", task.id);
        let rec = run_builtin(&b, "reference", &instance, 7, &mut |_| {})
            .await
            .unwrap();
        assert!(
            rec.passed,
            "{instance}: {}\n{}",
            serde_json::to_string_pretty(&rec.details["evaluation"]).unwrap(),
            serde_json::to_string_pretty(&rec.details["calls"]).unwrap()
        );
        assert_eq!(rec.details["faults"], "off");
        assert!(rec.details["calls"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["injected"] == false && c["success"] == true));
    }
}
