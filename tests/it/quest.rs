//! QuestBench against the real universe, sandbox and gate: the catalogue loads, the schema is
//! current, previews are deterministic, reference solutions score 100 and known-wrong answers and
//! the reference runner's loopholes score below the pass threshold.

use std::path::PathBuf;

use crucible_chain::universe::{Manifest, Profile};
use crucible_questbench::atomic::{self, as_answer, Harness, Outcome, PASS_THRESHOLD};
use crucible_questbench::instance::Instance;
use crucible_questbench::task::{self, Task};

use crate::support::config;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tasks/questbench")
}

fn catalogue() -> Vec<Task> {
    task::load_dir(&dir()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_task_file_loads_and_the_slice_is_complete() {
    let tasks = catalogue();
    use crucible_questbench::task::Kind;
    let kind = |k: Kind| tasks.iter().filter(|t| t.spec.kind == k).count();
    assert_eq!((kind(Kind::Atomic), kind(Kind::Composite)), (62, 45));
    let count = |sub: &str| tasks.iter().filter(|t| t.spec.subcategory == sub).count();
    assert!(
        count("native_transfer") >= 7,
        "native transfer tasks: {}",
        count("native_transfer")
    );
    assert!(
        count("erc20_operations") >= 12,
        "erc20 tasks: {}",
        count("erc20_operations")
    );
    // Every check family is used by at least one task, so the self-test exercises each of them.
    let used: std::collections::BTreeSet<&str> = tasks
        .iter()
        .flat_map(|t| t.spec.checks.iter().map(|c| c.check.family()))
        .collect();
    for f in [
        "tx_success",
        "tx_to",
        "selector",
        "calldata_contains",
        "tx_value",
        "native_delta",
        "erc20_delta",
        "allowance_equals",
        "nft_owner",
        "nft_approved",
        "nft_operator",
        "erc1155_delta",
        "view_equals",
        "answer_equals",
    ] {
        assert!(used.contains(f), "no task uses {f}");
    }
    for t in &tasks {
        assert!(t.spec.templates.len() >= 3, "{}", t.id());
        t.reference_source().unwrap();
    }
}

#[test]
fn the_committed_schema_is_current() {
    let path = dir().join("task.schema.json");
    let want = task::schema_json();
    if std::env::var_os("CRUCIBLE_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "tasks/questbench/task.schema.json is stale: run `crucible quest schema > tasks/questbench/task.schema.json` \
         (or this test with CRUCIBLE_UPDATE_SCHEMA=1)"
    );
}

#[test]
fn instances_and_prompts_are_byte_identical_for_a_seed() {
    let cfg = config();
    let m = Manifest::load(&cfg, Profile::Bsc).unwrap();
    for t in catalogue() {
        let a = Instance::new(&t, 7, &m).unwrap();
        let b = Instance::new(&t, 7, &m).unwrap();
        let pa = atomic::preview(&t, &a, &m).to_string();
        assert_eq!(pa, atomic::preview(&t, &b, &m).to_string(), "{}", t.id());
        let c = Instance::new(&t, 8, &m).unwrap();
        assert_ne!(
            pa,
            atomic::preview(&t, &c, &m).to_string(),
            "{}: seed ignored",
            t.id()
        );
        // The key never reaches the prompt; every placeholder was filled.
        let prompt = atomic::prompt(&t, &a, &m);
        assert!(
            !prompt.contains(&hex::encode(a.signer().to_bytes())),
            "{}",
            t.id()
        );
        assert!(
            !a.text.contains('{'),
            "{}: unfilled placeholder in {:?}",
            t.id(),
            a.text
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selftest_passes_on_the_slice_with_two_seeds() {
    let tasks = catalogue();
    let report = crate::support::selftest_halves(&tasks, 2).await;
    assert_eq!(report.summary.tasks, tasks.len());
    let bad: Vec<String> = report
        .tasks
        .iter()
        .filter(|t| !t.ok)
        .map(|t| serde_json::to_string(t).unwrap())
        .collect();
    assert!(bad.is_empty(), "failing tasks:\n{}", bad.join("\n"));
    assert_eq!(report.summary.reference_perfect, tasks.len());
    assert_eq!(report.summary.wrong_rejected, report.summary.wrong_total);
}

/// The reference runner's loopholes (fact sheet §5.2) must not score on a transaction task.
#[tokio::test]
async fn reference_runner_loopholes_score_zero() {
    let h = Harness::start(&config())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let t = catalogue()
        .into_iter()
        .find(|t| t.id() == "erc20_approve")
        .unwrap();
    let inst = h.instance(&t, 1).unwrap();
    let module = |ret: &str| {
        format!(
            "export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {{\n  return {ret};\n}}\n"
        )
    };
    let cases = [
        // §5.2.1: the atomic short-circuit objects.
        ("{ success: true }", Outcome::SchemaInvalid),
        ("{ success: true, balances: {} }", Outcome::SchemaInvalid),
        ("{ type: 'QUERY_RESULT', data: { ok: 1 } }", Outcome::SchemaInvalid),
        ("{ query_result: { success: true, data: {} } }", Outcome::SchemaInvalid),
        // §5.2.6: self-consistency — approving an amount of its own choosing.
        (
            "{ to: '0x55d398326f99059fF775485246999027B3197955', data: '0x095ea7b3' + '0'.repeat(24) + '10ED43C718714eb63d5aA57B78B54704E256024E'.toLowerCase() + '0'.repeat(63) + '1' }",
            Outcome::Other,
        ),
    ];
    for (ret, want) in cases {
        let v = h
            .run_answer(&t, &inst, &as_answer(&module(ret)))
            .await
            .unwrap();
        assert!(v.score < PASS_THRESHOLD, "{ret}: scored {}", v.score);
        assert_eq!(v.outcome, want, "{ret}: {}", v.reason);
    }
    // A query task: an answer object without the schema's field, or a transaction, is
    // schema_invalid; the right field with a wrong value scores 0 (no partial credit for format).
    let q = catalogue()
        .into_iter()
        .find(|t| t.id() == "query_bnb_balance")
        .unwrap();
    let qi = h.instance(&q, 1).unwrap();
    for (ret, want, score) in [
        ("{ balance: '1' }", Outcome::SchemaInvalid, 0),
        (
            "{ to: agentAddress, value: '1' }",
            Outcome::SchemaInvalid,
            0,
        ),
        ("{ balance_wei: '12345' }", Outcome::Other, 0),
    ] {
        let v = h
            .run_answer(&q, &qi, &as_answer(&module(ret)))
            .await
            .unwrap();
        assert_eq!((v.outcome, v.score), (want, score), "{ret}: {}", v.reason);
    }
    // No code block at all.
    let v = h
        .run_answer(&t, &inst, "I would approve the router.")
        .await
        .unwrap();
    assert_eq!((v.score, v.outcome), (0, Outcome::SchemaInvalid));
    assert!(
        v.reason.contains("no TypeScript code block"),
        "{}",
        v.reason
    );
}

/// The chain inspector's evidence: a module that tries cheat methods and a send through the RPC
/// gate has them refused and recorded (counted per method), still gets its returned
/// transaction executed, and the stored transaction carries its logs and state diff, which the
/// trace viewer reads as an allowance set, the sender's fee and the token's storage write.
#[tokio::test]
async fn refused_cheats_are_recorded_and_the_inspector_reads_what_the_transaction_did() {
    use crucible_views::txview::Decoder;
    let h = Harness::start(&config())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let t = catalogue()
        .into_iter()
        .find(|t| t.id() == "erc20_approve")
        .unwrap();
    let inst = h.instance(&t, 1).unwrap();
    let module = "export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const rpc = (method: string, params: unknown[]) => fetch(providerUrl, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then((r) => r.json());
  await rpc('anvil_setBalance', [agentAddress, '0xffffffffffffffffffffff']);
  await rpc('anvil_setBalance', [agentAddress, '0x1']);
  await rpc('eth_sendTransaction', [{ from: agentAddress, to: agentAddress }]);
  await rpc('eth_blockNumber', []);
  return { to: '0x55d398326f99059fF775485246999027B3197955', data: '0x095ea7b3' + '0'.repeat(24) + '10ED43C718714eb63d5aA57B78B54704E256024E'.toLowerCase() + '0'.repeat(63) + '1' };
}
";
    let v = h.run_answer(&t, &inst, &as_answer(module)).await.unwrap();
    assert_eq!(v.outcome, Outcome::Other, "{}", v.reason);
    let refused: Vec<(&str, u64)> = v
        .refused_calls
        .iter()
        .map(|c| (c.method.as_str(), c.count))
        .collect();
    assert_eq!(
        refused,
        vec![("anvil_setBalance", 2), ("eth_sendTransaction", 1)],
        "the allowed read is not listed"
    );
    let tx = v.tx.clone().expect("the returned transaction was sent");
    assert!(tx["state_diff"]["accounts"].is_array(), "{tx}");
    let e = Decoder::load(&config())
        .effects(Profile::Bsc, &tx)
        .expect("logs and a state diff are stored");
    assert!(e.traced);
    assert_eq!(e.allowances.len(), 1, "{e:?}");
    assert!(e.allowances[0].token.starts_with("USDT"), "{e:?}");
    assert!(
        e.allowances[0].spender.starts_with("PancakeRouter"),
        "{e:?}"
    );
    assert_eq!(e.allowances[0].amount_raw.as_deref(), Some("1"));
    let agent = inst.agent.to_checksum(None);
    let paid = e
        .native
        .iter()
        .find(|c| c.address == agent)
        .expect("the agent paid a fee");
    assert!(
        paid.change.trim_start_matches("≈ ").starts_with('−'),
        "{paid:?}"
    );
    assert!(
        e.storage.iter().any(|c| c.contract.starts_with("USDT")),
        "the allowance is a storage write of the token: {e:?}"
    );
    assert_eq!(e.logs[0].event.as_deref(), Some("Approval"), "{e:?}");
    // The next sample starts with a clean list.
    let clean = h
        .run_answer(
            &t,
            &inst,
            &as_answer(&inst.render_solution(&t.reference_source().unwrap())),
        )
        .await
        .unwrap();
    assert_eq!(clean.score, 100);
    assert!(clean.refused_calls.is_empty(), "{:?}", clean.refused_calls);
}

/// The reference runner accepted any allowance and pre-granted approvals; here an approve task
/// checks the SAMPLED amount, and the same seed gives the same verdict twice in a row (snapshot
/// isolation: the first run's approval does not leak into the second).
#[tokio::test]
async fn samples_are_isolated_by_the_snapshot() {
    let h = Harness::start(&config())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let t = catalogue()
        .into_iter()
        .find(|t| t.id() == "erc20_increase_allowance")
        .unwrap();
    let inst = h.instance(&t, 3).unwrap();
    let answer = as_answer(&inst.render_solution(&t.reference_source().unwrap()));
    let a = h.run_answer(&t, &inst, &answer).await.unwrap();
    let b = h.run_answer(&t, &inst, &answer).await.unwrap();
    assert_eq!(a.score, 100, "{:?}", a.checks);
    assert_eq!(
        serde_json::to_string(&a.checks).unwrap(),
        serde_json::to_string(&b.checks).unwrap()
    );
}

/// QuestBench behind the run seam: the built-in reference agent passes, the known-wrong agent
/// fails, and the events tell the story.
#[tokio::test]
async fn the_seam_runs_builtin_agents() {
    use crucible_core::{run_builtin, Benchmark, Event};
    use crucible_questbench::seam::QuestBench;
    let h = Harness::start(&config())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let bench = QuestBench::new(catalogue(), h);
    assert!(bench
        .instances()
        .contains(&"bnb_transfer_basic".to_string()));
    let mut events = Vec::new();
    let mut sink = |e: Event| events.push(e);
    let good = run_builtin(&bench, "reference", "wbnb_deposit", 4, &mut sink)
        .await
        .unwrap();
    assert!(good.passed, "{}", good.details);
    assert_eq!((good.score, good.outcome.as_str()), (1.0, "exact"));
    let bad = run_builtin(&bench, "known-wrong", "wbnb_deposit", 4, &mut sink)
        .await
        .unwrap();
    assert!(!bad.passed && bad.score < 0.6, "{}", bad.details);
    assert!(matches!(events.first(), Some(Event::SampleStarted { .. })));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Note { kind, .. } if kind == "tx")));
    let err = run_builtin(&bench, "oracle", "wbnb_deposit", 4, &mut |_| {})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("reference, known-wrong"), "{err}");
    let err = run_builtin(&bench, "reference", "no_such_task", 4, &mut |_| {})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no_such_task"), "{err}");
}
