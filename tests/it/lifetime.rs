//! Every process Crucible starts dies with it: a `crucible run` killed mid-work (SIGKILL, which
//! runs no destructor, and SIGTERM) leaves none of its sandboxes, bubblewrap monitors or Anvils
//! behind. The tests count only the processes the killed command started (its descendants, told
//! apart from a reused PID by their start time), never machine-wide.

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A live process: its PID and kernel start time (field 22 of `/proc/PID/stat`).
type Proc = (u32, u64);

/// (parent PID, start time, state, command name) of `pid`, if it exists.
fn stat(pid: u32) -> Option<(u32, u64, char, String)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name is in parentheses and may hold spaces: split after the last ')'.
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text[open + 1..close].to_string();
    let rest: Vec<&str> = text[close + 2..].split_whitespace().collect();
    let state = rest.first()?.chars().next()?;
    let ppid = rest.get(1)?.parse().ok()?;
    // Field 22 overall is index 19 after the state (field 3).
    let start = rest.get(19)?.parse().ok()?;
    Some((ppid, start, state, comm))
}

/// Every live descendant of `root`, by command name.
fn descendants(root: u32) -> BTreeMap<Proc, String> {
    let mut parent = BTreeMap::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Some((ppid, start, state, comm)) = stat(pid) {
            if state != 'Z' {
                parent.insert(pid, (ppid, start, comm));
            }
        }
    }
    let mut out = BTreeMap::new();
    for (&pid, (_, start, comm)) in &parent {
        let mut cur = pid;
        let mut hops = 0;
        while let Some((ppid, _, _)) = parent.get(&cur) {
            if *ppid == root {
                out.insert((pid, *start), comm.clone());
                break;
            }
            cur = *ppid;
            hops += 1;
            if hops > 64 || cur <= 1 {
                break;
            }
        }
    }
    out
}

/// Which of `procs` are still alive (same PID, same start time, not a zombie).
fn survivors(procs: &BTreeMap<Proc, String>) -> Vec<String> {
    procs
        .iter()
        .filter(|((pid, start), _)| {
            stat(*pid).is_some_and(|(_, s, state, _)| s == *start && state != 'Z')
        })
        .map(|((pid, _), comm)| format!("{comm} ({pid})"))
        .collect()
}

fn start_run(data: &std::path::Path) -> Child {
    // QuestBench with the reference agent: Anvils for the chain and a Deno sandbox in
    // bubblewrap per executed module, prepared sandboxes parked between samples.
    Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args([
            "run",
            "--bench",
            "questbench",
            "--model",
            "builtin:reference",
            "--rounds",
            "3",
            "--concurrency",
            "4",
            "--db",
        ])
        .arg(data.join("runs.db"))
        .env("CRUCIBLE_DATA_DIR", data)
        .env("CRUCIBLE_PROJECT_DIR", env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// `crucible sandbox` on a module that waits ten minutes on a timer (no CPU, no stdin, no
/// gate): only a parent-death signal can end it early. In a fresh data dir, so the first thing
/// the command does is the Deno cache warm-up.
fn start_sleeping_module(data: &std::path::Path) -> Child {
    let module = data.join("sleeper.ts");
    std::fs::write(
        &module,
        "export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {\n  await new Promise((r) => setTimeout(r, 600000));\n  return 0;\n}\n",
    )
    .unwrap();
    Command::new(env!("CARGO_BIN_EXE_crucible"))
        .arg("sandbox")
        .arg(&module)
        .env("CRUCIBLE_DATA_DIR", data)
        .env("CRUCIBLE_PROJECT_DIR", env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits until `child` has a live descendant of each of `names`; returns all its descendants.
fn wait_for(child: &mut Child, names: &[&str]) -> BTreeMap<Proc, String> {
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        let procs = descendants(pid);
        if names.iter().all(|n| procs.values().any(|c| c == n)) {
            return procs;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the command ended before it had {names:?} alive"
        );
        assert!(
            Instant::now() < deadline,
            "no {names:?} alive within 240 s; descendants: {:?}",
            procs.values().collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Kills `child` with `signal` and asserts that none of `started` outlives it.
fn kill_and_count(mut child: Child, started: &BTreeMap<Proc, String>, signal: &str) {
    let pid = child.id();
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    child.wait().unwrap();
    all_gone(started, &format!("after the command's {signal}"));
}

/// Waits (10 s at most: the kernel delivers parent-death signals at once, reaping takes a
/// moment) until none of `started` is alive; fails naming the survivors.
fn all_gone(started: &BTreeMap<Proc, String>, when: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = survivors(started);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{} of the {} processes the command started were still alive {when}: {left:?}",
            left.len(),
            started.len()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts a run, waits until it has both sandboxes and Anvils alive, kills it with `signal` and
/// asserts that nothing it started outlives it.
fn killed_run_leaves_nothing(signal: &str) {
    let data = tempfile::tempdir().unwrap();
    let mut child = start_run(data.path());
    let started = wait_for(&mut child, &["bwrap", "anvil", "deno"]);
    kill_and_count(child, &started, signal);
}

#[test]
fn a_sigkilled_sandbox_command_takes_its_running_module_with_it() {
    let data = tempfile::tempdir().unwrap();
    let mut child = start_sleeping_module(data.path());
    // Past the warm-up: the module's own sandbox is up (its runner waits on the timer).
    let deadline = Instant::now() + Duration::from_secs(240);
    let started = loop {
        let procs = wait_for(&mut child, &["bwrap", "deno"]);
        let warmed = std::fs::read_dir(data.path().join("sandbox"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("deno-cache"));
        if warmed {
            std::thread::sleep(Duration::from_millis(500));
            break wait_for(&mut child, &["bwrap", "deno"]);
        }
        assert!(Instant::now() < deadline, "never warmed: {procs:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    kill_and_count(child, &started, "-KILL");
    // The warmed cache every later sandbox copies is nobody else's to change: not writable by
    // others, and (as root) nothing in it left owned by the sandbox's uid 65534.
    let cache = std::fs::read_dir(data.path().join("sandbox"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("deno-cache"))
        .unwrap()
        .path();
    let mut stack = vec![cache];
    while let Some(p) = stack.pop() {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::symlink_metadata(&p).unwrap();
        if !m.file_type().is_symlink() {
            assert_eq!(m.mode() & 0o002, 0, "{} is world-writable", p.display());
        }
        if crucible_core::effective_uid() == Some(0) {
            assert_ne!(m.uid(), 65534, "{} is still the sandbox's", p.display());
        }
        if m.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().flatten().map(|e| e.path()));
        }
    }
}

#[test]
fn a_sigkilled_warm_up_takes_its_sandbox_with_it() {
    let data = tempfile::tempdir().unwrap();
    let mut child = start_sleeping_module(data.path());
    // The first sandbox of a fresh data dir is the Deno cache warm-up.
    let started = wait_for(&mut child, &["bwrap", "deno"]);
    kill_and_count(child, &started, "-KILL");
}

/// Killed in the first milliseconds of a sandbox's start, before bubblewrap's inner process has
/// its own parent-death signal, a sandbox can outlive Crucible (bubblewrap's limit): the next
/// Crucible to start a sandbox ends it and removes its work directory.
#[test]
fn a_sandbox_killed_while_starting_is_ended_by_the_next_crucible() {
    let data = tempfile::tempdir().unwrap();
    let mut child = start_sleeping_module(data.path());
    let started = wait_for(&mut child, &["bwrap"]);
    let status = Command::new("kill")
        .args(["-KILL", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    child.wait().unwrap();
    // The next Crucible: a module that returns at once.
    let quick = data.path().join("quick.ts");
    std::fs::write(
        &quick,
        "export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {\n  return 1;\n}\n",
    )
    .unwrap();
    let out = crate::support::crucible_command(data.path())
        .arg("sandbox")
        .arg(&quick)
        .output()
        .unwrap();
    crate::support::succeeded(&out);
    all_gone(&started, "after the next Crucible started a sandbox");
}

#[test]
fn a_sigkilled_run_takes_its_sandboxes_and_anvils_with_it() {
    killed_run_leaves_nothing("-KILL");
}

#[test]
fn a_sigtermed_run_takes_its_sandboxes_and_anvils_with_it() {
    killed_run_leaves_nothing("-TERM");
}
