//! The house rules (`../shared/STYLE.md`, docs/architecture.md) as tests over this checkout: no
//! hand-written source file over 1,500 lines, no public function returning `Result<_, String>`,
//! every package's `crucible-*` dependencies exactly those docs/architecture.md lists, and
//! benchmark names outside `crates/core` and the benchmark's own crate held to a per-file
//! ceiling that only goes down. Each failure names the file (and line), the rule, and what to do.
//!
//! The tests read files only; they build nothing and run nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The checkout (the root package's folder).
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Folders never read: build output, installed packages, the built UI, git's own.
const SKIPPED_DIRS: [&str; 5] = ["target", "node_modules", "dist", ".git", ".tools"];

/// Every file under `dir` (relative to the checkout, `/`-separated) whose name ends in `ext`.
fn files_under(dir: &str, ext: &str) -> Vec<String> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(ty) = e.file_type() else { continue };
            if ty.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_str()) {
                    walk(&p, ext, out);
                }
            } else if ty.is_file() && name.ends_with(ext) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), ext, &mut out);
    let mut rel: Vec<String> = out
        .iter()
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    rel.sort();
    rel
}

/// The Rust sources the rules read: the library crates, the CLI, the app shell, the tests.
fn rust_sources() -> Vec<String> {
    ["crates", "src", "src-tauri/src", "tests"]
        .iter()
        .flat_map(|d| files_under(d, ".rs"))
        .collect()
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// ---- a. file size ----

/// The longest a hand-written source file may be.
const MAX_LINES: usize = 1_500;

/// Generated files, exempt from the size rule (a test elsewhere keeps each one current).
const GENERATED: [&str; 2] = ["ui/src/bindings.ts", "ui/src/commands.ts"];

#[test]
fn no_hand_written_source_file_is_longer_than_1500_lines() {
    let files: Vec<String> = rust_sources()
        .into_iter()
        .chain(files_under("ui/src", ".ts"))
        .chain(files_under("ui/tests", ".mjs"))
        .filter(|f| !GENERATED.contains(&f.as_str()))
        .collect();
    assert!(
        files.len() > 100,
        "found only {} source files under {}",
        files.len(),
        root().display()
    );
    let over: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = read(f).lines().count();
            (n > MAX_LINES).then(|| {
                format!(
                    "{f}:{}: {n} lines breaks the rule \"no hand-written source file over {MAX_LINES} \
                     lines\": split it into a folder of modules by job (as questbench/src/bank/, \
                     views/src/results/); a generated file goes into GENERATED in tests/it/house.rs",
                    MAX_LINES + 1
                )
            })
        })
        .collect();
    assert!(over.is_empty(), "\n{}", over.join("\n"));
}

// ---- b. public functions with a String error ----

/// The return type of the function whose signature starts at `sig` (the text from `fn` on),
/// read up to the body's `{` or the `;` of a declaration; `None` when it returns `()`.
fn return_type(sig: &str) -> Option<String> {
    let (mut parens, mut angles) = (0i32, 0i32);
    let mut ret_at = None;
    let b = sig.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' => parens += 1,
            b')' => parens -= 1,
            b'<' => angles += 1,
            b'>' if i > 0 && b[i - 1] == b'-' => {
                if parens == 0 && angles == 0 && ret_at.is_none() {
                    ret_at = Some(i + 1);
                }
            }
            b'>' => angles -= 1,
            b'{' | b';' if parens == 0 && angles == 0 => {
                let ret = &sig[ret_at?..i];
                let ret = ret.split(" where ").next().unwrap_or(ret);
                let ret = ret.split("\nwhere").next().unwrap_or(ret);
                return Some(ret.split_whitespace().collect::<Vec<_>>().join(" "));
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// True when `ty` is `Result<T, String>` (any path to `Result` or `String`).
fn is_string_result(ty: &str) -> bool {
    let ty: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(args) = ty
        .strip_suffix('>')
        .and_then(|t| t.split_once('<'))
        .filter(|(name, _)| *name == "Result" || name.ends_with("::Result"))
        .map(|(_, args)| args)
    else {
        return false;
    };
    // The error is the last argument at depth 0.
    let mut depth = 0;
    let mut last = 0;
    for (i, c) in args.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => last = i + 1,
            _ => {}
        }
    }
    last > 0 && matches!(&args[last..], "String" | "std::string::String")
}

/// The lines (1-based) of `text` where a `pub fn` (also `pub async fn`, `pub const fn`, `pub
/// unsafe fn`; `pub(crate)` and friends are not public) returning `Result<_, String>` starts. A
/// signature may span lines; only a `pub` that starts a line counts, so examples inside string
/// literals and comments are not read.
fn string_error_fns(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("pub ") else {
            continue;
        };
        let rest = rest.trim_start();
        let rest = ["async ", "const ", "unsafe "]
            .iter()
            .fold(rest, |r, q| r.strip_prefix(q).map_or(r, str::trim_start));
        if !rest.starts_with("fn ") {
            continue;
        }
        let fn_at = start + (line.len() - rest.len());
        if let Some(ret) = return_type(&text[fn_at..]) {
            if is_string_result(&ret) {
                let name = rest[3..]
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("")
                    .to_string();
                out.push((n + 1, name));
            }
        }
    }
    out
}

#[test]
fn the_signature_reader_finds_string_errors_across_lines_and_nothing_else() {
    let found = |src: &str| -> Vec<String> {
        string_error_fns(src)
            .into_iter()
            .map(|(_, name)| name)
            .collect()
    };
    for src in [
        "pub fn a(x: u8) -> Result<(), String> {\n    Ok(())\n}\n",
        "    pub async fn a(\n        x: &str,\n        y: u8,\n    ) -> Result<Vec<(String, u8)>, String> {\n",
        "pub fn a<T: Into<String>>(t: T)\n    -> std::result::Result<BTreeMap<String, String>, std::string::String>\nwhere\n    T: Clone,\n{\n",
        "pub const fn a() -> Result<u8, String>;\n",
        "    pub fn a(f: impl Fn(u8) -> u8) -> Result<Option<u8>, String> {}\n",
    ] {
        assert_eq!(found(src), ["a"], "{src:?}");
    }
    for src in [
        "pub(crate) fn a() -> Result<(), String> {}\n",
        "pub(super) async fn a() -> Result<(), String> {}\n",
        "fn a() -> Result<(), String> {}\n",
        "pub fn a() -> Result<String, Error> {}\n",
        "pub fn a() -> Result<(), (String, String)> {}\n",
        "pub fn a(f: impl Fn() -> Result<(), String>) -> u8 {}\n",
        "pub fn a() -> io::Result<String> {}\n",
        "pub fn a() {}\n",
        "// pub fn a() -> Result<(), String> {}\n",
        "    let s = \"pub fn a() -> Result<(), String> {}\";\n",
        "pub struct A(Result<(), String>);\n",
    ] {
        assert!(found(src).is_empty(), "{src:?}: {:?}", found(src));
    }
    // The line is the one the signature starts on.
    let src = "//! x\n\npub fn b(\n    x: u8,\n) -> Result<u8, String> {\n";
    assert_eq!(string_error_fns(src), [(3, "b".to_string())]);
}

#[test]
fn no_public_function_returns_a_result_with_a_string_error() {
    let mut found = Vec::new();
    for f in rust_sources() {
        for (line, name) in string_error_fns(&read(&f)) {
            found.push(format!(
                "{f}:{line}: `pub fn {name}` returns Result<_, String>, which breaks the rule \"no \
                 public function returns Result<_, String>\": give it a typed error (a thiserror \
                 enum naming what failed) or make it crate-private if it only feeds another error"
            ));
        }
    }
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

// ---- c. dependencies ----

/// A package's `crucible-*` normal dependencies from its Cargo.toml text: the keys of
/// `[dependencies]` and of every `[target.….dependencies]` (dev- and build-dependencies are not
/// read), and the package's name.
fn crucible_deps(toml: &str) -> (String, BTreeSet<String>) {
    let (mut name, mut deps) = (String::new(), BTreeSet::new());
    let mut section = String::new();
    for line in toml.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            section = l.trim_matches(|c| c == '[' || c == ']').trim().to_string();
            continue;
        }
        let Some((key, value)) = l.split_once('=') else {
            continue;
        };
        let key = key.trim().trim_matches('"');
        if section == "package" && key == "name" {
            name = value.trim().trim_matches('"').to_string();
        }
        let normal = section == "dependencies"
            || (section.starts_with("target.") && section.ends_with(".dependencies"));
        if normal {
            let dep = key.split('.').next().unwrap_or(key);
            if dep.starts_with("crucible-") {
                deps.insert(dep.to_string());
            }
        }
    }
    (name, deps)
}

/// The heading of docs/architecture.md's machine-readable dependency list.
const DEPS_HEADING: &str = "## Dependencies (checked by tests/it/house.rs)";

/// docs/architecture.md's dependency lines: package → (line, dependencies).
fn documented_deps(doc: &str) -> BTreeMap<String, (usize, BTreeSet<String>)> {
    let mut out = BTreeMap::new();
    let mut inside = false;
    for (n, line) in doc.lines().enumerate() {
        if line.starts_with("## ") {
            inside = line.trim() == DEPS_HEADING;
            continue;
        }
        if !inside {
            continue;
        }
        let Some((pkg, deps)) = line.split_once(':') else {
            continue;
        };
        let pkg = pkg.trim().trim_matches('`');
        if !pkg.starts_with("crucible") || pkg.contains(' ') {
            continue;
        }
        let deps = deps
            .split(',')
            .map(|d| d.trim().trim_matches('`').to_string())
            .filter(|d| !d.is_empty() && d != "none")
            .collect();
        out.insert(pkg.to_string(), (n + 1, deps));
    }
    out
}

#[test]
fn the_dependency_reader_reads_normal_dependencies_only() {
    let toml =
        "[package]\nname = \"crucible-x\"\n\n[dependencies]\ncrucible-core.workspace = true\n\
                crucible-chain = { path = \"../chain\" }\nserde = \"1\"\n\n\
                [target.'cfg(unix)'.dependencies]\ncrucible-confine.workspace = true\n\n\
                [dev-dependencies]\ncrucible-store.workspace = true\n\n\
                [build-dependencies]\ncrucible-buildstamp.workspace = true\n";
    let (name, deps) = crucible_deps(toml);
    assert_eq!(name, "crucible-x");
    assert_eq!(
        deps.into_iter().collect::<Vec<_>>(),
        ["crucible-chain", "crucible-confine", "crucible-core"]
    );
    let doc =
        "## A\ncrucible-a: crucible-b\n## Dependencies (checked by tests/it/house.rs)\n\n```text\n\
               crucible-core: none\ncrucible-run: crucible-core, crucible-llm\n```\n## B\n";
    let d = documented_deps(doc);
    assert_eq!(
        d.keys().collect::<Vec<_>>(),
        ["crucible-core", "crucible-run"]
    );
    assert!(d["crucible-core"].1.is_empty());
    assert_eq!(d["crucible-run"].0, 7);
}

#[test]
fn every_packages_crucible_dependencies_are_the_ones_docs_architecture_lists() {
    let doc = read("docs/architecture.md");
    let documented = documented_deps(&doc);
    assert!(
        !documented.is_empty(),
        "docs/architecture.md has no section {DEPS_HEADING:?} with one line per package \
         (`crucible-run: crucible-core, crucible-llm`)"
    );
    let manifests: Vec<String> = ["Cargo.toml", "src-tauri/Cargo.toml", "tests/e2e/Cargo.toml"]
        .into_iter()
        .map(String::from)
        .chain(
            std::fs::read_dir(root().join("crates"))
                .unwrap()
                .flatten()
                .map(|e| format!("crates/{}/Cargo.toml", e.file_name().to_string_lossy()))
                .filter(|p| root().join(p).is_file()),
        )
        .collect();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for m in &manifests {
        let (pkg, deps) = crucible_deps(&read(m));
        seen.insert(pkg.clone());
        let Some((line, listed)) = documented.get(&pkg) else {
            problems.push(format!(
                "{m}: package {pkg} has no line in docs/architecture.md's {DEPS_HEADING:?}, which \
                 breaks the rule \"every crate's dependencies are the ones its row lists\": add \
                 `{pkg}: {}` and its row in the crates table",
                if deps.is_empty() {
                    "none".to_string()
                } else {
                    deps.iter().cloned().collect::<Vec<_>>().join(", ")
                }
            ));
            continue;
        };
        for d in deps.difference(listed) {
            problems.push(format!(
                "{m}: {pkg} depends on {d}, which docs/architecture.md:{line} does not list (rule: \
                 a crate depends only on what its row lists): remove the dependency, or add it to \
                 that line and to the crate's row if the architecture really changes"
            ));
        }
        for d in listed.difference(&deps) {
            problems.push(format!(
                "docs/architecture.md:{line}: lists {d} for {pkg}, whose {m} does not depend on it \
                 (rule: the list is what the Cargo.toml says): remove it from the line"
            ));
        }
    }
    for (pkg, (line, _)) in &documented {
        if !seen.contains(pkg) {
            problems.push(format!(
                "docs/architecture.md:{line}: {pkg} is not a package of this workspace: remove the line"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

// ---- d. benchmark names ----

/// The benchmark-name literals the ratchet counts, and the crate each one belongs to.
const BENCH_NAMES: [(&str, &str); 3] = [
    ("\"questbench\"", "crates/questbench/"),
    ("\"intent2tx\"", "crates/intent2tx/"),
    ("\"pilot\"", "crates/pilot/"),
];

/// Benchmark-name literals per file today (non-test code outside `crates/core` and the
/// benchmark's own crate). The goal (issue 44) is none: a benchmark's name belongs to
/// `BenchmarkId` and the benchmark's crate. A number may only go down; lower it when it does.
const BENCH_NAME_CEILINGS: &[(&str, usize)] = &[];

/// Where `text` (a Rust file at `rel`) names a benchmark by a literal outside its own crate, in
/// non-test code: (line, literal). Test code is exempt — tests name what they run — so files
/// under `tests/` or named `tests.rs`/`*_tests.rs` are not read, nor files declared as
/// `#[cfg(test)] mod …;` ([`test_module_files`]), and a file is read only up to its first
/// `#[cfg(test)]` (inline test modules close a file, by house style).
fn bench_literals(rel: &str, text: &str) -> Vec<(usize, &'static str)> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if rel.starts_with("crates/core/")
        || rel.starts_with("tests/")
        || rel.contains("/tests/")
        || name == "tests.rs"
        || name.ends_with("_tests.rs")
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        for (lit, own) in BENCH_NAMES {
            if !rel.starts_with(own) {
                out.extend(line.matches(lit).map(|_| (n + 1, lit)));
            }
        }
    }
    out
}

/// Files that are test modules declared elsewhere (`#[cfg(test)] mod contract;` makes
/// `contract.rs` test code), relative to the checkout.
fn test_module_files(sources: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in sources {
        let text = read(f);
        let mut test_attr = false;
        for line in text.lines().map(str::trim) {
            if line.starts_with("#[cfg(test)]") {
                test_attr = true;
                continue;
            }
            if test_attr {
                if let Some(name) = line
                    .strip_prefix("mod ")
                    .or_else(|| line.strip_prefix("pub(crate) mod "))
                    .and_then(|r| r.strip_suffix(';'))
                {
                    let (dir, stem) = f.rsplit_once('/').unwrap_or(("", f));
                    let base = match stem {
                        "mod.rs" | "lib.rs" | "main.rs" => dir.to_string(),
                        _ => format!("{dir}/{}", stem.trim_end_matches(".rs")),
                    };
                    out.insert(format!("{base}/{name}.rs"));
                    out.insert(format!("{base}/{name}/mod.rs"));
                }
            }
            test_attr = line.starts_with("#[");
        }
    }
    out
}

#[test]
fn benchmark_names_outside_core_and_their_crate_stay_under_each_files_ceiling() {
    let ceilings: BTreeMap<&str, usize> = BENCH_NAME_CEILINGS.iter().copied().collect();
    let mut now: BTreeMap<String, Vec<(usize, &str)>> = BTreeMap::new();
    let sources = rust_sources();
    let test_modules = test_module_files(&sources);
    for f in sources.iter().filter(|f| !test_modules.contains(*f)) {
        let found = bench_literals(f, &read(f));
        if !found.is_empty() {
            now.insert(f.clone(), found);
        }
    }
    let mut problems = Vec::new();
    for (f, found) in &now {
        let ceiling = ceilings.get(f.as_str()).copied().unwrap_or(0);
        if found.len() > ceiling {
            let at: Vec<String> = found
                .iter()
                .map(|(l, lit)| format!("{f}:{l}: {lit}"))
                .collect();
            problems.push(format!(
                "{f}: {} benchmark-name literals, its ceiling is {ceiling} (rule: a benchmark's name \
                 lives in crates/core's BenchmarkId and the benchmark's own crate): use BenchmarkId \
                 (or ask the benchmark) instead of a new literal\n  {}",
                found.len(),
                at.join("\n  ")
            ));
        }
    }
    for (f, ceiling) in &ceilings {
        let n = now.get(*f).map_or(0, Vec::len);
        if n < *ceiling {
            problems.push(format!(
                "{f}: {n} benchmark-name literals, below its ceiling {ceiling}: good — lower the \
                 ceiling to {n} in BENCH_NAME_CEILINGS (tests/it/house.rs){}",
                if n == 0 { " (remove the line)" } else { "" }
            ));
        }
    }
    if !problems.is_empty() {
        let table: Vec<String> = now
            .iter()
            .map(|(f, v)| format!("    ({f:?}, {}),", v.len()))
            .collect();
        panic!(
            "\n{}\n\nToday's counts, for BENCH_NAME_CEILINGS:\n{}",
            problems.join("\n"),
            table.join("\n")
        );
    }
}

#[test]
fn the_benchmark_name_counter_skips_core_the_own_crate_and_test_code() {
    let src = "let a = \"pilot\";\nlet b = [\"questbench\", \"intent2tx\"];\n#[cfg(test)]\nmod tests { \"pilot\" }\n";
    assert_eq!(
        bench_literals("crates/views/src/x.rs", src),
        [
            (1, "\"pilot\""),
            (2, "\"questbench\""),
            (2, "\"intent2tx\"")
        ]
    );
    assert_eq!(
        bench_literals("crates/pilot/src/x.rs", src),
        [(2, "\"questbench\""), (2, "\"intent2tx\"")]
    );
    assert!(bench_literals("crates/core/src/x.rs", src).is_empty());
    assert!(bench_literals("tests/it/x.rs", src).is_empty());
    assert!(bench_literals("crates/views/src/x/tests.rs", src).is_empty());
}
