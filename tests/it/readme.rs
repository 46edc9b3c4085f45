//! README.md's CLI as a newcomer meets it: every `cargo run -- …` (or `crucible …`) line of the
//! README's shell blocks runs through the real `crucible` binary, each on a fresh data directory
//! (`CRUCIBLE_DATA_DIR`, so the default database) and a fresh config directory, and must succeed.
//! The README's template notation is read the same way for every line: `a|b` runs each
//! alternative, `[…]` is included, and the placeholders of `fill` stand for what a newcomer has
//! by then (a run made just before in that data directory, a folder, a task id; the `report`
//! lines, too, report on such a run). Lines that regenerate content inside the project run on a
//! shadow of the checkout and must write it byte-identical (`REGENERATES`). Only lines that
//! need a GUI, the network or a key are skipped, each with its reason in `SKIPS`; the lines that
//! go over a whole catalogue (`HEAVY`) run in the ignored test beside the quick one.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Lines not run, matched on the line's text, with why.
const SKIPS: &[(&str, &str)] = &[
    (
        "bench app",
        "needs a GUI: it starts the desktop app under Xvfb",
    ),
    (
        "postgres://user@host",
        "needs the network: a lab PostgreSQL server on another host",
    ),
    (
        "--provider openai-compatible:a=lab",
        "needs the network: the saved provider `lab`'s server",
    ),
    ("openai:", "needs a key: an OpenAI model"),
];

/// Lines that go over a whole catalogue or a large simulation: minutes each in a debug build.
/// They run in `readme_heavy_cli_lines_run_as_written` (ignored by default).
const HEAVY: &[&str] = &[
    "selftest --bench questbench --seeds 5",
    "bench questbench",
    "bench pilot",
    "bench intent2tx",
    "bench orchestrator",
    "bench report",
    "bench results",
    "bench inspect",
    "bench distributed",
    "--pack pilot-real-tools",
];

/// Lines whose command serves until stopped: run until their first line of output, then stopped.
const SERVERS: &[&str] = &["store local-server"];

/// Lines that regenerate content inside the project (as the README says, byte-identical), with
/// the folder each writes. They run on a shadow of the checkout (the rest linked, that folder
/// empty) so the tests beside them never read a half-written file; what they write is then
/// compared byte for byte with the checkout's.
const REGENERATES: &[(&str, &str)] = &[
    ("universe build --profile bsc", "assets/universe/bsc"),
    ("universe build --profile eth", "assets/universe/eth"),
    ("pilot generate", "tasks/pilot"),
];

/// One command line of the README.
#[derive(Debug, Clone)]
struct Line {
    /// 1-based line number in README.md.
    number: usize,
    /// The line as written.
    text: String,
    /// Its words after `cargo run [--release] --` or `crucible`, comment removed.
    words: Vec<String>,
}

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Splits a shell line into words (quotes kept together, removed), stopping at a `#` comment.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None if c == '#' && !in_word => break,
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The `crucible` command lines of README.md's shell blocks.
fn command_lines(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut in_sh = false;
    for (i, raw) in text.lines().enumerate() {
        let t = raw.trim();
        if t.starts_with("```") {
            in_sh = !in_sh && (t == "```sh" || t == "```bash" || t == "```shell");
            continue;
        }
        if !in_sh {
            continue;
        }
        let words = shell_words(t);
        let cargo_run = words
            .windows(2)
            .position(|w| w[0] == "cargo" && w[1] == "run");
        let rest: Vec<String> = if words.first().is_some_and(|w| w == "crucible") {
            words[1..].to_vec()
        } else if let Some(at) = cargo_run {
            match words[at..].iter().position(|w| w == "--") {
                Some(dd) => words[at + dd + 1..].to_vec(),
                None => continue,
            }
        } else {
            continue;
        };
        lines.push(Line {
            number: i + 1,
            text: t.to_string(),
            words: rest,
        });
    }
    lines
}

/// `[a b]` included (a ` | ` inside takes its first side); `a|b` expanded, alternatives of
/// several words taken side by side.
fn expand(words: &[String]) -> Vec<Vec<String>> {
    let mut plain = Vec::new();
    let mut in_group = false;
    let mut skipping = false;
    for w in words {
        let mut w = w.as_str();
        if let Some(x) = w.strip_prefix('[') {
            in_group = true;
            skipping = false;
            w = x;
        }
        let closes = w.ends_with(']') && in_group;
        let w = if closes { &w[..w.len() - 1] } else { w };
        if in_group && w == "|" {
            skipping = true;
        } else if !skipping && !w.is_empty() {
            plain.push(w.to_string());
        }
        if closes {
            in_group = false;
            skipping = false;
        }
    }
    let ways = plain
        .iter()
        .filter(|w| w.contains('|'))
        .map(|w| w.split('|').count())
        .max()
        .unwrap_or(1);
    (0..ways)
        .map(|k| {
            plain
                .iter()
                .map(|w| {
                    let alts: Vec<&str> = w.split('|').collect();
                    alts[k.min(alts.len() - 1)].to_string()
                })
                .collect()
        })
        .collect()
}

/// A fresh home for one line: its data and config directories and a work folder.
struct Fresh {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Fresh {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        for d in ["data", "config", "work"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        Fresh { _tmp: tmp, root }
    }

    fn command(&self, args: &[String]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_crucible"));
        if self.root.join("project").is_dir() {
            c.env("CRUCIBLE_PROJECT_DIR", self.root.join("project"));
        }
        c.args(args)
            .current_dir(self.root.join("work"))
            .env("CRUCIBLE_DATA_DIR", self.root.join("data"))
            .env("XDG_CONFIG_HOME", self.root.join("config"))
            .env_remove("CRUCIBLE_CONFIG")
            .env_remove("RUST_BACKTRACE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// Runs `args` to the end (bounded), giving (success, stdout, stderr).
    fn run(&self, args: &[String], limit: Duration) -> (bool, String, String) {
        let mut child = self.command(args).spawn().expect("starting crucible");
        let out = reader(child.stdout.take().unwrap());
        let err = reader(child.stderr.take().unwrap());
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let (out, mut err) = (out.join().unwrap(), err.join().unwrap());
        if status.is_none() {
            err.push_str(&format!("\n(stopped after {} s)", limit.as_secs()));
        }
        (status.is_some_and(|s| s.success()), out, err)
    }

    /// Starts a serving command, waits (bounded) for its first line of output, then stops it.
    fn serve(&self, args: &[String], limit: Duration) -> (bool, String, String) {
        let mut child = self.command(args).spawn().expect("starting crucible");
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let err = reader(child.stderr.take().unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut first = String::new();
            let _ = stdout.read_line(&mut first);
            let _ = tx.send(first);
            let mut rest = String::new();
            let _ = stdout.read_to_string(&mut rest);
        });
        let first = rx.recv_timeout(limit).unwrap_or_default();
        // Ctrl-C is how it is stopped; SIGINT by its own id.
        let _ = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        let err = err.join().unwrap();
        (!first.trim().is_empty(), first, err)
    }
}

/// A shadow of the checkout under `root/project` whose `written` folder is a new empty folder
/// and everything else a link into the checkout; returns the shadow project's path.
fn shadow_project(root: &Path, written: &str) -> PathBuf {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shadow = root.join("project");
    let parts: Vec<&str> = written.split('/').collect();
    let (mut real, mut fake) = (checkout.to_path_buf(), shadow.clone());
    for (i, part) in parts.iter().enumerate() {
        std::fs::create_dir_all(&fake).unwrap();
        for entry in std::fs::read_dir(&real).unwrap().flatten() {
            let name = entry.file_name();
            if name.to_str() == Some(*part) {
                continue;
            }
            std::os::unix::fs::symlink(entry.path(), fake.join(&name)).unwrap();
        }
        real = real.join(part);
        fake = fake.join(part);
        if i + 1 == parts.len() {
            std::fs::create_dir_all(&fake).unwrap();
        }
    }
    shadow
}

/// Every file under `dir` (relative paths), sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Differences between what a regenerating line wrote under the shadow and the checkout.
fn regenerated_differences(shadow: &Path, written: &str) -> Vec<String> {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join(written);
    let made = shadow.join(written);
    let mut diffs = Vec::new();
    let made_files = files_under(&made);
    if made_files.is_empty() {
        diffs.push(format!("nothing was written into {written}"));
    }
    for f in made_files {
        let theirs = std::fs::read(checkout.join(&f)).ok();
        if theirs.as_deref() != Some(&std::fs::read(made.join(&f)).unwrap()[..]) {
            diffs.push(format!(
                "{written}/{} differs from the checkout's",
                f.display()
            ));
        }
    }
    diffs
}

fn reader(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = r.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    })
}

/// The first PILOT-Bench task id of the checkout's library.
fn pilot_task_id() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tasks/pilot/tasks.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first["instance_id"].as_str().unwrap().to_string()
}

/// Fills the README's placeholders for one line in `fresh`, making what they stand for.
fn fill(fresh: &Fresh, words: &[String]) -> Result<Vec<String>, String> {
    let needs = |p: &str| words.iter().any(|w| w == p);
    let mut runs: Vec<String> = Vec::new();
    // The report lines read stored results: on a fresh data directory they only say there are
    // none yet (`readme_report_reads_the_default_database_without_db`), so here they report on a
    // run, as after the README's `demo` line, to show they make every table, chart and export.
    let reads_results = words.first().is_some_and(|w| w == "report");
    let run_count = if needs("RUN_B") {
        2
    } else {
        usize::from(
            needs("RUN_ID")
                || needs("RUN")
                || needs("RUN_A")
                || needs("SAMPLE_ID")
                || reads_results,
        )
    };
    // What a newcomer has made before such a line: a small offline run (two built-in agents).
    for _ in 0..run_count {
        let args: Vec<String> = [
            "run",
            "--bench",
            "intent2tx",
            "--model",
            "builtin:reference",
            "--model",
            "builtin:wrong-decimals",
            "--limit",
            "2",
            "--json",
        ]
        .map(String::from)
        .to_vec();
        let (ok, out, err) = fresh.run(&args, Duration::from_secs(300));
        if !ok {
            return Err(format!("making the run the line names failed:\n{err}"));
        }
        let v: Value = serde_json::from_str(&out).map_err(|e| format!("run --json: {e}: {out}"))?;
        runs.push(v["run_id"].as_str().unwrap_or_default().to_string());
    }
    let work = fresh.root.join("work");
    let mut filled = Vec::new();
    let mut dirs = 0;
    for (i, w) in words.iter().enumerate() {
        let before = if i > 0 { words[i - 1].as_str() } else { "" };
        let value = match w.as_str() {
            "RUN_ID" | "RUN" | "RUN_A" => runs[0].clone(),
            "RUN_B" => runs[1].clone(),
            "A,B" => "builtin:reference,builtin:wrong-decimals".into(),
            // The first sample of the run: the database's first row.
            "SAMPLE_ID" => "1".into(),
            "PACK" => "builtin-questbench".into(),
            "ID" => pilot_task_id(),
            "N" => "1".into(),
            "K" => "3".into(),
            "URL" => "http://127.0.0.1:9/v1".into(),
            "DIR" => {
                dirs += 1;
                work.join(format!("out-{dirs}")).display().to_string()
            }
            "FILE" => match before {
                "--instance" => {
                    let text = std::fs::read_to_string(
                        Path::new(env!("CARGO_MANIFEST_DIR"))
                            .join("tasks/intent2tx/default/instances.jsonl"),
                    )
                    .unwrap();
                    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
                    let p = work.join("instance.json");
                    std::fs::write(&p, first.to_string()).unwrap();
                    std::fs::write(work.join("answer.json"), first["ground_truth"].to_string())
                        .unwrap();
                    p.display().to_string()
                }
                "--answer" => work.join("answer.json").display().to_string(),
                _ => Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tasks/intent2tx/paper/instances.jsonl")
                    .display()
                    .to_string(),
            },
            "agent.ts" => {
                std::fs::write(
                    work.join("agent.ts"),
                    "export async function executeSkill(): Promise<string> {\n  return \"ok\";\n}\n",
                )
                .unwrap();
                "agent.ts".into()
            }
            other => other.to_string(),
        };
        filled.push(value);
    }
    Ok(filled)
}

fn skip_reason(line: &Line) -> Option<&'static str> {
    SKIPS
        .iter()
        .find(|(p, _)| line.text.contains(p))
        .map(|(_, why)| *why)
}

fn is_heavy(words: &[String]) -> bool {
    let joined = words.join(" ");
    HEAVY.iter().any(|h| {
        joined == *h || joined.starts_with(&format!("{h} ")) || joined.contains(&format!(" {h}"))
    })
}

/// Runs every README line of the given weight; fails listing each failing line with its stderr.
fn run_readme_lines(heavy: bool) {
    let text = readme();
    let lines = command_lines(&text);
    assert!(
        lines.len() > 30,
        "README.md's CLI lines were not found ({} read)",
        lines.len()
    );
    let mut failures = Vec::new();
    let mut ran = 0;
    for line in &lines {
        if let Some(why) = skip_reason(line) {
            eprintln!("skipped README.md:{}: {} ({why})", line.number, line.text);
            continue;
        }
        for words in expand(&line.words) {
            if is_heavy(&words) != heavy {
                continue;
            }
            let fresh = Fresh::new();
            let joined = words.join(" ");
            let regenerates = REGENERATES
                .iter()
                .find(|(p, _)| joined.starts_with(p))
                .map(|(_, dir)| *dir);
            if let Some(dir) = regenerates {
                shadow_project(&fresh.root, dir);
            }
            let args = match fill(&fresh, &words) {
                Ok(a) => a,
                Err(e) => {
                    failures.push(format!("README.md:{}: {}\n{e}", line.number, line.text));
                    continue;
                }
            };
            let started = Instant::now();
            let limit = Duration::from_secs(if heavy { 1800 } else { 300 });
            let (ok, _out, err) = if SERVERS.iter().any(|s| words.join(" ").starts_with(s)) {
                fresh.serve(&args, limit)
            } else {
                fresh.run(&args, limit)
            };
            ran += 1;
            eprintln!(
                "{} README.md:{} `crucible {}` in {:.1} s",
                if ok { "ok" } else { "FAILED" },
                line.number,
                args.join(" "),
                started.elapsed().as_secs_f64()
            );
            if ok {
                if let Some(dir) = regenerates {
                    let diffs = regenerated_differences(&fresh.root.join("project"), dir);
                    if !diffs.is_empty() {
                        failures.push(format!(
                            "README.md:{}: {}\nnot byte-identical:\n{}",
                            line.number,
                            line.text,
                            diffs.join("\n")
                        ));
                    }
                }
            } else {
                failures.push(format!(
                    "README.md:{}: {}\nran: crucible {}\nstderr:\n{}",
                    line.number,
                    line.text,
                    args.join(" "),
                    err.trim()
                ));
            }
        }
    }
    assert!(ran > 0, "no README line was run");
    assert!(
        failures.is_empty(),
        "{} README command line(s) fail as written:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn readme_cli_lines_run_as_written_on_a_fresh_data_dir() {
    run_readme_lines(false);
}

/// The whole-catalogue lines (`HEAVY`): `cargo test --test it readme:: -- --include-ignored`.
#[test]
#[ignore = "minutes per line in a debug build: the whole catalogue's benchmarks"]
fn readme_heavy_cli_lines_run_as_written_on_a_fresh_data_dir() {
    run_readme_lines(true);
}

#[test]
fn readme_report_reads_the_default_database_without_db() {
    // The README's `crucible report --bench all --json` stopped with "the following required
    // arguments were not provided: --db" although every other command reads the default
    // database; on a fresh data directory it now reports that nothing is stored yet.
    let fresh = Fresh::new();
    let args: Vec<String> = ["report", "--bench", "all", "--json"]
        .map(String::from)
        .to_vec();
    let (ok, out, err) = fresh.run(&args, Duration::from_secs(120));
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["samples"], 0, "{out}");
    // A named database that does not exist is still an error (a typo is not a new store).
    let args: Vec<String> = ["report", "--db", "no-such.db", "--json"]
        .map(String::from)
        .to_vec();
    let (ok, _, err) = fresh.run(&args, Duration::from_secs(60));
    assert!(!ok);
    assert!(err.contains("no-such.db"), "{err}");
}

#[test]
fn readme_notation_is_read_as_documented() {
    let w = |s: &str| shell_words(s);
    assert_eq!(
        w(r#"run --name "llama vs ref" --model-setting 'a={"b":1}'  # note"#),
        [
            "run",
            "--name",
            "llama vs ref",
            "--model-setting",
            r#"a={"b":1}"#
        ]
    );
    assert_eq!(
        expand(&w("universe build --profile bsc|eth")),
        [
            w("universe build --profile bsc"),
            w("universe build --profile eth")
        ]
    );
    assert_eq!(
        expand(&w("run --resume RUN_ID [--trust-base-url URL]")),
        [w("run --resume RUN_ID --trust-base-url URL")]
    );
    assert_eq!(
        expand(&w("worker [--run RUN_ID | --any-run] --x")),
        [w("worker --run RUN_ID --x")]
    );
    let lines = command_lines("```sh\ncargo run --release -- bench chain --json  # x\n```\n");
    assert_eq!(lines[0].words, w("bench chain --json"));
}
