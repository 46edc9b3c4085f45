//! The TypeScript sandbox against a real Deno inside bubblewrap, a real Anvil and the RPC gate:
//! a correct module works, and every boundary holds against a real escape attempt.

use std::time::Duration;

use alloy::primitives::U256;
use crucible_chain::gate::Gate;
use crucible_chain::sandbox::{Call, FailureKind, Limits, Sandbox, SandboxRun};
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
