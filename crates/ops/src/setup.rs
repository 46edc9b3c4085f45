//! Setting an installation up from the app, with no terminal: pointing Crucible at an external
//! tool (checked by running it, then saved in the config file), explaining a config file that
//! cannot be used in plain words and resetting it to defaults (the old file kept beside it as a
//! backup), and building an offline universe.
//!
//! It must never delete or overwrite a file the user wrote: a reset renames the broken file to a
//! name that is not taken yet before it writes the defaults, and saving a tool's path rewrites only
//! that one setting of a config file that already loads.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;
use ts_rs::TS;

use crucible_chain::universe::Profile;
use crucible_core::Config;

/// How long a tool may take to print its version before we call it broken.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// What can go wrong while setting up; every message names the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The tool's name is not one Crucible uses.
    #[error("Crucible does not use a tool called {0:?} (it uses anvil, deno and bwrap)")]
    UnknownTool(String),
    /// The chosen file does not exist.
    #[error("{path} does not exist; choose the {tool} program itself")]
    NoSuchFile {
        /// The path given.
        path: PathBuf,
        /// The tool it was meant to be.
        tool: &'static str,
    },
    /// The chosen file exists but cannot be run.
    #[error("{path} could not be started ({message}); choose the {tool} program itself")]
    WontRun {
        /// The path given.
        path: PathBuf,
        /// The tool it was meant to be.
        tool: &'static str,
        /// Why it would not start, in the system's words.
        message: String,
    },
    /// The chosen file runs, but it is not the tool.
    #[error("{path} is not {tool}: asked for its version it said {said:?}")]
    WrongProgram {
        /// The path given.
        path: PathBuf,
        /// The tool it was meant to be.
        tool: &'static str,
        /// The first line it printed (or that it printed nothing).
        said: String,
    },
    /// The config file could not be read or written.
    #[error("the settings file {path} could not be {action}: {source}")]
    ConfigFile {
        /// The config file.
        path: PathBuf,
        /// "read", "written", "moved aside".
        action: &'static str,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// The config file does not load, so a single setting cannot be saved into it.
    #[error("the settings file {path} cannot be used ({problem}); reset it to defaults first")]
    ConfigBroken {
        /// The config file.
        path: PathBuf,
        /// What is wrong with it, in words.
        problem: String,
    },
    /// The app cannot install this tool here (the sentence says what to do instead).
    #[error("{why}")]
    NotInstallable {
        /// The tool.
        tool: &'static str,
        /// Why not, and what to do instead.
        why: &'static str,
    },
    /// The package could not be downloaded (or read once downloaded).
    #[error("the download from {url} failed: {message}")]
    Download {
        /// Where from.
        url: String,
        /// What failed, in words.
        message: String,
    },
    /// The download is not the pinned package: its digest differs from the lock file's.
    #[error(
        "the file downloaded from {url} is not the {tool} package Crucible pins (its SHA-512 \
         digest differs), so nothing was installed; check the npm_registry setting or try again"
    )]
    Tampered {
        /// Where from.
        url: String,
        /// The tool.
        tool: &'static str,
    },
    /// A file of an installed tool could not be written.
    #[error("{path} could not be {action}: {source}")]
    ToolFile {
        /// The file or folder.
        path: PathBuf,
        /// "created", "written", "replaced", "moved into place".
        action: &'static str,
        /// The underlying failure.
        source: std::io::Error,
    },
    /// A folder could not be shown.
    #[error("{path} could not be opened: {message}")]
    OpenFolder {
        /// The folder.
        path: PathBuf,
        /// Why, in words.
        message: String,
    },
    /// The universe profile is not one Crucible can build.
    #[error("there is no universe called {0:?} to build (the universes are bsc and eth)")]
    UnknownProfile(String),
    /// The universe build failed.
    #[error("building the {profile} universe failed: {message}")]
    Build {
        /// The profile.
        profile: String,
        /// What failed.
        message: String,
        /// Whether Anvil was missing (the fix is to locate it).
        tool_missing: bool,
    },
}

impl SetupError {
    /// Whether the failure is a missing external tool, which the user fixes by locating it.
    pub fn is_tool_missing(&self) -> bool {
        matches!(
            self,
            Self::Build {
                tool_missing: true,
                ..
            }
        )
    }

    /// Whether the failure is the network (the registry could not be reached or broke off).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Self::Download { .. })
    }

    /// Whether the failure is about a file the user chose or wrote (fixable by choosing again).
    pub fn is_user_input(&self) -> bool {
        matches!(
            self,
            Self::UnknownTool(_)
                | Self::NoSuchFile { .. }
                | Self::WontRun { .. }
                | Self::WrongProgram { .. }
                | Self::ConfigBroken { .. }
                | Self::UnknownProfile(_)
                | Self::NotInstallable { .. }
                | Self::OpenFolder { .. }
        )
    }

    /// The underlying I/O error, when there is one (a full disk is told apart by its callers).
    pub fn io(&self) -> Option<&std::io::Error> {
        match self {
            Self::ConfigFile { source, .. } | Self::ToolFile { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// An external tool Crucible runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// The local EVM chain.
    Anvil,
    /// The TypeScript sandbox runtime.
    Deno,
    /// The sandbox's file-system isolation.
    Bwrap,
}

impl Tool {
    /// The tool by its program name (`anvil`, `deno`, `bwrap`).
    pub fn try_from_name(name: &str) -> Result<Self, SetupError> {
        match name {
            "anvil" => Ok(Self::Anvil),
            "deno" => Ok(Self::Deno),
            "bwrap" => Ok(Self::Bwrap),
            other => Err(SetupError::UnknownTool(other.to_string())),
        }
    }

    /// The program's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Anvil => "anvil",
            Self::Deno => "deno",
            Self::Bwrap => "bwrap",
        }
    }

    /// The config file's key for the tool's explicit path.
    pub fn config_key(self) -> &'static str {
        match self {
            Self::Anvil => "anvil_path",
            Self::Deno => "deno_path",
            Self::Bwrap => "bwrap_path",
        }
    }

    /// A word the tool's `--version` output starts with (bubblewrap calls itself by its full name).
    fn says(self) -> &'static str {
        match self {
            Self::Anvil => "anvil",
            Self::Deno => "deno",
            Self::Bwrap => "bubblewrap",
        }
    }
}

/// A tool the user pointed Crucible at, checked and saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct LocatedTool {
    /// The program's name.
    pub name: String,
    /// The path saved in the config file.
    pub path: String,
    /// The first line of its `--version` output.
    pub version: String,
    /// The config file the path was saved in.
    pub config_file: String,
}

/// Runs `path --version` and checks that it is `tool`; returns the first line it printed.
pub fn check_tool(tool: Tool, path: &Path) -> Result<String, SetupError> {
    if !path.exists() {
        return Err(SetupError::NoSuchFile {
            path: path.into(),
            tool: tool.name(),
        });
    }
    let wont_run = |message: String| SetupError::WontRun {
        path: path.into(),
        tool: tool.name(),
        message,
    };
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| wont_run(e.to_string()))?;
    let deadline = Instant::now() + VERSION_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(wont_run(format!(
                    "it printed no version within {} s",
                    VERSION_TIMEOUT.as_secs()
                )));
            }
            Err(e) => return Err(wont_run(e.to_string())),
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| wont_run(e.to_string()))?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string();
    if first.to_lowercase().starts_with(tool.says()) {
        Ok(first)
    } else {
        let said = if first.is_empty() {
            "nothing".to_string()
        } else {
            first.chars().take(120).collect()
        };
        Err(SetupError::WrongProgram {
            path: path.into(),
            tool: tool.name(),
            said,
        })
    }
}

/// Checks `path` is `tool`, then saves it as the tool's path in `config_file` (created when
/// missing; every other setting kept as it was).
pub fn locate_tool(config_file: &Path, tool: Tool, path: &Path) -> Result<LocatedTool, SetupError> {
    let version = check_tool(tool, path)?;
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    set_config_value(
        config_file,
        tool.config_key(),
        serde_json::Value::String(path.display().to_string()),
    )?;
    tracing::info!(target: "setup", tool = tool.name(), path = %path.display(), "tool located");
    Ok(LocatedTool {
        name: tool.name().to_string(),
        path: path.display().to_string(),
        version,
        config_file: config_file.display().to_string(),
    })
}

/// Saves (or, with `None`, clears) the lab store in the config file.
pub fn save_lab_store(config_file: &Path, url: Option<&str>) -> Result<(), SetupError> {
    set_config_value(
        config_file,
        "lab_store",
        url.map_or(serde_json::Value::Null, |u| {
            serde_json::Value::String(crucible_store::redact_url(u))
        }),
    )
}

/// Saves the reviewer's name as the `reviewer` setting of `config_file` (every other setting kept).
pub fn save_reviewer(config_file: &Path, name: &str) -> Result<(), SetupError> {
    set_config_value(
        config_file,
        "reviewer",
        serde_json::Value::String(name.trim().to_string()),
    )
}

/// Sets one top-level `key` of the config file, which must load (or not exist yet).
pub(crate) fn set_config_value(
    file: &Path,
    key: &str,
    value: serde_json::Value,
) -> Result<(), SetupError> {
    let mut object = match std::fs::read_to_string(file) {
        Ok(text) => {
            if let Some(problem) = explain_config_text(&text) {
                return Err(SetupError::ConfigBroken {
                    path: file.into(),
                    problem,
                });
            }
            match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(serde_json::Value::Object(o)) => o,
                _ => serde_json::Map::new(),
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => serde_json::Map::new(),
        Err(source) => {
            return Err(SetupError::ConfigFile {
                path: file.into(),
                action: "read",
                source,
            })
        }
    };
    object.insert(key.to_string(), value);
    let text = serde_json::to_string_pretty(&object).unwrap_or_else(|_| "{}".into()) + "\n";
    write_config(file, text.as_bytes())
}

fn write_config(file: &Path, bytes: &[u8]) -> Result<(), SetupError> {
    let written = |source| SetupError::ConfigFile {
        path: file.into(),
        action: "written",
        source,
    };
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(written)?;
    }
    crucible_core::durable::write_file(file, bytes).map_err(written)
}

/// Why a config file cannot be used, for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ConfigProblem {
    /// The config file.
    pub file: String,
    /// What is wrong with it, in words (no parser jargon).
    pub problem: String,
}

/// What [`explain_config`] says about a file that exists but cannot be read or used; `None` when
/// the file is missing (defaults apply) or loads.
pub fn explain_config(file: &Path) -> Option<ConfigProblem> {
    let problem = match std::fs::read(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => format!("it could not be read ({e})"),
        Ok(bytes) => match String::from_utf8(bytes) {
            Err(_) => "it is not a text file (it holds binary data)".to_string(),
            Ok(text) => explain_config_text(&text)?,
        },
    };
    Some(ConfigProblem {
        file: file.display().to_string(),
        problem,
    })
}

/// What is wrong with a config file's text, in words; `None` when it loads.
pub fn explain_config_text(text: &str) -> Option<String> {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let at = format!("line {}, column {}", e.line(), e.column());
            return Some(match e.classify() {
                serde_json::error::Category::Eof if text.trim().is_empty() => {
                    "the file is empty; it should hold settings between { and }".to_string()
                }
                serde_json::error::Category::Eof => {
                    format!("the file ends too early, at {at}: a closing }}, ] or quote is missing")
                }
                _ => format!(
                    "the text is not valid JSON at {at}: look there for a missing comma, \
                     quote or brace, or one too many"
                ),
            });
        }
    };
    if !value.is_object() {
        return Some(format!(
            "the file should hold settings between {{ and }}, but it holds {}",
            kind_of_value(&value)
        ));
    }
    match serde_path_to_error::deserialize::<_, Config>(value) {
        Ok(_) => None,
        Err(e) => {
            let key = e.path().to_string();
            Some(explain_setting(&key, &e.inner().to_string()))
        }
    }
}

fn kind_of_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "null".into(),
        serde_json::Value::Bool(b) => format!("the word {b}"),
        serde_json::Value::Number(n) => format!("the number {n}"),
        serde_json::Value::String(s) => format!("the text \u{201c}{s}\u{201d}"),
        serde_json::Value::Array(_) => "a list [ … ]".into(),
        serde_json::Value::Object(_) => "a group { … }".into(),
    }
}

/// One setting's serde complaint (`invalid type: string "x", expected u16`) in words.
fn explain_setting(key: &str, serde: &str) -> String {
    if let Some(rest) = serde.strip_prefix("unknown field `") {
        let field = rest.split('`').next().unwrap_or(rest);
        return format!(
            "\u{201c}{field}\u{201d} is not a setting Crucible knows (a typing mistake?); \
             the settings are data_dir, project_dir, anvil_path, deno_path, bwrap_path, npm_registry, \
             file_manager, anvil_port, anvil_memory_mib, seed, database, reviewer and \
             first_start_demo"
        );
    }
    let wanted = match serde.rsplit("expected ").next().unwrap_or("") {
        "u16" => "a whole number from 0 to 65535",
        "u64" => "a whole number, 0 or more",
        w if w.contains("path") || w.contains("string") => "a file or folder path in quotes",
        _ => "a different kind of value",
    };
    let found = serde
        .strip_prefix("invalid type: ")
        .or_else(|| serde.strip_prefix("invalid value: "))
        .and_then(|r| r.split(", expected").next())
        .map(|f| {
            let f = f
                .replace("string ", "the text ")
                .replace("integer ", "the number ")
                .replace("floating point ", "the number ")
                .replace('`', "");
            match f.as_str() {
                "map" => "a group { … }".to_string(),
                "sequence" => "a list [ … ]".to_string(),
                "boolean true" | "boolean false" => f.replace("boolean ", "the word "),
                _ => f,
            }
        });
    match found {
        Some(found) => format!("the setting \u{201c}{key}\u{201d} must be {wanted}, not {found}"),
        None => format!("the setting \u{201c}{key}\u{201d} must be {wanted}"),
    }
}

/// A config file reset to defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ConfigReset {
    /// The config file, now holding the defaults.
    pub file: String,
    /// Where the old file was moved, byte for byte; `null` when there was none.
    pub backup: Option<String>,
}

/// Moves `file` aside to the first free `<stem>.broken[-N].json` beside it and writes the default
/// settings (`{}`: every setting takes its default). Nothing is deleted.
pub fn reset_config(file: &Path) -> Result<ConfigReset, SetupError> {
    let backup = if file.exists() {
        let to = free_name(file, "broken");
        std::fs::rename(file, &to).map_err(|source| SetupError::ConfigFile {
            path: file.into(),
            action: "moved aside",
            source,
        })?;
        tracing::info!(target: "setup", file = %file.display(), backup = %to.display(), "config moved aside");
        Some(to.display().to_string())
    } else {
        None
    };
    write_config(file, b"{}\n")?;
    Ok(ConfigReset {
        file: file.display().to_string(),
        backup,
    })
}

/// `<dir>/<stem>.<tag>.<ext>`, or `<stem>.<tag>-2.<ext>`, … : the first that does not exist.
pub fn free_name(file: &Path, tag: &str) -> PathBuf {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let ext = file
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let dir = file.parent().unwrap_or(Path::new("."));
    (1..)
        .map(|n| {
            let suffix = if n == 1 {
                String::new()
            } else {
                format!("-{n}")
            };
            dir.join(format!("{stem}.{tag}{suffix}{ext}"))
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(format!("{stem}.{tag}{ext}")))
}

/// A universe build's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct UniverseBuilt {
    /// The profile built.
    pub profile: String,
    /// How many contracts were deployed.
    #[ts(type = "number")]
    pub contracts: u64,
    /// How many trading pairs were created.
    #[ts(type = "number")]
    pub pairs: u64,
    /// How long it took, in seconds.
    pub seconds: f64,
    /// Where the manifest and genesis were written.
    pub dir: String,
}

/// The profile by name, as the status lists it.
pub fn profile(name: &str) -> Result<Profile, SetupError> {
    name.parse()
        .map_err(|_| SetupError::UnknownProfile(name.to_string()))
}

/// Builds `profile` into the project's `assets/universe/<profile>/` on a real Anvil (the same
/// build as `crucible universe build --profile <profile>`).
pub async fn build_universe(
    config: &Config,
    profile: Profile,
) -> Result<UniverseBuilt, SetupError> {
    let failed = |message: String, tool_missing: bool| SetupError::Build {
        profile: profile.name().to_string(),
        message,
        tool_missing,
    };
    if let Err(e) = config.anvil() {
        return Err(failed(e.to_string(), true));
    }
    let report = crucible_chain::universe::build(config, profile)
        .await
        .map_err(|e| failed(e.to_string(), false))?;
    tracing::info!(target: "setup", profile = profile.name(), ms = report.build_ms, "universe built");
    Ok(UniverseBuilt {
        profile: profile.name().to_string(),
        contracts: report.manifest.contracts.len() as u64,
        pairs: report.manifest.pairs.len() as u64,
        seconds: report.build_ms / 1e3,
        dir: report.dir.display().to_string(),
    })
}

/// Shows `path`'s folder (a file's own folder) in the file manager; only folders inside the data
/// folder (exports, installed tools), so a window cannot be made to open anything else. Returns
/// the folder shown.
pub fn open_folder(config: &Config, path: &Path) -> Result<PathBuf, SetupError> {
    open_folder_within(config, path, &[])
}

/// [`open_folder`], also for folders in `also` (the folders this app saved exports into, which a
/// person chose or which are their Downloads folder).
pub fn open_folder_within(
    config: &Config,
    path: &Path,
    also: &[PathBuf],
) -> Result<PathBuf, SetupError> {
    let fail = |message: String| SetupError::OpenFolder {
        path: path.into(),
        message,
    };
    let real = std::fs::canonicalize(path).map_err(|e| fail(format!("it does not exist ({e})")))?;
    let folder = if real.is_dir() {
        real
    } else {
        real.parent().map(Path::to_path_buf).unwrap_or(real)
    };
    let data = std::fs::canonicalize(&config.data_dir).unwrap_or_else(|_| config.data_dir.clone());
    let chosen = also
        .iter()
        .filter_map(|a| std::fs::canonicalize(a).ok())
        .any(|a| folder == a);
    if !folder.starts_with(&data) && !chosen {
        return Err(fail(format!(
            "only folders inside Crucible's data folder {} are opened from the app",
            data.display()
        )));
    }
    let program = config.file_manager.clone().unwrap_or_else(|| {
        PathBuf::from(if cfg!(target_os = "macos") {
            "open"
        } else if cfg!(windows) {
            "explorer"
        } else {
            "xdg-open"
        })
    });
    let mut child = Command::new(&program)
        .arg(&folder)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            fail(format!(
                "no file manager could be started ({}: {e}); the files are in {}",
                program.display(),
                folder.display()
            ))
        })?;
    // The opener hands the folder to the file manager and exits; a failure shows in its status.
    let deadline = Instant::now() + VERSION_TIMEOUT;
    while Instant::now() < deadline {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(folder),
            Ok(Some(status)) => {
                return Err(fail(format!(
                    "the file manager ({}) could not show it ({status}); the files are in {}",
                    program.display(),
                    folder.display()
                )))
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(fail(e.to_string())),
        }
    }
    // Still running (a file manager that stays in the foreground): it is showing the folder.
    Ok(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_problems_in_words() {
        // (file text, words the explanation must contain)
        let cases: [(&str, &[&str]); 7] = [
            (
                "{\"anvil_port\": \"not a port\"}",
                &[
                    "\u{201c}anvil_port\u{201d}",
                    "whole number from 0 to 65535",
                    "the text \"not a port\"",
                ],
            ),
            (
                "{\"anvil_port\": 70000}",
                &["anvil_port", "0 to 65535", "70000"],
            ),
            (
                "{\"anvil_prt\": 1}",
                &["\u{201c}anvil_prt\u{201d} is not a setting"],
            ),
            (
                "{\"seed\": 1,, }",
                &["not valid JSON at line 1, column 12", "missing comma"],
            ),
            ("{\"seed\": 1", &["ends too early"]),
            ("", &["empty"]),
            ("[1, 2]", &["between { and }", "a list"]),
        ];
        for (text, words) in cases {
            let got = explain_config_text(text).unwrap_or_else(|| panic!("{text:?} loads"));
            for w in words {
                assert!(got.contains(w), "{text:?}: {got:?} lacks {w:?}");
            }
            for jargon in ["expected u16", "invalid type", "EOF", "`"] {
                assert!(!got.contains(jargon), "{text:?}: parser jargon in {got:?}");
            }
        }
        assert_eq!(explain_config_text("{}"), None);
        assert_eq!(
            explain_config_text("{\"seed\": 3, \"anvil_port\": 0}"),
            None
        );
    }

    #[test]
    fn reset_keeps_a_byte_identical_backup_and_never_overwrites_one() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("crucible/config.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let broken = b"{\"anvil_port\": \"not a port\",\n \xff}".to_vec();
        std::fs::write(&file, &broken).unwrap();
        let problem = explain_config(&file).expect("a problem");
        assert_eq!(problem.file, file.display().to_string());

        let reset = reset_config(&file).unwrap();
        let backup = PathBuf::from(reset.backup.clone().expect("a backup"));
        assert_eq!(backup, dir.path().join("crucible/config.broken.json"));
        assert_eq!(
            std::fs::read(&backup).unwrap(),
            broken,
            "backup is byte-identical"
        );
        assert_eq!(explain_config(&file), None, "the defaults load");
        assert!(Config::load(Some(&file)).is_ok());

        // A second broken file goes beside the first backup, which stays as it was.
        std::fs::write(&file, "nonsense").unwrap();
        let again = reset_config(&file).unwrap();
        assert_eq!(
            again.backup.as_deref(),
            Some(
                dir.path()
                    .join("crucible/config.broken-2.json")
                    .to_str()
                    .unwrap()
            )
        );
        assert_eq!(std::fs::read(&backup).unwrap(), broken);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("crucible/config.broken-2.json")).unwrap(),
            "nonsense"
        );
    }

    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn locating_a_tool_checks_what_it_is_and_saves_only_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.json");
        std::fs::write(&file, "{\"seed\": 5}").unwrap();
        let fake = script(dir.path(), "not-anvil", "echo 'Python 3.12.1'");
        let err = locate_tool(&file, Tool::Anvil, &fake).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(&fake.display().to_string()) && msg.contains("is not anvil"),
            "{msg}"
        );
        assert!(msg.contains("Python 3.12.1"), "{msg}");
        assert!(err.is_user_input());
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "hello").unwrap();
        let msg = locate_tool(&file, Tool::Deno, &text)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("could not be started") && msg.contains("notes.txt"),
            "{msg}"
        );
        let msg = locate_tool(&file, Tool::Deno, &dir.path().join("nope"))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("does not exist"), "{msg}");
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "{\"seed\": 5}",
            "untouched"
        );

        let anvil = Config::test()
            .anvil()
            .expect("the project's anvil (npm ci)");
        let got = locate_tool(&file, Tool::Anvil, &anvil).unwrap();
        assert!(got.version.starts_with("anvil"), "{got:?}");
        let cfg = Config::load(Some(&file)).unwrap();
        assert_eq!(cfg.seed, 5, "other settings kept");
        assert_eq!(cfg.anvil_path.as_deref(), Some(Path::new(&got.path)));

        // A broken config is not silently replaced by a tool's path.
        std::fs::write(&file, "{oops").unwrap();
        let err = locate_tool(&file, Tool::Anvil, &anvil).unwrap_err();
        assert!(err.to_string().contains("reset it to defaults"), "{err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{oops");
    }

    #[test]
    fn free_name_skips_taken_names() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("crucible.db");
        assert_eq!(
            free_name(&f, "damaged"),
            dir.path().join("crucible.damaged.db")
        );
        std::fs::write(dir.path().join("crucible.damaged.db"), "x").unwrap();
        assert_eq!(
            free_name(&f, "damaged"),
            dir.path().join("crucible.damaged-2.db")
        );
    }

    #[test]
    fn open_folder_shows_only_folders_inside_the_data_folder() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let exports = data.join("exports");
        std::fs::create_dir_all(&exports).unwrap();
        std::fs::write(exports.join("chart.png"), b"png").unwrap();
        let seen = dir.path().join("seen.txt");
        let manager = dir.path().join("fm.sh");
        std::fs::write(
            &manager,
            format!("#!/bin/sh\necho \"$1\" > {}\n", seen.display()),
        )
        .unwrap();
        std::fs::set_permissions(&manager, std::fs::Permissions::from_mode(0o755)).unwrap();
        let config = Config {
            data_dir: data.clone(),
            file_manager: Some(manager),
            ..Config::test()
        };
        let shown = open_folder(&config, &exports.join("chart.png")).unwrap();
        let exports_real = std::fs::canonicalize(&exports).unwrap();
        assert_eq!(shown, exports_real, "a file's own folder is shown");
        assert_eq!(
            std::fs::read_to_string(&seen).unwrap().trim(),
            exports_real.display().to_string()
        );
        let outside = open_folder(&config, dir.path()).unwrap_err();
        assert!(
            outside.to_string().contains("only folders inside"),
            "{outside}"
        );
        // A folder the app saved an export into opens; its parent still does not.
        let downloads = dir.path().join("Downloads");
        std::fs::create_dir_all(&downloads).unwrap();
        std::fs::write(downloads.join("a.csv"), b"x").unwrap();
        let also = [downloads.clone()];
        assert!(open_folder_within(&config, &downloads.join("a.csv"), &also).is_ok());
        assert!(open_folder_within(&config, dir.path(), &also).is_err());
        let gone = open_folder(&config, &data.join("nope")).unwrap_err();
        assert!(gone.to_string().contains("does not exist"), "{gone}");
        let broken = Config {
            file_manager: Some(dir.path().join("no-such-program")),
            ..config
        };
        let e = open_folder(&broken, &exports).unwrap_err();
        assert!(e.to_string().contains("the files are in"), "{e}");
    }
}
