//! The TypeScript sandbox against a real Deno inside bubblewrap, a real Anvil and the RPC gate:
//! a correct module works, and every boundary holds against a real escape attempt.

use std::time::Duration;

use alloy::primitives::U256;
use crucible_chain::gate::Gate;
use crucible_chain::sandbox::{Call, FailureKind, Limits, Sandbox, SandboxRun, SandboxSlots};
use crucible_chain::Chain;
use serde_json::{json, Value};

use crate::support::{config, empty_chain};

struct Rig {
    chain: Chain,
    gate: Gate,
    sandbox: Sandbox,
}

async fn rig() -> Rig {
    let chain = empty_chain(56).await;
    let gate = Gate::start(&chain.url()).await.unwrap();
    let sandbox = Sandbox::new(&config()).unwrap_or_else(|e| panic!("{e}"));
    Rig {
        chain,
        gate,
        sandbox,
    }
}

/// Not one of Anvil's dev accounts, so it starts with nothing.
const AGENT: &str = "0x4a6f8e2b1c3d5e7f9a0b1c2d3e4f5a6b7c8d9e0f";

impl Rig {
    async fn run(&self, code: &str) -> SandboxRun {
        self.run_with(&self.sandbox, code).await
    }

    async fn run_with(&self, sandbox: &Sandbox, code: &str) -> SandboxRun {
        let call = Call {
            provider_url: self.gate.url(),
            agent_address: AGENT.into(),
            deployed_contracts: json!({"erc20_token": "0x55d398326f99059fF775485246999027B3197955"}),
            now_ms: Some(1_700_000_000_000),
        };
        sandbox
            .run(code, &call)
            .await
            .unwrap_or_else(|e| panic!("{e}"))
    }

    async fn failure(&self, code: &str) -> (FailureKind, String) {
        let run = self.run(code).await;
        match run.outcome {
            Ok(v) => panic!("expected a failure, got {v}"),
            Err(f) => (f.kind, f.message),
        }
    }
}

fn module(body: &str) -> String {
    format!(
        "import {{ ethers }} from \"ethers\";\nexport async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {{\n{body}\n}}\n"
    )
}

#[tokio::test]
async fn an_erc20_transfer_module_returns_its_transaction() {
    let rig = rig().await;
    rig.chain
        .set_balance(
            AGENT.parse().unwrap(),
            U256::from(10u64).pow(U256::from(18u64)),
        )
        .await
        .unwrap();
    let code = module(
        r#"const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const net = await provider.getNetwork();
  const bal = await provider.getBalance(agentAddress);
  const iface = new ethers.Interface(["function transfer(address to, uint256 amount) returns (bool)"]);
  const data = iface.encodeFunctionData("transfer", ["0x000000000000000000000000000000000000dEaD", ethers.parseUnits("1.5", 18)]);
  return { to: deployedContracts.erc20_token, data, value: "0", chainId: net.chainId, balance: bal };"#,
    );
    let run = rig.run(&code).await;
    let v: Value = run
        .outcome
        .unwrap_or_else(|f| panic!("{f:?}\nlogs: {}", run.logs));
    assert_eq!(v["to"], "0x55d398326f99059fF775485246999027B3197955");
    assert_eq!(
        v["chainId"], "56",
        "bigints are serialised as decimal strings"
    );
    assert_eq!(v["balance"], "1000000000000000000");
    assert!(v["data"].as_str().unwrap().starts_with("0xa9059cbb"));
}

#[tokio::test]
async fn reading_files_is_denied() {
    let rig = rig().await;
    let (kind, msg) = rig
        .failure(&module(r#"return await Deno.readTextFile("/etc/passwd");"#))
        .await;
    assert_eq!(kind, FailureKind::PermissionDenied, "{msg}");
    let (kind, msg) = rig
        .failure(&module(r#"const fs = await import("node:fs"); return fs.readFileSync("/etc/hostname", "utf8");"#))
        .await;
    assert_eq!(kind, FailureKind::PermissionDenied, "{msg}");
}

#[tokio::test]
async fn literal_imports_of_outside_files_find_nothing() {
    // Deno lets statically analysable imports skip --allow-read; bubblewrap is what stops this.
    let rig = rig().await;
    let secret = std::env::temp_dir().join(format!("crucible-secret-{}.json", std::process::id()));
    std::fs::write(&secret, r#"{"key":"s3cret"}"#).unwrap();
    let code = format!(
        "import data from \"{}\" with {{ type: \"json\" }};\nexport async function executeSkill(a: string, b: string, c: unknown) {{ return data; }}\n",
        secret.display()
    );
    let run = rig.run(&code).await;
    std::fs::remove_file(&secret).unwrap();
    let f = run.outcome.expect_err("the import must fail");
    assert!(
        !f.message.contains("s3cret") && !run.logs.contains("s3cret"),
        "secret leaked: {f:?}"
    );
    assert_eq!(f.kind, FailureKind::PermissionDenied, "{}", f.message);
    let run = rig.run("import \"/etc/passwd\";\nexport function executeSkill(a: string, b: string, c: unknown) { return 1; }\n").await;
    let f = run.outcome.expect_err("the import must fail");
    assert!(
        !f.message.contains("root:x:0:0"),
        "passwd leaked: {}",
        f.message
    );
}

#[tokio::test]
async fn reading_env_is_denied() {
    let rig = rig().await;
    let (kind, msg) = rig
        .failure(&module(r#"return Deno.env.get("HOME");"#))
        .await;
    assert_eq!(kind, FailureKind::PermissionDenied, "{msg}");
    let (kind, msg) = rig.failure(&module(r#"return Deno.env.toObject();"#)).await;
    assert_eq!(kind, FailureKind::PermissionDenied, "{msg}");
}

#[tokio::test]
async fn only_the_gate_port_is_reachable() {
    let rig = rig().await;
    // Anvil itself (the cheat channel) is on another port of the same host.
    let anvil = rig.chain.url();
    let (kind, msg) = rig
        .failure(&module(&format!(
            r#"const r = await fetch("{anvil}", {{ method: "POST", headers: {{"content-type": "application/json"}}, body: JSON.stringify({{jsonrpc: "2.0", id: 1, method: "anvil_setBalance", params: [agentAddress, "0xffffffffffff"]}}) }}); return await r.text();"#
        )))
        .await;
    assert_eq!(kind, FailureKind::PermissionDenied, "{msg}");
    let (kind, msg) = rig
        .failure(&module(
            r#"const c = await Deno.connect({ hostname: "127.0.0.1", port: 22 }); return 1;"#,
        ))
        .await;
    assert_eq!(kind, FailureKind::PermissionDenied, "{msg}");
    let (kind, msg) = rig
        .failure(&module(r#"await fetch("http://example.com/"); return 1;"#))
        .await;
    assert_eq!(kind, FailureKind::PermissionDenied, "{msg}");
    let (kind, msg) = rig
        .failure(&module(
            r#"await import("https://esm.sh/left-pad"); return 1;"#,
        ))
        .await;
    assert_eq!(kind, FailureKind::PermissionDenied, "{msg}");
    // Cheats through the allowed port are refused by the gate: the module sees an RPC error.
    let run = rig
        .run(&module(
            r#"const p = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  try { await p.send("anvil_setBalance", [agentAddress, "0xffffffffffff"]); return "cheated"; } catch (e) { return String(e); }"#,
        ))
        .await;
    let v = run.outcome.unwrap();
    assert!(v.as_str().unwrap().contains("not allowed"), "{v}");
    assert_eq!(
        rig.chain.balance(AGENT.parse().unwrap()).await.unwrap(),
        U256::ZERO
    );
}

#[tokio::test]
async fn spawning_processes_is_denied() {
    let rig = rig().await;
    let (kind, msg) = rig.failure(&module(r#"const o = await new Deno.Command("/usr/bin/id").output(); return new TextDecoder().decode(o.stdout);"#)).await;
    assert_eq!(kind, FailureKind::PermissionDenied, "{msg}");
    let (kind, msg) = rig
        .failure(&module(r#"const cp = await import("node:child_process"); return cp.execSync("/usr/bin/id").toString();"#))
        .await;
    assert_eq!(kind, FailureKind::PermissionDenied, "{msg}");
}

#[tokio::test]
async fn an_infinite_loop_hits_the_wall_clock_limit() {
    let rig = rig().await;
    let sandbox = rig.sandbox.clone().with_limits(Limits {
        timeout: Duration::from_secs(3),
        ..Limits::default()
    });
    let run = rig.run_with(&sandbox, &module("while (true) {}")).await;
    assert_eq!(run.outcome.unwrap_err().kind, FailureKind::Timeout);
    assert!(
        run.elapsed < Duration::from_secs(6),
        "killed promptly, took {:?}",
        run.elapsed
    );
}

#[tokio::test]
async fn unbounded_allocation_hits_the_memory_cap() {
    let rig = rig().await;
    let heap = rig
        .failure(&module(
            "const a: number[][] = []; while (true) { a.push(new Array(1e6).fill(1.5)); }",
        ))
        .await;
    assert_eq!(heap.0, FailureKind::Memory, "{}", heap.1);
    let buffers = rig
        .failure(&module("const a: Uint8Array[] = []; while (true) { const b = new Uint8Array(64 * 1024 * 1024); b.fill(1); a.push(b); }"))
        .await;
    assert_eq!(buffers.0, FailureKind::Memory, "{}", buffers.1);
}

#[tokio::test]
async fn shape_errors_are_classified() {
    let rig = rig().await;
    assert_eq!(
        rig.failure("export const x = 1;").await.0,
        FailureKind::NoExport
    );
    assert_eq!(
        rig.failure("export const executeSkill = 42;").await.0,
        FailureKind::WrongSignature
    );
    assert_eq!(
        rig.failure("export function executeSkill(a: string, b: string, c: unknown, d: unknown) { return 1; }").await.0,
        FailureKind::WrongSignature
    );
    let (kind, msg) = rig
        .failure(&module(r#"throw new Error("insufficient liquidity");"#))
        .await;
    assert_eq!(kind, FailureKind::Threw);
    assert!(msg.contains("insufficient liquidity"), "{msg}");
    assert_eq!(
        rig.failure("export function executeSkill( {{{ ").await.0,
        FailureKind::LoadError
    );
    let (kind, _) = rig
        .failure(&module(r#"return "x".repeat(5 * 1024 * 1024);"#))
        .await;
    assert_eq!(kind, FailureKind::OutputTooLarge);
    let (kind, _) = rig
        .failure(&module(
            r#"for (let i = 0; i < 100000; i++) console.log("y".repeat(100)); return 1;"#,
        ))
        .await;
    assert_eq!(kind, FailureKind::OutputTooLarge);
}

#[tokio::test]
async fn the_module_sees_the_harness_clock_not_the_wall_clock() {
    let rig = rig().await;
    let run = rig
        .run(&module(
            "const d = new Date(); return [Date.now(), d.getTime(), new Date(0).getTime(), Date.UTC(2020, 0, 1), d instanceof Date, typeof Date(), Math.floor(Date.now() / 1000) + 600];",
        ))
        .await;
    let v = run.outcome.unwrap_or_else(|f| panic!("{f:?}"));
    assert_eq!(
        v,
        json!([
            1_700_000_000_000u64,
            1_700_000_000_000u64,
            0,
            1_577_836_800_000u64,
            true,
            "string",
            1_700_000_600u64
        ])
    );
}

// ---- Hardening (issue #20): the OS layers hold on their own, even when Crucible runs as root
// and even where Deno's permission checks are switched off (`Sandbox::with_unchecked_deno`).

/// The deno process under the sandbox whose outermost process is `root` (bubblewrap).
fn deno_under(root: u32) -> Option<u32> {
    let mut parents = std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": comm may hold spaces, so split after the last ')'.
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let comm = stat[stat.find('(').unwrap_or(0) + 1..close].to_string();
        let ppid: u32 = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        parents.insert(pid, (ppid, comm));
    }
    parents.iter().find_map(|(&pid, (_, comm))| {
        let mut p = pid;
        for _ in 0..8 {
            let (ppid, _) = parents.get(&p)?;
            if *ppid == root {
                return (comm == "deno").then_some(pid);
            }
            p = *ppid;
        }
        None
    })
}

/// Runs `code` on a prepared process of `sandbox` and, while it runs, reads `/proc/<deno>/<file>`
/// for each file from outside.
async fn observe(
    rig: &Rig,
    sandbox: &Sandbox,
    code: &str,
    files: &[&str],
) -> (Vec<String>, SandboxRun) {
    let call = Call {
        provider_url: rig.gate.url(),
        agent_address: AGENT.into(),
        deployed_contracts: json!({}),
        now_ms: None,
    };
    let prepared = sandbox
        .prepare(&call.provider_url)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let root = prepared.pid().expect("the sandbox process has a pid");
    let code = code.to_string();
    let running = tokio::spawn(async move { prepared.run(&code, &call).await });
    let mut seen = Vec::new();
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        if let Some(deno) = deno_under(root) {
            seen = files
                .iter()
                .map(|f| std::fs::read_to_string(format!("/proc/{deno}/{f}")).unwrap_or_default())
                .collect();
            if seen.iter().all(|s| !s.is_empty()) {
                break;
            }
        }
    }
    let run = running.await.unwrap().unwrap_or_else(|e| panic!("{e}"));
    assert!(!seen.is_empty(), "no deno process found under pid {root}");
    (seen, run)
}

fn status_field<'a>(status: &'a str, name: &str) -> &'a str {
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no {name} in {status}"))
}

const STAY_ALIVE: &str = "export async function executeSkill(a: string, b: string, c: unknown) { await new Promise((r) => setTimeout(r, 1500)); return 1; }\n";

#[tokio::test]
async fn the_module_runs_without_capabilities_and_as_an_unprivileged_uid() {
    let rig = rig().await;
    let (seen, run) = observe(&rig, &rig.sandbox, STAY_ALIVE, &["status"]).await;
    assert_eq!(run.outcome.unwrap_or_else(|f| panic!("{f:?}")), json!(1));
    let status = &seen[0];
    assert_eq!(
        status_field(status, "CapEff:"),
        "0000000000000000",
        "{status}"
    );
    assert_eq!(
        status_field(status, "CapPrm:"),
        "0000000000000000",
        "{status}"
    );
    let uid = status_field(status, "Uid:");
    assert!(
        uid.split_whitespace().all(|u| u != "0"),
        "the module must not run as uid 0 (running as uid {}): {uid}",
        std::fs::read_to_string("/proc/self/status")
            .map(|s| status_field(&s, "Uid:").to_string())
            .unwrap_or_default()
    );
    let gid = status_field(status, "Gid:");
    assert!(gid.split_whitespace().all(|g| g != "0"), "{gid}");
}

#[tokio::test]
async fn read_only_binds_stay_read_only_even_without_denos_checks() {
    let rig = rig().await;
    let open = rig.sandbox.clone().with_unchecked_deno();
    let run = rig
        .run_with(
            &open,
            r#"export async function executeSkill(a: string, b: string, c: unknown) {
  const out: Record<string, string> = {};
  try { await Deno.writeTextFile("/sandbox/work/owned.ts", "x"); out.write = "written"; } catch (e) { out.write = String(e); }
  try {
    const o = await new Deno.Command("/usr/bin/mount", { args: ["-o", "remount,bind,rw", "/sandbox/work"] }).output();
    out.remount = `exit ${o.code}: ${new TextDecoder().decode(o.stderr)}`;
  } catch (e) { out.remount = "spawn failed: " + String(e); }
  try { await Deno.writeTextFile("/sandbox/work/owned.ts", "x"); out.after = "written"; } catch (e) { out.after = String(e); }
  return out;
}
"#,
        )
        .await;
    let v = run
        .outcome
        .unwrap_or_else(|f| panic!("{f:?}\n{}", run.logs));
    assert!(v["write"].as_str().unwrap().contains("Read-only"), "{v}");
    let remount = v["remount"].as_str().unwrap();
    assert!(
        !remount.starts_with("spawn failed"),
        "/usr/bin/mount is needed for this test (apt-get install mount): {remount}"
    );
    assert!(!remount.starts_with("exit 0"), "remount succeeded: {v}");
    assert!(v["after"].as_str().unwrap().contains("Read-only"), "{v}");
}

#[tokio::test]
async fn the_module_has_its_own_network_namespace() {
    let rig = rig().await;
    let host = std::fs::read_link("/proc/self/ns/net").unwrap();
    let prepared = rig
        .sandbox
        .prepare(&rig.gate.url())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let root = prepared.pid().unwrap();
    let mut theirs = None;
    for _ in 0..100 {
        if let Some(deno) = deno_under(root) {
            theirs = std::fs::read_link(format!("/proc/{deno}/ns/net")).ok();
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let theirs = theirs.expect("the prepared deno process");
    assert_ne!(
        theirs, host,
        "the sandbox shares the host's network namespace"
    );
}

#[tokio::test]
async fn other_loopback_ports_are_unreachable_even_without_denos_checks() {
    let rig = rig().await;
    let open = rig.sandbox.clone().with_unchecked_deno();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mine = listener.local_addr().unwrap().port();
    let anvil: u16 = rig
        .chain
        .url()
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let code = format!(
        r#"import {{ ethers }} from "ethers";
export async function executeSkill(providerUrl: string, agentAddress: string, c: unknown) {{
  const out: Record<string, string> = {{}};
  for (const [name, port] of [["anvil", {anvil}], ["listener", {mine}]]) {{
    try {{ const conn = await Deno.connect({{ hostname: "127.0.0.1", port: port as number }}); conn.close(); out[name as string] = "connected"; }}
    catch (e) {{ out[name as string] = String(e); }}
  }}
  const p = new ethers.JsonRpcProvider(providerUrl, undefined, {{ staticNetwork: true }});
  out.gate = String((await p.getNetwork()).chainId);
  return out;
}}
"#
    );
    let run = rig.run_with(&open, &code).await;
    drop(listener);
    let v = run
        .outcome
        .unwrap_or_else(|f| panic!("{f:?}\n{}", run.logs));
    assert_eq!(v["gate"], "56", "JSON-RPC through the gate works: {v}");
    for name in ["anvil", "listener"] {
        let r = v[name].as_str().unwrap();
        assert!(
            r.contains("refused") || r.contains("unreachable"),
            "{name}: {r}"
        );
    }
}

#[tokio::test]
async fn each_sandbox_has_its_own_deno_cache() {
    let rig = rig().await;
    let cfg = config();
    let open = Sandbox::new(&cfg)
        .unwrap_or_else(|e| panic!("{e}"))
        .with_unchecked_deno();
    let write = r#"export async function executeSkill(a: string, b: string, c: unknown) {
  const dir = Deno.env.get("DENO_DIR") ?? "";
  await Deno.writeTextFile(dir + "/probe.txt", "planted");
  await Deno.writeTextFile(dir + "/gen/probe.txt", "planted");
  return dir;
}
"#;
    let run = rig.run_with(&open, write).await;
    let dir = run
        .outcome
        .unwrap_or_else(|f| panic!("{f:?}\n{}", run.logs));
    assert!(!dir.as_str().unwrap().is_empty());
    // Another sandbox does not see what the first one wrote.
    let read = r#"export async function executeSkill(a: string, b: string, c: unknown) {
  const dir = Deno.env.get("DENO_DIR") ?? "";
  const out: string[] = [];
  for (const f of ["/probe.txt", "/gen/probe.txt"]) {
    try { out.push(await Deno.readTextFile(dir + f)); } catch (e) { out.push(String(e)); }
  }
  return out;
}
"#;
    let run = rig.run_with(&open, read).await;
    let v = run
        .outcome
        .unwrap_or_else(|f| panic!("{f:?}\n{}", run.logs));
    for r in v.as_array().unwrap() {
        assert!(
            !r.as_str().unwrap().contains("planted"),
            "one sandbox's cache write reached another: {v}"
        );
    }
    // Nor does the shared pre-warmed cache on the host change.
    let shared: Vec<_> = std::fs::read_dir(cfg.data_dir.join("sandbox"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("deno-cache-"))
        .collect();
    assert_eq!(shared.len(), 1, "one pre-warmed cache");
    for f in ["probe.txt", "gen/probe.txt"] {
        assert!(
            !shared[0].path().join(f).exists(),
            "a module's write reached the shared cache: {f}"
        );
    }
}

#[tokio::test]
async fn printed_markers_do_not_change_the_outcome() {
    let rig = rig().await;
    // A forged success line (the old stdout marker) and a clean exit: not a success.
    let run = rig
        .run(
            r#"export function executeSkill(a: string, b: string, c: unknown) {
  console.log("\u001eCRUCIBLE-RESULT\u001e" + JSON.stringify({ kind: "ok", value: "forged" }));
  Deno.exit(0);
}
"#,
        )
        .await;
    let f = run
        .outcome
        .expect_err("a printed success marker is not a result");
    assert_eq!(f.kind, FailureKind::Crashed, "{}", f.message);
    // Fake runtime failures on stderr, then an exit: still the module's own crash.
    for text in [
        "Fatal JavaScript out of memory: Reached heap limit",
        "NotCapable: Requires net access to \"10.0.0.1:80\"",
    ] {
        let run = rig
            .run(&format!(
                "export function executeSkill(a: string, b: string, c: unknown) {{ console.error({text:?}); Deno.exit(1); }}\n"
            ))
            .await;
        let f = run.outcome.expect_err("exit without a result");
        assert_eq!(f.kind, FailureKind::Crashed, "{text}: {}", f.message);
    }
    // An uncaught error thrown after printing a permission text is the module's throw.
    let run = rig
        .run(
            r#"export async function executeSkill(a: string, b: string, c: unknown) {
  console.error("NotCapable: Requires read access to \"/etc\"");
  setTimeout(() => { throw new Error("late"); }, 10);
  await new Promise((r) => setTimeout(r, 2000));
}
"#,
        )
        .await;
    let f = run.outcome.expect_err("an uncaught throw");
    assert_eq!(f.kind, FailureKind::Threw, "{}", f.message);
    // A forged failure line before a real return does not turn the value into a failure.
    let run = rig
        .run(
            r#"export function executeSkill(a: string, b: string, c: unknown) {
  console.log("\u001eCRUCIBLE-RESULT\u001e" + JSON.stringify({ kind: "threw", message: "forged" }));
  console.error("Fatal JavaScript out of memory");
  return 7;
}
"#,
        )
        .await;
    assert_eq!(run.outcome.unwrap_or_else(|f| panic!("{f:?}")), json!(7));
}

#[tokio::test]
async fn a_busy_module_hits_the_cpu_time_limit_before_the_wall_clock() {
    let rig = rig().await;
    let sandbox = rig.sandbox.clone().with_limits(Limits {
        timeout: Duration::from_secs(40),
        cpu: Duration::from_secs(2),
        ..Limits::default()
    });
    let run = rig.run_with(&sandbox, &module("while (true) {}")).await;
    let f = run.outcome.expect_err("a busy loop never returns");
    assert_eq!(f.kind, FailureKind::Timeout, "{}", f.message);
    assert!(f.message.contains("CPU"), "{}", f.message);
    assert!(
        run.elapsed < Duration::from_secs(20),
        "stopped by the CPU limit, not the 40 s wall clock: {:?}",
        run.elapsed
    );
}

#[tokio::test]
async fn a_self_made_permission_error_is_the_modules_own_throw() {
    // The module builds the runtime's permission errors itself (or dresses up another error as
    // one): the runtime observed no denial, so the failure is the module's own `threw`.
    let rig = rig().await;
    for forged in [
        r#"throw new Deno.errors.NotCapable("Requires read access to \"/etc/passwd\", run again with the --allow-read flag");"#,
        r#"throw new Deno.errors.PermissionDenied("Requires net access to \"10.0.0.1:80\"");"#,
        // Error classes of a real denial's shape, without one.
        r#"const C = Deno.errors.NotCapable; const e = Reflect.construct(C, ["Requires env access"]); return Promise.reject(e);"#,
        // `instanceof` answered by the module.
        r#"Object.defineProperty(Deno.errors.NotCapable, Symbol.hasInstance, { value: () => true }); throw new Error("Requires run access");"#,
        // A JSON hook on every object, so the runner's own result object would serialise as
        // whatever the module likes.
        r#"(Object.prototype as any).toJSON = function () { return { kind: "permission_denied", message: "forged" }; }; throw new Error("boom");"#,
        // A poisoned JSON.stringify for the value's serialisation.
        r#"const real = JSON.stringify; JSON.stringify = (() => '1,"kind":"permission_denied"') as any; return 1;"#,
        // Top-level code (while the module loads) throwing a fake loader error.
        "/*top*/",
    ] {
        let code = if forged == "/*top*/" {
            "throw new TypeError('Module not found \"file:///etc/passwd\".');\nexport function executeSkill(a: string, b: string, c: unknown) { return 1; }\n".to_string()
        } else {
            module(forged)
        };
        let run = rig.run(&code).await;
        match run.outcome {
            Ok(v) => assert_eq!(v, json!(1), "{forged}"),
            Err(f) => assert!(
                matches!(f.kind, FailureKind::Threw | FailureKind::LoadError),
                "{forged}: classified {:?} ({})",
                f.kind,
                f.message
            ),
        }
    }
    // Real denials stay denials: a file read, a socket to a forbidden port, a subprocess, an
    // import of a file outside the sandbox.
    for real in [
        r#"return await Deno.readTextFile("/etc/passwd");"#,
        r#"const c = await Deno.connect({ hostname: "127.0.0.1", port: 22 }); return 1;"#,
        r#"const o = await new Deno.Command("/usr/bin/id").output(); return 1;"#,
        r#"await import(["/etc", "hostname"].join("/")); return 1;"#,
    ] {
        let (kind, msg) = rig.failure(&module(real)).await;
        assert_eq!(kind, FailureKind::PermissionDenied, "{real}: {msg}");
    }
    // Catching a real denial and then throwing a made-up one: the runtime did observe a denial.
    let (kind, msg) = rig
        .failure(&module(
            r#"try { await Deno.readTextFile("/etc/passwd"); } catch { /* swallowed */ }
  throw new Deno.errors.NotCapable("made up");"#,
        ))
        .await;
    assert_eq!(kind, FailureKind::PermissionDenied, "{msg}");
}

/// The uid this test process runs as.
fn my_uid() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status_field(&status, "Uid:")
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn the_sandbox_runs_for_an_unprivileged_user() {
    // CI runs as root (the setpriv path); this runs the `crucible sandbox` CLI as uid/gid 65534,
    // so the user-namespace path is exercised too. As a normal user the CLI runs as that user.
    const NOBODY: u32 = 65534;
    let as_root = my_uid() == 0;
    let drop_to_nobody = |cmd: &str| {
        let mut c = std::process::Command::new("/usr/bin/setpriv");
        c.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            "--",
        ])
        .arg(cmd);
        c
    };
    let mut probe = if as_root {
        drop_to_nobody("/usr/bin/unshare")
    } else {
        std::process::Command::new("/usr/bin/unshare")
    };
    let probe = probe
        .args(["--user", "--map-root-user", "/bin/true"])
        .output()
        .expect("util-linux's setpriv and unshare are needed (apt-get install util-linux)");
    assert!(
        probe.status.success(),
        "unprivileged user namespaces are unavailable on this machine, so bubblewrap cannot \
         sandbox a module for a normal user (`unshare --user --map-root-user true` as an \
         unprivileged user: {}); enable them (sysctl kernel.unprivileged_userns_clone=1, \
         user.max_user_namespaces > 0, or the AppArmor userns restriction off)",
        String::from_utf8_lossy(&probe.stderr).trim()
    );

    let dir = tempfile::Builder::new()
        .prefix("crucible-nobody-")
        .tempdir()
        .unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let agent = dir.path().join("agent.ts");
    std::fs::write(
        &agent,
        r#"import { ethers } from "ethers";
export async function executeSkill(providerUrl: string, agentAddress: string, c: unknown) {
  const p = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const chainId = (await p.getNetwork()).chainId;
  await new Promise((r) => setTimeout(r, 2000));
  return { chainId, agentAddress };
}
"#,
    )
    .unwrap();
    // The vendored libraries' bundles, made here: `deno bundle` fetches esbuild into the user's
    // own Deno cache, which a fresh uid lacks (and CI has no registry access). The sandbox itself,
    // its Deno cache included, is then prepared by the unprivileged CLI.
    let cfg = config();
    Sandbox::new(&cfg).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(data.join("sandbox")).unwrap();
    let mut bundles = vec![data.join("sandbox")];
    for e in std::fs::read_dir(cfg.data_dir.join("sandbox"))
        .unwrap()
        .flatten()
    {
        let name = e.file_name();
        if name.to_string_lossy().ends_with(".js") {
            std::fs::copy(e.path(), data.join("sandbox").join(&name)).unwrap();
            bundles.push(data.join("sandbox").join(&name));
        }
    }
    if as_root {
        for p in [dir.path(), &data, &agent]
            .into_iter()
            .chain(bundles.iter().map(|b| b.as_path()))
        {
            std::os::unix::fs::chown(p, Some(NOBODY), Some(NOBODY)).unwrap();
        }
    }
    let exe = env!("CARGO_BIN_EXE_crucible");
    let mut cmd = if as_root {
        drop_to_nobody(exe)
    } else {
        std::process::Command::new(exe)
    };
    let mut child = cmd
        .arg("sandbox")
        .arg(&agent)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &data)
        .env("CRUCIBLE_DATA_DIR", &data)
        .env("CRUCIBLE_PROJECT_DIR", config().project_dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let root = child.id();
    let host_net = std::fs::read_link("/proc/self/ns/net").unwrap();
    // Watch from outside while the module waits (the CLI first boots a universe and, in a new
    // data dir, bundles ethers and warms the Deno cache).
    let mut seen = None;
    for _ in 0..1200 {
        if child.try_wait().ok().flatten().is_some() {
            break;
        }
        if let Some(deno) = deno_under(root) {
            let status =
                std::fs::read_to_string(format!("/proc/{deno}/status")).unwrap_or_default();
            let net = std::fs::read_link(format!("/proc/{deno}/ns/net")).ok();
            // Skip the warm-up run's process: wait for the one running our module (its cache
            // is then in place); both are sandboxed the same way anyway.
            if !status.is_empty() && net.is_some() {
                seen = Some((status, net.unwrap()));
                if data.join("sandbox").read_dir().is_ok_and(|mut d| {
                    d.any(|e| {
                        e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("deno-cache-"))
                    })
                }) {
                    break;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "crucible sandbox as an unprivileged user failed: {stderr}"
    );
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let value = &v["outcome"]["Ok"];
    assert_eq!(value["chainId"], "56", "{v}");
    let (status, net) = seen.expect("no deno process seen under the unprivileged CLI");
    assert_eq!(
        status_field(&status, "CapEff:"),
        "0000000000000000",
        "{status}"
    );
    assert_eq!(
        status_field(&status, "CapPrm:"),
        "0000000000000000",
        "{status}"
    );
    assert!(
        status_field(&status, "Uid:")
            .split_whitespace()
            .all(|u| u != "0"),
        "{status}"
    );
    assert_ne!(
        net, host_net,
        "the sandbox shares the host's network namespace"
    );
}

/// Live Deno processes serving the gate on `port` (their command line ends with it).
/// Deno processes of this test process (its descendants) serving the gate at `port`: a sandbox
/// left by another process on the machine, even one whose gate had the same port, is not ours
/// and does not count.
fn denos_for_gate(port: u16) -> usize {
    let tail = format!("/sandbox/runner.ts\0{port}\0");
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter(|e| {
                    let p = e.path();
                    std::fs::read_to_string(p.join("comm")).is_ok_and(|c| c.trim() == "deno")
                        && std::fs::read(p.join("cmdline"))
                            .is_ok_and(|c| c.ends_with(tail.as_bytes()))
                        && e.file_name()
                            .to_str()
                            .and_then(|pid| pid.parse().ok())
                            .is_some_and(|pid| descends_from(pid, me))
                })
                .count()
        })
        .unwrap_or(0)
}

/// Whether `pid`'s chain of parents reaches `ancestor`.
fn descends_from(mut pid: u32, ancestor: u32) -> bool {
    for _ in 0..64 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // The parent is the second field after the parenthesised name.
        let Some(ppid) = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            return false;
        };
        if ppid == ancestor {
            return true;
        }
        if ppid <= 1 {
            return false;
        }
        pid = ppid;
    }
    false
}

#[tokio::test]
async fn prepared_sandboxes_stay_within_the_process_wide_cap() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;

    const CAP: usize = 3;
    let rig = rig().await;
    let slots = SandboxSlots::new(CAP);
    let sandbox = rig.sandbox.clone().with_slots(slots.clone());
    let port: u16 = rig.gate.url().rsplit(':').next().unwrap().parse().unwrap();
    // Warm the Deno cache (a one-off run) before counting.
    let warm = rig.run_with(&sandbox, &module("return 0;")).await;
    assert_eq!(warm.outcome.unwrap_or_else(|f| panic!("{f:?}")), json!(0));
    let most = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = std::thread::spawn({
        let (most, stop) = (most.clone(), stop.clone());
        move || {
            while !stop.load(Ordering::Relaxed) {
                most.fetch_max(denos_for_gate(port), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    });
    // More prepared sandboxes than slots, all held at once (as parked episodes hold theirs).
    let mut prepared = Vec::new();
    for _ in 0..3 * CAP {
        prepared.push(
            sandbox
                .prepare(&rig.gate.url())
                .await
                .unwrap_or_else(|e| panic!("{e}")),
        );
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let evicted = slots.evictions();
    // Every module still runs, through the gate, whether its process survived or not; all at
    // once, so some wait for a slot.
    let runs = prepared.into_iter().enumerate().map(|(i, p)| {
        let call = Call {
            provider_url: rig.gate.url(),
            agent_address: AGENT.into(),
            deployed_contracts: json!({}),
            now_ms: None,
        };
        let code = module(&format!(
            "const p = new ethers.JsonRpcProvider(providerUrl, undefined, {{ staticNetwork: true }});\n  await new Promise((r) => setTimeout(r, 300));\n  return [{i}, (await p.getNetwork()).chainId];"
        ));
        tokio::spawn(async move { p.run(&code, &call).await })
    });
    let mut results = Vec::new();
    for handle in runs.collect::<Vec<_>>() {
        results.push(handle.await.unwrap());
    }
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    for (i, r) in results.into_iter().enumerate() {
        let run = r.unwrap_or_else(|e| panic!("{e}"));
        let v = run
            .outcome
            .unwrap_or_else(|f| panic!("module {i}: {f:?}\n{}", run.logs));
        assert_eq!(v, json!([i, "56"]));
    }
    let most = most.load(Ordering::Relaxed);
    assert!(most > 0, "the sampler saw no sandbox process");
    assert!(
        most <= CAP,
        "{most} sandbox processes were alive at once; the cap is {CAP}"
    );
    assert!(
        evicted >= 2 * CAP as u64,
        "the oldest idle ones were evicted: {evicted}"
    );
    assert_eq!(slots.in_use(), 0, "every slot is free again");
    // Within the cap nothing is evicted, and a process that ran its module frees its slot.
    let before = slots.evictions();
    let mut again = Vec::new();
    for _ in 0..CAP {
        again.push(
            sandbox
                .prepare(&rig.gate.url())
                .await
                .unwrap_or_else(|e| panic!("{e}")),
        );
    }
    for p in again {
        let call = Call {
            provider_url: rig.gate.url(),
            agent_address: AGENT.into(),
            deployed_contracts: json!({}),
            now_ms: None,
        };
        let run = p.run(&module("return 2;"), &call).await.unwrap();
        assert_eq!(run.outcome.unwrap_or_else(|f| panic!("{f:?}")), json!(2));
    }
    assert_eq!(slots.evictions(), before, "nothing evicted within the cap");
    assert_eq!(slots.in_use(), 0, "a slot is freed when its module is done");
}
