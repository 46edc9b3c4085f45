//! The system status: one read-only snapshot of what this installation can do right now — the
//! Crucible version, where data lives, whether each external tool (Anvil, Deno, bubblewrap) was
//! found or how to install it, and which offline universe profiles have been built.
//!
//! It owns no state and starts nothing: it only asks [`Config`] for tool discovery and looks at
//! `assets/universe/<profile>/manifest.json`. A missing tool or universe is a normal answer, not an
//! error, so the desktop app's "System" page and first-start guide can always render it.

use std::path::Path;

use serde::Serialize;
use ts_rs::TS;

use crucible_core::{Config, ConfigError};

/// The universe profiles Crucible knows how to build (`crucible universe build --profile …`).
pub const KNOWN_PROFILES: [&str; 2] = ["bsc", "eth"];

/// Largest manifest we read; anything bigger is reported as unreadable rather than loaded.
const MAX_MANIFEST_BYTES: u64 = 16 * 1024 * 1024;

/// Everything the "System" page shows, as one serialisable value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct SystemStatus {
    /// Crucible's version ([`crucible_core::VERSION`]).
    pub version: String,
    /// Where runs, caches and per-run chain state live.
    pub data_dir: String,
    /// The content directory that holds `assets/`, `tasks/` and `node_modules/`: the
    /// installation's, or a project checkout.
    pub project_dir: String,
    /// Where that directory came from, in words ("installed with the app", …).
    pub content_origin: String,
    /// The build (version, commit, date) and the digests of the content it reads: the About box.
    pub build: crucible_core::BuildInfo,
    /// One entry per external tool, always in the order anvil, deno, bwrap.
    pub tools: Vec<ToolStatus>,
    /// The known profiles (bsc, eth) first, then any other built profile, by name.
    pub universes: Vec<UniverseStatus>,
}

/// Whether one external tool was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ToolStatus {
    /// The program's name: `anvil`, `deno` or `bwrap`.
    pub name: String,
    /// What Crucible needs it for, in a few words.
    pub purpose: String,
    /// Its resolved path, or why it is missing and how to install it.
    pub location: ToolLocation,
    /// The pinned package the app's Install button downloads (e.g.
    /// `@foundry-rs/anvil-linux-amd64 1.7.1`); `None` when the app cannot install it here.
    pub package: Option<String>,
    /// How to get it when the app cannot install it, in words; `None` when Install can.
    pub install_instead: Option<String>,
}

/// The result of tool discovery (explicit config → `PATH` → the project's `node_modules`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolLocation {
    /// The tool was found at this path.
    Found {
        /// The resolved executable.
        path: String,
        /// Where it was found, in words ("installed with the app", "found on the PATH", …).
        origin: String,
    },
    /// The tool was not found; the message says where we looked and how to install it.
    Missing {
        /// The discovery error's message.
        message: String,
    },
}

/// Whether one universe profile has been built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct UniverseStatus {
    /// The profile's name, e.g. `bsc`.
    pub profile: String,
    /// Where its manifest is (or would be).
    pub manifest: String,
    /// Built, not built, or present but unreadable.
    pub state: UniverseState,
}

/// The state of one universe profile on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UniverseState {
    /// The manifest exists and is JSON.
    Built {
        /// The manifest's `chain_id`, if it states one.
        #[ts(type = "number | null")]
        chain_id: Option<u64>,
        /// How many named contracts the manifest's `contracts` field lists, if it has one.
        #[ts(type = "number | null")]
        contracts: Option<u64>,
    },
    /// No manifest: run `crucible universe build --profile <profile>`.
    NotBuilt,
    /// A manifest exists but cannot be read or is not JSON.
    Unreadable {
        /// What went wrong, naming the file.
        message: String,
    },
}

/// Takes the snapshot. Never fails: every problem is reported inside the status.
pub fn system_status(config: &Config) -> SystemStatus {
    let tool =
        |name: &str,
         purpose: &str,
         found: Result<(std::path::PathBuf, crucible_core::ToolOrigin), ConfigError>| {
            let which = crucible_ops::setup::Tool::try_from_name(name).ok();
            let package = which.and_then(crucible_ops::install::Package::for_tool);
            ToolStatus {
                name: name.to_string(),
                package: package.map(|p| format!("{} {}", p.name, p.version)),
                install_instead: match (which, package) {
                    (Some(t), None) => {
                        Some(crucible_ops::install::why_not_installable(t).to_string())
                    }
                    _ => None,
                },
                purpose: purpose.to_string(),
                location: match found {
                    Ok((path, origin)) => ToolLocation::Found {
                        path: path.display().to_string(),
                        origin: origin.describe().to_string(),
                    },
                    Err(e) => ToolLocation::Missing {
                        message: e.to_string(),
                    },
                },
            }
        };
    let tools = vec![
        tool(
            "anvil",
            "local EVM chain for EVM-QuestBench and Intent2Tx",
            config.locate_anvil(),
        ),
        tool(
            "deno",
            "sandbox for model-written TypeScript",
            config.locate_deno(),
        ),
        tool(
            "bwrap",
            "file-system isolation around the sandbox",
            config.locate_bwrap(),
        ),
    ];
    let status = SystemStatus {
        version: crucible_core::VERSION.to_string(),
        data_dir: config.data_dir.display().to_string(),
        project_dir: config.project_dir.display().to_string(),
        content_origin: config.content_origin.describe().to_string(),
        build: crucible_core::BuildInfo::of(config),
        tools,
        universes: universes(&config.assets_dir().join("universe")),
    };
    tracing::debug!(target: "status", tools = ?status.tools, "system status taken");
    status
}

/// The known profiles, then every other directory under `root` that has a manifest, by name.
fn universes(root: &Path) -> Vec<UniverseStatus> {
    let mut extra: Vec<String> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.path().join("manifest.json").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| !KNOWN_PROFILES.contains(&name.as_str()))
        .collect();
    extra.sort();
    KNOWN_PROFILES
        .iter()
        .map(|p| p.to_string())
        .chain(extra)
        .map(|profile| {
            let manifest = root.join(&profile).join("manifest.json");
            UniverseStatus {
                state: read_manifest(&manifest),
                manifest: manifest.display().to_string(),
                profile,
            }
        })
        .collect()
}

fn read_manifest(path: &Path) -> UniverseState {
    let unreadable = |why: String| UniverseState::Unreadable {
        message: format!("manifest {}: {why}", path.display()),
    };
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return UniverseState::NotBuilt,
        Err(e) => return unreadable(e.to_string()),
        Ok(m) if m.len() > MAX_MANIFEST_BYTES => {
            return unreadable(format!(
                "{} bytes is larger than the {MAX_MANIFEST_BYTES}-byte limit",
                m.len()
            ))
        }
        Ok(_) => {}
    }
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return unreadable(e.to_string()),
    };
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => UniverseState::Built {
            chain_id: v.get("chain_id").and_then(serde_json::Value::as_u64),
            contracts: v.get("contracts").and_then(|c| match c {
                serde_json::Value::Array(a) => Some(a.len() as u64),
                serde_json::Value::Object(o) => Some(o.len() as u64),
                _ => None,
            }),
        },
        Err(e) => unreadable(format!("not valid JSON: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(manifests: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (profile, body) in manifests {
            let d = dir.path().join("assets/universe").join(profile);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("manifest.json"), body).unwrap();
        }
        dir
    }

    fn executable(dir: &Path, name: &str) -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// (profile, manifest body) pairs written under `assets/universe/`.
    type Manifests<'a> = Vec<(&'a str, &'a str)>;

    #[test]
    fn universe_states_from_disk() {
        // (manifests on disk, expected (profile, state) in order)
        let cases: Vec<(Manifests, Vec<(&str, UniverseState)>)> = vec![
            (
                vec![],
                vec![
                    ("bsc", UniverseState::NotBuilt),
                    ("eth", UniverseState::NotBuilt),
                ],
            ),
            (
                vec![(
                    "bsc",
                    r#"{"chain_id":56,"contracts":{"WBNB":"0xbb","CAKE":"0x0e"}}"#,
                )],
                vec![
                    (
                        "bsc",
                        UniverseState::Built {
                            chain_id: Some(56),
                            contracts: Some(2),
                        },
                    ),
                    ("eth", UniverseState::NotBuilt),
                ],
            ),
            (
                vec![
                    ("eth", r#"{"contracts":[{"name":"WETH"}]}"#),
                    ("zz-custom", "{}"),
                    ("arb", "[]"),
                ],
                vec![
                    ("bsc", UniverseState::NotBuilt),
                    (
                        "eth",
                        UniverseState::Built {
                            chain_id: None,
                            contracts: Some(1),
                        },
                    ),
                    (
                        "arb",
                        UniverseState::Built {
                            chain_id: None,
                            contracts: None,
                        },
                    ),
                    (
                        "zz-custom",
                        UniverseState::Built {
                            chain_id: None,
                            contracts: None,
                        },
                    ),
                ],
            ),
        ];
        for (manifests, expected) in cases {
            let dir = project(&manifests);
            let cfg = Config {
                project_dir: dir.path().into(),
                ..Config::test()
            };
            let got: Vec<(String, UniverseState)> = system_status(&cfg)
                .universes
                .into_iter()
                .map(|u| (u.profile, u.state))
                .collect();
            let want: Vec<(String, UniverseState)> = expected
                .into_iter()
                .map(|(p, s)| (p.to_string(), s))
                .collect();
            assert_eq!(got, want, "manifests {manifests:?}");
        }
    }

    #[test]
    fn broken_manifest_is_reported_with_its_path_not_a_panic() {
        let dir = project(&[("bsc", "{\"chain_id\": 56,")]);
        let cfg = Config {
            project_dir: dir.path().into(),
            ..Config::test()
        };
        let bsc = &system_status(&cfg).universes[0];
        match &bsc.state {
            UniverseState::Unreadable { message } => {
                assert!(message.contains("bsc/manifest.json"), "{message}");
                assert!(message.contains("not valid JSON"), "{message}");
            }
            other => panic!("expected unreadable, got {other:?}"),
        }
    }

    #[test]
    fn tools_report_path_or_install_hint() {
        let bin = tempfile::tempdir().unwrap();
        let anvil = executable(bin.path(), "anvil");
        let cfg = Config {
            anvil_path: Some(anvil.clone()),
            deno_path: Some("/nonexistent/deno".into()),
            bwrap_path: Some("/nonexistent/bwrap".into()),
            ..Config::test()
        };
        let tools = system_status(&cfg).tools;
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["anvil", "deno", "bwrap"]);
        assert_eq!(
            tools[0].location,
            ToolLocation::Found {
                path: anvil.display().to_string(),
                origin: "chosen in the settings".into()
            }
        );
        // (index, text the message must contain): the path we tried and how to install.
        let missing = [
            (1, "/nonexistent/deno"),
            (1, "npm ci"),
            (2, "/nonexistent/bwrap"),
            (2, "apt-get install bubblewrap"),
        ];
        for (i, needle) in missing {
            match &tools[i].location {
                ToolLocation::Missing { message } => assert!(message.contains(needle), "{message}"),
                other => panic!("{} should be missing, got {other:?}", tools[i].name),
            }
        }
    }

    #[test]
    fn status_matches_config_discovery_and_is_stable() {
        let cfg = Config::test();
        let a = system_status(&cfg);
        assert_eq!(a, system_status(&cfg), "same config, same status");
        assert_eq!(a.version, crucible_core::VERSION);
        assert_eq!(a.data_dir, cfg.data_dir.display().to_string());
        let expect =
            |r: Result<(std::path::PathBuf, crucible_core::ToolOrigin), ConfigError>| match r {
                Ok((p, o)) => ToolLocation::Found {
                    path: p.display().to_string(),
                    origin: o.describe().into(),
                },
                Err(e) => ToolLocation::Missing {
                    message: e.to_string(),
                },
            };
        assert_eq!(a.tools[0].location, expect(cfg.locate_anvil()));
        assert_eq!(a.tools[1].location, expect(cfg.locate_deno()));
        assert_eq!(a.tools[2].location, expect(cfg.locate_bwrap()));
        // The content of a test is the checkout's, and the About box names it.
        assert_eq!(
            a.content_origin,
            "the project checkout this build was made from"
        );
        assert_eq!(a.build.content_dir, a.project_dir);
    }

    #[test]
    fn json_shape_the_ui_reads() {
        let dir = project(&[("bsc", r#"{"chain_id":56}"#)]);
        let cfg = Config {
            project_dir: dir.path().into(),
            deno_path: Some("/nonexistent/deno".into()),
            ..Config::test()
        };
        let v = serde_json::to_value(system_status(&cfg)).unwrap();
        assert_eq!(v["tools"][1]["name"], "deno");
        assert_eq!(v["tools"][1]["location"]["kind"], "missing");
        assert!(v["tools"][1]["location"]["message"]
            .as_str()
            .unwrap()
            .contains("npm ci"));
        assert_eq!(
            v["universes"][0]["state"],
            serde_json::json!({"kind":"built","chain_id":56,"contracts":null})
        );
        assert_eq!(
            v["universes"][1]["state"],
            serde_json::json!({"kind":"not_built"})
        );
    }

    #[tokio::test]
    async fn builds_a_missing_universe_on_a_real_anvil() {
        // A project with the real contract artifacts and no built universe.
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(project.path().join("assets")).unwrap();
        let real = Config::test();
        std::os::unix::fs::symlink(
            real.assets_dir().join("artifacts"),
            project.path().join("assets/artifacts"),
        )
        .unwrap();
        let cfg = Config {
            project_dir: project.path().into(),
            anvil_path: Some(real.anvil().expect("the project's anvil (npm ci)")),
            ..Config::test()
        };
        let before = system_status(&cfg);
        assert_eq!(before.universes[0].state, UniverseState::NotBuilt);
        let built =
            crucible_ops::setup::build_universe(&cfg, crucible_ops::setup::profile("bsc").unwrap())
                .await
                .unwrap();
        assert!(built.contracts > 0 && built.pairs > 0, "{built:?}");
        let after = system_status(&cfg);
        assert!(
            matches!(
                after.universes[0].state,
                UniverseState::Built {
                    chain_id: Some(56),
                    ..
                }
            ),
            "{:?}",
            after.universes[0]
        );
        // Without Anvil the build says so, as a missing tool.
        let cfg = Config {
            anvil_path: Some("/nonexistent/anvil".into()),
            project_dir: project.path().into(),
            ..Config::test()
        };
        let err = crucible_ops::setup::build_universe(&cfg, crucible_chain::Profile::Eth)
            .await
            .unwrap_err();
        assert!(err.is_tool_missing(), "{err}");
        assert!(crucible_ops::setup::profile("moon")
            .unwrap_err()
            .is_user_input());
    }
}
