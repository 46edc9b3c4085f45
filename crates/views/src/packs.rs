//! Content packs: folders of tasks laid out like `tasks/<benchmark>/` — QuestBench task files with
//! their solutions, an Intent2Tx `instances.jsonl`, or a PILOT `registry.json` + `tasks.jsonl` —
//! with an optional `pack.json` (`name`, `version`, `benchmark`, `description`, `source`). A plain
//! folder of task files is a pack too.
//!
//! Packs come from the project's `tasks/` (the built-in ones), from `<data dir>/packs/` and from
//! folders the user adds (`<data dir>/packs.json`). Each is listed with its task count and a
//! content hash (SHA-256 over every file's relative path and bytes), or with the error that keeps
//! it from loading — naming the file and field — while the other packs still list.
//!
//! Only discovery and registration live here so far; runs still read the built-in content
//! (`catalog`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use ts_rs::TS;

use crucible_core::Config;

/// One content pack as listed.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PackInfo {
    /// Unique name (`pack.json`'s, else the folder's; built-in packs are `builtin-…`).
    pub name: String,
    /// `questbench`, `intent2tx` or `pilot`.
    pub benchmark: String,
    /// The folder.
    #[ts(type = "string")]
    pub path: PathBuf,
    /// Tasks (QuestBench task files, Intent2Tx instances, PILOT tasks); 0 when it does not load.
    pub tasks: usize,
    /// SHA-256 of the pack's content, hex.
    pub hash: String,
    /// Where it comes from: `builtin`, `data_dir` or `added`.
    pub origin: String,
    /// `pack.json`'s description, if any.
    pub description: Option<String>,
    /// `pack.json`'s version, if any.
    pub version: Option<String>,
    /// Why the pack does not load (file and field), if it does not.
    pub error: Option<String>,
}

/// `pack.json`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    name: Option<String>,
    version: Option<String>,
    benchmark: Option<String>,
    description: Option<String>,
    #[allow(dead_code)]
    source: Option<String>,
}

/// The user's added folders (`<data dir>/packs.json`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Registered {
    folders: Vec<PathBuf>,
}

/// Why a pack cannot be added or removed.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// A file could not be read or written.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The folder is not a loadable pack.
    #[error("{0}")]
    Invalid(String),
    /// Another pack has the name.
    #[error("a pack named {name:?} is already listed ({})", existing.display())]
    Duplicate {
        /// The name.
        name: String,
        /// The folder of the pack that has it.
        existing: PathBuf,
    },
    /// No added pack has the name.
    #[error("no added pack is named {0:?} (built-in packs and packs in the data dir cannot be removed here; `crucible packs list` shows the names)")]
    Unknown(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PackError + '_ {
    move |e| PackError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn registry_file(config: &Config) -> PathBuf {
    config.data_dir.join("packs.json")
}

fn registered(config: &Config) -> Result<Registered, PackError> {
    let file = registry_file(config);
    match std::fs::read_to_string(&file) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| PackError::Io {
            path: file.clone(),
            message: format!("not a pack list: {e}"),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Registered::default()),
        Err(e) => Err(io(&file)(e)),
    }
}

/// Every pack: the built-in ones, `<data dir>/packs/*`, then the added folders. A pack that does
/// not load is listed with its error.
pub fn list(config: &Config) -> Result<Vec<PackInfo>, PackError> {
    let tasks = config.project_dir.join("tasks");
    let mut out = vec![
        inspect(&tasks.join("questbench"), "builtin-questbench", "builtin"),
        inspect(
            &tasks.join("intent2tx/default"),
            "builtin-intent2tx",
            "builtin",
        ),
        inspect(
            &tasks.join("intent2tx/paper"),
            "builtin-intent2tx-paper",
            "builtin",
        ),
        inspect(&tasks.join("pilot"), "builtin-pilot", "builtin"),
    ];
    let dir = config.data_dir.join("packs");
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut folders: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        folders.sort();
        out.extend(folders.iter().map(|f| inspect(f, "", "data_dir")));
    }
    for f in registered(config)?.folders {
        out.push(inspect(&f, "", "added"));
    }
    // A name listed twice: every later one says so (the first keeps it).
    for i in 1..out.len() {
        if let Some(first) = out[..i].iter().find(|p| p.name == out[i].name) {
            let msg = format!(
                "the name {:?} is already used by {}; give this pack another name in its pack.json",
                first.name,
                first.path.display()
            );
            out[i].error.get_or_insert(msg);
        }
    }
    Ok(out)
}

/// Adds folder `dir` as a pack; the folder must load. Returns it as listed.
pub fn add(config: &Config, dir: &Path) -> Result<PackInfo, PackError> {
    let dir = dir.canonicalize().map_err(io(dir))?;
    let info = inspect(&dir, "", "added");
    if let Some(e) = &info.error {
        return Err(PackError::Invalid(e.clone()));
    }
    if let Some(p) = list(config)?
        .into_iter()
        .find(|p| p.name == info.name || p.path == dir)
    {
        return Err(PackError::Duplicate {
            name: info.name,
            existing: p.path,
        });
    }
    let mut reg = registered(config)?;
    reg.folders.push(dir);
    write_registry(config, &reg)?;
    Ok(info)
}

/// Removes the added pack `name` from the list (its folder is left as it is).
pub fn remove(config: &Config, name: &str) -> Result<PackInfo, PackError> {
    let found = list(config)?
        .into_iter()
        .find(|p| p.name == name && p.origin == "added")
        .ok_or_else(|| PackError::Unknown(name.to_string()))?;
    let mut reg = registered(config)?;
    reg.folders.retain(|f| f != &found.path);
    write_registry(config, &reg)?;
    Ok(found)
}

fn write_registry(config: &Config, reg: &Registered) -> Result<(), PackError> {
    let file = registry_file(config);
    std::fs::create_dir_all(&config.data_dir).map_err(io(&config.data_dir))?;
    let text = serde_json::to_string_pretty(reg).map_err(|e| PackError::Invalid(e.to_string()))?;
    // Written whole then renamed: a failure leaves the previous list.
    let tmp = file.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &file).map_err(io(&file))
}

/// A folder as a pack: its manifest, benchmark, task count and hash, or the error.
fn inspect(dir: &Path, builtin_name: &str, origin: &str) -> PackInfo {
    let mut info = PackInfo {
        name: if builtin_name.is_empty() {
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        } else {
            builtin_name.to_string()
        },
        benchmark: String::new(),
        path: dir.to_path_buf(),
        tasks: 0,
        hash: String::new(),
        origin: origin.to_string(),
        description: None,
        version: None,
        error: None,
    };
    if let Err(e) = fill(dir, builtin_name.is_empty(), &mut info) {
        info.error = Some(e);
    }
    info
}

fn fill(dir: &Path, use_manifest_name: bool, info: &mut PackInfo) -> Result<(), String> {
    if !dir.is_dir() {
        return Err(format!("{}: not a folder", dir.display()));
    }
    let manifest_path = dir.join("pack.json");
    let manifest: Manifest = match std::fs::read_to_string(&manifest_path) {
        Ok(text) => {
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", manifest_path.display()))?
        }
        Err(_) => Manifest::default(),
    };
    if use_manifest_name {
        if let Some(n) = manifest.name.filter(|n| !n.trim().is_empty()) {
            info.name = n;
        }
    }
    info.description = manifest.description;
    info.version = manifest.version;
    info.hash = content_hash(dir)?;
    let bench = match manifest.benchmark.as_deref() {
        Some(b @ ("questbench" | "intent2tx" | "pilot")) => b.to_string(),
        Some(other) => {
            return Err(format!(
                "{}: benchmark: {other:?} is not one of questbench, intent2tx, pilot",
                manifest_path.display()
            ))
        }
        None if dir.join("instances.jsonl").is_file() => "intent2tx".into(),
        None if dir.join("registry.json").is_file() => "pilot".into(),
        None if crucible_pilot::release::is_release_dir(dir) => "pilot".into(),
        None => "questbench".into(),
    };
    info.benchmark = bench.clone();
    info.tasks = match bench.as_str() {
        "intent2tx" => {
            let file = dir.join("instances.jsonl");
            crucible_intent2tx::import::load_clean(&file)
                .map_err(|e| format!("{}: {e}", file.display()))?
                .len()
        }
        "pilot" => crucible_pilot::task::TaskLibrary::load(dir)
            .map_err(|e| e.to_string())?
            .tasks
            .len(),
        _ => {
            let tasks = crucible_questbench::task::load_dir(dir).map_err(|e| e.to_string())?;
            if tasks.is_empty() {
                return Err(format!("{}: no task files", dir.display()));
            }
            tasks.len()
        }
    };
    Ok(())
}

/// SHA-256 over every regular file's path (relative, `/`-separated) and bytes, in path order. A
/// symbolic link is refused: content must live inside the pack.
fn content_hash(dir: &Path) -> Result<String, String> {
    let mut files = Vec::new();
    walk(dir, dir, &mut files)?;
    files.sort();
    let mut h = Sha256::new();
    for rel in files {
        let bytes = std::fs::read(dir.join(&rel))
            .map_err(|e| format!("{}: {e}", dir.join(&rel).display()))?;
        h.update(rel.as_bytes());
        h.update([0]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(hex::encode(h.finalize()))
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let path = e.path();
        let ty = e
            .file_type()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if ty.is_symlink() {
            return Err(format!(
                "{}: a symbolic link; a pack's files must be inside its folder",
                path.display()
            ));
        }
        if ty.is_dir() {
            walk(root, &path, out)?;
        } else if ty.is_file() {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            out.push(
                rel.components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/"),
            );
        }
    }
    Ok(())
}
