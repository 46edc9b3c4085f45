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
//! A run names its packs ([`pin`] fills in each one's folder, benchmark and per-file digests when
//! the run starts); resume and re-score reload them through [`verify`], which names the file that
//! changed since.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use ts_rs::TS;

use crucible_core::Config;

use crate::plugins::Registry;

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
    /// Where it comes from: `builtin`, `studio` (saved in the task studio), `data_dir` or `added`.
    pub origin: String,
    /// `pack.json`'s description, if any.
    pub description: Option<String>,
    /// `pack.json`'s version, if any.
    pub version: Option<String>,
    /// Why the pack does not load (file and field), if it does not.
    pub error: Option<String>,
    /// The last full self-test on this exact content (`None`: never self-tested, or the pack
    /// changed since): "verified" when it passed.
    pub selftest: Option<crate::selftest::PackVerdict>,
    /// `pack.json`'s fork default, for people: "URL at block N" with credentials removed.
    pub fork: Option<String>,
    /// `pack.json`'s fork default as written (URL with credentials, block); never shown.
    #[serde(skip)]
    #[ts(skip)]
    pub fork_default: Option<(String, u64)>,
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
    /// Runs reading this pack fork this RPC at this block unless the run names its own chain.
    fork: Option<ManifestFork>,
}

/// `pack.json`'s `fork`: `{"url", "block"}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFork {
    url: String,
    block: u64,
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
    list_in(config, Registry::builtin())
}

/// [`list`] over the benchmarks of `reg`.
pub fn list_in(config: &Config, reg: &Registry) -> Result<Vec<PackInfo>, PackError> {
    let tasks = config.project_dir.join("tasks");
    let mut out: Vec<PackInfo> = reg
        .builtin_packs()
        .map(|(_, b)| inspect(reg, &tasks.join(b.dir), b.name, "builtin"))
        .collect();
    // The studio's folders: tasks saved there are a pack at once.
    let studio = config.data_dir.join("tasks");
    for p in reg.iter() {
        for s in p.studio_packs(&studio) {
            out.push(inspect(reg, &s.dir, s.name.unwrap_or(""), "studio"));
        }
    }
    let dir = config.data_dir.join("packs");
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut folders: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        folders.sort();
        out.extend(folders.iter().map(|f| inspect(reg, f, "", "data_dir")));
    }
    for f in registered(config)?.folders {
        out.push(inspect(reg, &f, "", "added"));
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
    for p in out.iter_mut().filter(|p| p.origin == "builtin") {
        if let Some((_, b)) = reg.builtin_packs().find(|(_, b)| b.name == p.name) {
            p.description
                .get_or_insert_with(|| b.description.to_string());
        }
    }
    let verdicts = crate::selftest::verdicts(config);
    let shipped = crate::selftest::shipped_verdicts(config);
    for p in &mut out {
        let current = |v: &&crate::selftest::PackVerdict| v.hash == p.hash && p.error.is_none();
        // This machine's own self-test first; else, for a built-in pack, the build's.
        p.selftest = verdicts.get(&p.name).filter(current).cloned().or_else(|| {
            (p.origin == "builtin")
                .then(|| shipped.get(&p.name).filter(current).cloned())
                .flatten()
        });
    }
    Ok(out)
}

/// Adds folder `dir` as a pack; the folder must load. Returns it as listed.
pub fn add(config: &Config, dir: &Path) -> Result<PackInfo, PackError> {
    let dir = dir.canonicalize().map_err(io(dir))?;
    let info = inspect(Registry::builtin(), &dir, "", "added");
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
    crucible_core::durable::write_file(&file, text.as_bytes()).map_err(io(&file))
}

/// A folder as a pack: its manifest, benchmark, task count and hash, or the error.
fn inspect(reg: &Registry, dir: &Path, builtin_name: &str, origin: &str) -> PackInfo {
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
        selftest: None,
        fork: None,
        fork_default: None,
    };
    // Loading a pack's tasks to count them is the slow part (a plan preview pins packs on
    // every form change): a pack whose content hash is unchanged is not loaded again.
    // Keyed by the benchmarks known too: another registry may read the same folder otherwise.
    type Seen = std::sync::Mutex<BTreeMap<(PathBuf, String, String, String), PackInfo>>;
    static SEEN: std::sync::OnceLock<Seen> = std::sync::OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    let hash = content_hash(dir).ok();
    if let Some(h) = &hash {
        let key = (
            dir.to_path_buf(),
            builtin_name.to_string(),
            h.clone(),
            reg.names().join(","),
        );
        if let Some(hit) = seen.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return PackInfo {
                origin: origin.to_string(),
                ..hit
            };
        }
    }
    if let Err(e) = fill(reg, dir, builtin_name.is_empty(), &mut info) {
        info.error = Some(e);
    }
    if let (Some(h), Ok(mut m)) = (hash, seen.lock()) {
        m.insert(
            (
                dir.to_path_buf(),
                builtin_name.to_string(),
                h,
                reg.names().join(","),
            ),
            info.clone(),
        );
    }
    info
}

fn fill(
    reg: &Registry,
    dir: &Path,
    use_manifest_name: bool,
    info: &mut PackInfo,
) -> Result<(), String> {
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
    if let Some(f) = manifest.fork {
        crucible_chain::fork::check_url(&f.url)
            .map_err(|e| format!("{}: fork.url: {e}", manifest_path.display()))?;
        if f.block == 0 {
            return Err(format!(
                "{}: fork.block: must be at least 1",
                manifest_path.display()
            ));
        }
        info.fork = Some(format!(
            "{} at block {}",
            crucible_chain::fork::redact_url(&f.url),
            f.block
        ));
        info.fork_default = Some((f.url, f.block));
    }
    info.hash = content_hash(dir)?;
    let plugin = match manifest.benchmark.as_deref() {
        Some(b) => reg.get(b).ok_or_else(|| {
            format!(
                "{}: benchmark: {b:?} is not one of {}",
                manifest_path.display(),
                reg.names().join(", ")
            )
        })?,
        None => reg
            .recognise(dir)
            .ok_or_else(|| format!("{}: no benchmark's content", dir.display()))?,
    };
    info.benchmark = plugin.name().to_string();
    info.tasks = plugin.count_tasks(dir).map_err(|e| e.to_string())?;
    Ok(())
}

/// SHA-256 of a pack's content: over every file's relative path and its own SHA-256
/// ([`file_digests`]), in path order. A symbolic link is refused: content must live inside the
/// pack.
fn content_hash(dir: &Path) -> Result<String, String> {
    Ok(hash_of(&file_digests(dir)?))
}

fn hash_of(files: &BTreeMap<String, String>) -> String {
    let mut h = Sha256::new();
    for (rel, digest) in files {
        h.update(rel.as_bytes());
        h.update([0]);
        h.update(digest.as_bytes());
        h.update([b'\n']);
    }
    hex::encode(h.finalize())
}

/// Every regular file of a pack (relative path, `/`-separated) → the SHA-256 of its bytes. A
/// symbolic link anywhere is an error naming it.
pub(crate) fn file_digests(dir: &Path) -> Result<BTreeMap<String, String>, String> {
    let mut files = Vec::new();
    walk(dir, dir, &mut files)?;
    let mut out = BTreeMap::new();
    for rel in files {
        let bytes = std::fs::read(dir.join(&rel))
            .map_err(|e| format!("{}: {e}", dir.join(&rel).display()))?;
        out.insert(rel, hex::encode(Sha256::digest(&bytes)));
    }
    Ok(out)
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

/// The pack of the QuestBench tasks saved in the studio (`<data dir>/tasks/questbench`).
pub const STUDIO_QUEST: &str = crucible_questbench::plugin::STUDIO_PACK;

/// The folder of the listed pack named `name` (the first, as [`list`] names them), without
/// loading any pack: only each candidate folder's `pack.json` name is read.
fn locate(config: &Config, name: &str) -> Result<Option<PathBuf>, PackError> {
    let named = |dir: &Path| -> String {
        std::fs::read_to_string(dir.join("pack.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Manifest>(&t).ok())
            .and_then(|m| m.name)
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| {
                dir.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
    };
    let studio = config.data_dir.join("tasks");
    let mut folders: Vec<PathBuf> = Vec::new();
    for p in Registry::builtin().iter() {
        for s in p.studio_packs(&studio) {
            match s.name {
                Some(fixed) if fixed == name => return Ok(Some(s.dir)),
                Some(_) => {}
                None => folders.push(s.dir),
            }
        }
    }
    if let Ok(entries) = std::fs::read_dir(config.data_dir.join("packs")) {
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        found.sort();
        folders.extend(found);
    }
    folders.extend(registered(config)?.folders);
    Ok(folders.into_iter().find(|f| named(f) == name))
}

/// The folder of built-in pack `name`, if it is one.
pub fn builtin_dir(config: &Config, name: &str) -> Option<PathBuf> {
    Registry::builtin()
        .builtin_packs()
        .find(|(_, b)| b.name == name)
        .map(|(_, b)| config.project_dir.join("tasks").join(b.dir))
}

/// The built-in pack a run of `benchmark` reads when it names none of that benchmark
/// (its `dataset` option picks one: Intent2Tx's `paper` is the paper-shaped set).
pub fn default_pack(benchmark: &str, intent_dataset: &str) -> Option<&'static str> {
    Registry::builtin().default_pack(benchmark, intent_dataset)
}

/// Pins a new run's packs: each named pack (`spec.packs`, names only) is looked up, must load and
/// must be of one of the run's benchmarks; every benchmark without one gets its built-in pack.
/// Each gets its folder, benchmark, hash and per-file digests. Errors name the pack and why.
pub fn pin(config: &Config, spec: &mut crucible_run::RunSpec) -> Result<(), PackError> {
    let listed = list(config)?;
    let mut pinned = Vec::new();
    let find = |name: &str| -> Result<&PackInfo, PackError> {
        listed.iter().find(|p| p.name == name).ok_or_else(|| {
            PackError::Invalid(format!(
                "no pack is named {name:?}; packs: {} (`crucible packs list`)",
                listed
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    };
    // A pack named twice is read once.
    let mut names: Vec<String> = Vec::new();
    for p in &spec.packs {
        if !names.contains(&p.name) {
            names.push(p.name.clone());
        }
    }
    for b in &spec.benchmarks {
        if !names
            .iter()
            .any(|n| find(n).is_ok_and(|p| &p.benchmark == b))
        {
            // A benchmark's `dataset` option picks among its built-in packs.
            let options = spec.options_of(b);
            let dataset = options
                .get("dataset")
                .and_then(|v| v.as_str())
                .unwrap_or("");
            if let Some(d) = default_pack(b, dataset) {
                names.push(d.to_string());
            }
        }
    }
    for name in names {
        let info = find(&name)?;
        if let Some(e) = &info.error {
            return Err(PackError::Invalid(format!(
                "pack {name:?} does not load: {e}"
            )));
        }
        if !spec.benchmarks.contains(&info.benchmark) {
            return Err(PackError::Invalid(format!(
                "pack {name:?} holds {} tasks, but the run's benchmarks are {}; add --bench {}",
                info.benchmark,
                spec.benchmarks.join(", "),
                info.benchmark
            )));
        }
        let files = file_digests(&info.path).map_err(PackError::Invalid)?;
        pinned.push(crucible_run::PackRef {
            name: info.name.clone(),
            benchmark: info.benchmark.clone(),
            path: info.path.display().to_string(),
            hash: hash_of(&files),
            files,
        });
    }
    // A pack's fork default applies when the run names no chain of its own.
    if spec.fork.is_none() {
        let mut defaults: Vec<(&str, &(String, u64))> = Vec::new();
        for p in &pinned {
            if let Some(d) = listed
                .iter()
                .find(|i| i.name == p.name)
                .and_then(|i| i.fork_default.as_ref())
            {
                defaults.push((p.name.as_str(), d));
            }
        }
        if let Some((first, d)) = defaults.first() {
            if let Some((other, _)) = defaults.iter().find(|(_, o)| o != d) {
                return Err(PackError::Invalid(format!(
                    "packs {first:?} and {other:?} name different forks in their pack.json; give the run its own with --fork-url and --fork-block"
                )));
            }
            let fork = crucible_run::ForkSpec::new(&d.0, d.1)
                .map_err(|e| PackError::Invalid(format!("pack {first:?}: {e}")))?;
            let mut with = spec.clone();
            with.fork = Some(fork);
            *spec = with
                .validate_for(&[])
                .map_err(|e| PackError::Invalid(format!("pack {first:?}'s fork: {e}")))?;
        }
    }
    for p in Registry::builtin().iter() {
        if let Some((most, why)) = p.packs_per_run() {
            if pinned.iter().filter(|r| r.benchmark == p.name()).count() > most {
                return Err(PackError::Invalid(why.into()));
            }
        }
    }
    spec.packs = pinned;
    Ok(())
}

/// The folder of a pinned pack, found again by its name in this machine's own pack list (a
/// stored `path` is never opened: a spec read from a store is other people's data) and checked
/// against the digests stored when the run started: a changed, added or removed file is an
/// error naming it.
pub(crate) fn verify(config: &Config, pack: &crucible_run::PackRef) -> Result<PathBuf, String> {
    let dir = match builtin_dir(config, &pack.name) {
        Some(d) => d,
        None => locate(config, &pack.name)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| {
                format!(
                    "pack {:?} is not in this machine's pack list (`crucible packs list`); add it \
                 (`crucible packs add FOLDER`) to resume this run",
                    pack.name
                )
            })?,
    };
    if !dir.is_dir() {
        return Err(format!(
            "pack {:?}: its folder {} is gone; put it back to resume this run",
            pack.name,
            dir.display()
        ));
    }
    let now = file_digests(&dir).map_err(|e| format!("pack {:?}: {e}", pack.name))?;
    if now == pack.files {
        return Ok(dir);
    }
    let changed = |rel: &str, how: &str| {
        format!(
            "pack {:?} changed since the run started: {} was {how}; restore it (the run read hash {}) or start a new run",
            pack.name,
            dir.join(rel).display(),
            pack.hash.chars().take(12).collect::<String>()
        )
    };
    for (rel, digest) in &pack.files {
        match now.get(rel) {
            None => return Err(changed(rel, "removed")),
            Some(d) if d != digest => return Err(changed(rel, "edited")),
            _ => {}
        }
    }
    let added = now
        .keys()
        .find(|k| !pack.files.contains_key(*k))
        .cloned()
        .unwrap_or_default();
    Err(changed(&added, "added"))
}

/// A new pack folder `<data dir>/packs/NAME`: the name must be free (no listed pack has it) and a
/// plain name (letters, digits, `-`, `_`, `.`). Returns the folder, created.
pub fn new_pack_dir(config: &Config, name: &str) -> Result<PathBuf, PackError> {
    let plain = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !plain {
        return Err(PackError::Invalid(format!(
            "{name:?} is not a pack name: use letters, digits, '-', '_' or '.' (at most 64)"
        )));
    }
    if let Some(p) = list(config)?.into_iter().find(|p| p.name == name) {
        return Err(PackError::Duplicate {
            name: name.to_string(),
            existing: p.path,
        });
    }
    let dir = config.data_dir.join("packs").join(name);
    if dir.exists() {
        return Err(PackError::Duplicate {
            name: name.to_string(),
            existing: dir,
        });
    }
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    Ok(dir)
}

/// Writes an Intent2Tx import as pack `name` in `<data dir>/packs/`: `instances.jsonl` (the rows
/// that imported), `pack.json` (naming the source file) and `import-report.json` (every rejected
/// row with its error). Nothing is written when the name is taken.
pub fn write_intent_pack(
    config: &Config,
    name: &str,
    source: &Path,
    report: &crucible_intent2tx::import::ImportReport,
) -> Result<PackInfo, PackError> {
    if report.instances.is_empty() {
        return Err(PackError::Invalid(format!(
            "{}: no row imported ({} rejected), so there is no pack to write",
            source.display(),
            report.errors.len()
        )));
    }
    let dir = new_pack_dir(config, name)?;
    let write = || -> Result<(), PackError> {
        crucible_intent2tx::import::write_jsonl(&dir.join("instances.jsonl"), &report.instances)
            .map_err(|e| PackError::Invalid(e.to_string()))?;
        let manifest = serde_json::json!({
            "name": name,
            "benchmark": crucible_core::BenchmarkId::Intent2tx.as_str(),
            "version": "1",
            "description": format!(
                "imported from {}: {} of {} rows ({} rejected, see import-report.json)",
                source.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
                report.instances.len(),
                report.rows,
                report.errors.len()
            ),
            "source": source.display().to_string(),
        });
        let file = dir.join("pack.json");
        std::fs::write(
            &file,
            serde_json::to_string_pretty(&manifest).unwrap_or_default(),
        )
        .map_err(io(&file))?;
        let file = dir.join("import-report.json");
        let rejected = serde_json::json!({"rows": report.rows, "rejected": report.errors});
        std::fs::write(
            &file,
            serde_json::to_string_pretty(&rejected).unwrap_or_default(),
        )
        .map_err(io(&file))
    };
    if let Err(e) = write() {
        // A half-written pack would list with an error: none at all is clearer.
        let _ = std::fs::remove_dir_all(&dir);
        return Err(e);
    }
    let info = inspect(Registry::builtin(), &dir, "", "data_dir");
    match &info.error {
        Some(e) => Err(PackError::Invalid(e.clone())),
        None => Ok(info),
    }
}
