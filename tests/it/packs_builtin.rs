//! The build verifies the built-in packs: every built-in pack's full self-test (QuestBench
//! references 100 and known-wrong answers caught, Intent2Tx ground truths perfect, PILOT-Bench
//! optimal plans succeeding) passes here, on exactly the content whose hash the shipped record
//! `assets/builtin-packs-verified.json` names. The app then shows built-in packs as verified on a
//! fresh install instead of "Not verified".
//!
//! After changing a built-in task, re-record (it re-runs every self-test):
//! `CRUCIBLE_UPDATE_PACK_RECORD=1 cargo test --test it packs_builtin`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::support::crucible_json;

/// A verdict without its time (which differs between runs of the same content).
fn timeless(mut v: Value) -> Value {
    if let Some(m) = v.as_object_mut() {
        m.remove("at");
    }
    v
}

#[test]
fn every_built_in_pack_passes_its_self_test_and_the_shipped_record_names_that_content() {
    let data = tempfile::tempdir().unwrap();
    let record_file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(crucible_catalog::selftest::SHIPPED_VERDICTS);
    let shipped: BTreeMap<String, Value> = std::fs::read_to_string(&record_file)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let list = crucible_json(data.path(), &["packs", "list", "--json"]);
    let builtin: Vec<&Value> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["origin"] == "builtin")
        .collect();
    assert!(builtin.len() >= 3, "{list}");
    let mut fresh = BTreeMap::new();
    for p in &builtin {
        let (name, bench) = (
            p["name"].as_str().unwrap(),
            p["benchmark"].as_str().unwrap(),
        );
        let out = crucible_json(
            data.path(),
            &["selftest", "--bench", bench, "--pack", name, "--json"],
        );
        let verdict = out["verdict"].clone();
        assert_eq!(verdict["passed"], true, "{name}: {verdict}");
        assert_eq!(
            verdict["hash"], p["hash"],
            "{name}: the self-test ran on the listed content"
        );
        let mut kept = verdict.clone();
        // The record keeps its date while the content is the same.
        if let Some(old) = shipped.get(name) {
            if timeless(old.clone()) == timeless(verdict) {
                kept = old.clone();
            }
        }
        fresh.insert(name.to_string(), kept);
    }
    if std::env::var_os("CRUCIBLE_UPDATE_PACK_RECORD").is_some() {
        let text = serde_json::to_string_pretty(&fresh).unwrap() + "\n";
        std::fs::write(&record_file, text).unwrap();
        return;
    }
    let strip = |m: &BTreeMap<String, Value>| -> BTreeMap<String, Value> {
        m.iter()
            .map(|(k, v)| (k.clone(), timeless(v.clone())))
            .collect()
    };
    assert_eq!(
        strip(&fresh),
        strip(&shipped),
        "{} is stale: a built-in pack changed. Re-record it (re-runs every self-test): \
         CRUCIBLE_UPDATE_PACK_RECORD=1 cargo test --test it packs_builtin",
        record_file.display()
    );

    // A fresh install lists every built-in pack as verified (by the build's record).
    let fresh_data = tempfile::tempdir().unwrap();
    let listed = crucible_json(fresh_data.path(), &["packs", "list", "--json"]);
    for p in listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["origin"] == "builtin")
    {
        assert_eq!(p["selftest"]["passed"], true, "{p}");
    }
}
