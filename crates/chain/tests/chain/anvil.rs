//! The chain module against a real Anvil: lifecycle, snapshots, signing, reads, the gate, fork mode.

use std::str::FromStr;
use std::time::Duration;

use alloy::primitives::{address, U256};
use alloy::signers::local::PrivateKeySigner;
use crucible_chain::gate::Gate;
use crucible_chain::{AnvilSpec, Chain, Rpc, StateSource, TxRequest};
use serde_json::{json, Value};

use crate::support::{config, empty_chain, pids_matching, DEV_KEY};

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.split_whitespace().nth(2) != Some("Z"))
        .unwrap_or(false)
}

#[tokio::test]
async fn anvil_boots_with_chain_id_and_dies_with_its_handle() {
    let chain = empty_chain(56).await;
    let id: String = chain.rpc().call("eth_chainId", json!([])).await.unwrap();
    assert_eq!(id, "0x38");
    let pid = chain.anvil().pid();
    let cache = chain.anvil().cache_dir().to_path_buf();
    assert!(alive(pid));
    assert!(cache.is_dir());
    drop(chain);
    assert!(!alive(pid), "anvil {pid} outlived its handle");
    assert!(!cache.exists(), "the per-node cache dir must be deleted");
}

#[tokio::test]
async fn a_crashed_node_is_detected_and_restarted() {
    let mut chain = empty_chain(1).await;
    let before = chain.anvil().pid();
    std::process::Command::new("kill")
        .args(["-9", &before.to_string()])
        .status()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        chain.ensure_alive().await.unwrap(),
        "a killed node must be restarted"
    );
    assert_ne!(chain.anvil().pid(), before);
    assert_eq!(chain.block_number().await.unwrap(), 0);
    assert!(
        !chain.ensure_alive().await.unwrap(),
        "a healthy node is left alone"
    );
}

#[tokio::test]
async fn missing_anvil_binary_is_a_clear_spawn_error() {
    let err = Chain::start(AnvilSpec::new("/nonexistent/anvil".into(), 1))
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("anvil"), "{msg}");
}

#[tokio::test]
async fn snapshot_revert_restores_balances_and_nonces_and_is_single_use() {
    let chain = empty_chain(56).await;
    let signer = PrivateKeySigner::from_str(DEV_KEY).unwrap();
    let to = address!("00000000000000000000000000000000000000aa");
    let snap = chain.snapshot().await.unwrap();
    let r = chain
        .send_signed(
            &signer,
            &TxRequest {
                to: Some(to),
                value: U256::from(12345u64),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(r.success);
    assert_eq!(chain.balance(to).await.unwrap(), U256::from(12345u64));
    assert_eq!(chain.nonce(signer.address()).await.unwrap(), 1);
    chain.revert(&snap).await.unwrap();
    assert_eq!(chain.balance(to).await.unwrap(), U256::ZERO);
    assert_eq!(chain.nonce(signer.address()).await.unwrap(), 0);
    let again = chain.revert(&snap).await;
    assert!(again.is_err(), "a used snapshot must not revert twice");
    // After a revert the next signed send re-reads the nonce and goes through.
    let r = chain
        .send_signed(
            &signer,
            &TxRequest {
                to: Some(to),
                value: U256::from(1u64),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(r.success);
}

#[tokio::test]
async fn a_pruned_node_traces_the_transaction_it_just_mined_even_after_a_revert() {
    // Evaluation nodes keep only a few states; the chain inspector needs the last one.
    let chain = empty_chain(56).await;
    let signer = PrivateKeySigner::from_str(DEV_KEY).unwrap();
    let to = address!("00000000000000000000000000000000000000ab");
    let send = |wei: u64| TxRequest {
        to: Some(to),
        value: U256::from(wei),
        ..Default::default()
    };
    let snap = chain.snapshot().await.unwrap();
    let first = chain.send_signed(&signer, &send(7)).await.unwrap();
    chain.revert(&snap).await.unwrap();
    let r = chain.send_signed(&signer, &send(12_345)).await.unwrap();
    let d = chain.state_diff(r.tx_hash).await.unwrap();
    let recipient = d
        .accounts
        .iter()
        .find(|a| a.address == to)
        .expect("the recipient changed");
    let b = recipient.balance.as_ref().unwrap();
    assert_eq!((b.before, b.after), (U256::ZERO, U256::from(12_345u64)));
    let sender = d
        .accounts
        .iter()
        .find(|a| a.address == signer.address())
        .expect("the sender changed");
    assert_eq!(
        sender.nonce.as_ref().map(|n| (n.before, n.after)),
        Some((0, 1))
    );
    assert!(first.success);
    // A hash the node never saw is an error, not a crash, a hang or an empty diff.
    assert!(chain
        .state_diff(alloy::primitives::B256::repeat_byte(0x42))
        .await
        .is_err());
}

#[tokio::test]
async fn time_and_mining_are_controllable() {
    let chain = empty_chain(1).await;
    let t0 = chain.timestamp().await.unwrap();
    chain.increase_time(3600).await.unwrap();
    chain.mine(1).await.unwrap();
    assert!(chain.timestamp().await.unwrap() >= t0 + 3600);
    chain.mine(5).await.unwrap();
    assert_eq!(chain.block_number().await.unwrap(), 6);
    chain.set_next_timestamp(t0 + 100_000).await.unwrap();
    chain.mine(1).await.unwrap();
    assert_eq!(chain.timestamp().await.unwrap(), t0 + 100_000);
}

#[tokio::test]
async fn setup_cheats_set_balance_storage_code_and_impersonate() {
    let chain = empty_chain(56).await;
    let who = address!("00000000000000000000000000000000000000bb");
    chain
        .set_balance(who, U256::from(10u64).pow(U256::from(18u64)))
        .await
        .unwrap();
    assert_eq!(
        chain.balance(who).await.unwrap(),
        U256::from(10u64).pow(U256::from(18u64))
    );
    let slot = alloy::primitives::B256::with_last_byte(3);
    let val = alloy::primitives::B256::with_last_byte(42);
    chain.set_storage(who, slot, val).await.unwrap();
    assert_eq!(chain.storage(who, slot).await.unwrap(), val);
    // Impersonated send from an account whose key nobody has.
    let to = address!("00000000000000000000000000000000000000cc");
    let r = chain
        .send_as(
            who,
            &TxRequest {
                to: Some(to),
                value: U256::from(7u64),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(r.success);
    assert_eq!(chain.balance(to).await.unwrap(), U256::from(7u64));
}

#[tokio::test]
async fn the_gate_forwards_reads_and_refuses_cheats_and_sends() {
    let chain = empty_chain(56).await;
    let gate = Gate::start(&chain.url()).await.unwrap();
    let rpc = Rpc::new(gate.url(), Duration::from_secs(5));
    let id: String = rpc.call("eth_chainId", json!([])).await.unwrap();
    assert_eq!(id, "0x38");
    let victim = address!("00000000000000000000000000000000000000dd");
    for (method, params) in [
        ("anvil_setBalance", json!([victim, "0xffff"])),
        ("evm_snapshot", json!([])),
        (
            "eth_sendTransaction",
            json!([{"from": victim, "to": victim}]),
        ),
        ("eth_accounts", json!([])),
        ("debug_traceTransaction", json!(["0x00"])),
    ] {
        let err = rpc.call_value(method, params).await.unwrap_err();
        assert!(err.to_string().contains("not allowed"), "{method}: {err}");
    }
    assert_eq!(
        chain.balance(victim).await.unwrap(),
        U256::ZERO,
        "a refused cheat changed nothing"
    );
    // A batch mixing allowed and refused calls gets one answer per request, in order.
    let client = reqwest::Client::new();
    let answers: Value = client
        .post(gate.url())
        .json(&json!([
            {"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]},
            {"jsonrpc":"2.0","id":2,"method":"anvil_setBalance","params":[victim,"0x1"]},
            {"jsonrpc":"2.0","id":3,"method":"eth_chainId","params":[]}
        ]))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let answers = answers.as_array().unwrap();
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0]["result"], "0x0");
    assert!(answers[1]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("not allowed"));
    assert_eq!(answers[2]["result"], "0x38");
    // Garbage is a JSON-RPC parse error, not a crash.
    let bad: Value = client
        .post(gate.url())
        .body("{not json")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(bad["error"]["code"], -32700);
    // Every refusal is recorded for the sample's reward-hacking list, counted per method; the
    // allowed reads are not, and taking the list empties it.
    let refused = gate.take_refused();
    let count = |m: &str| refused.iter().find(|c| c.method == m).map(|c| c.count);
    assert_eq!(count("anvil_setBalance"), Some(2), "{refused:?}");
    assert_eq!(count("eth_sendTransaction"), Some(1), "{refused:?}");
    assert_eq!(count("(not JSON)"), Some(1), "{refused:?}");
    assert_eq!(count("eth_chainId"), None, "{refused:?}");
    assert_eq!(refused.len(), 6, "{refused:?}");
    assert!(gate.take_refused().is_empty());
}

#[tokio::test]
async fn fork_mode_reads_the_upstream_at_the_pinned_block() {
    // An archive-like upstream: it must keep the pinned block's state.
    let upstream = Chain::start(AnvilSpec::new(config().anvil().unwrap(), 1).with_history())
        .await
        .unwrap();
    let who = address!("00000000000000000000000000000000000000ee");
    upstream.set_balance(who, U256::from(5u64)).await.unwrap();
    upstream.mine(3).await.unwrap();
    let pinned = upstream.block_number().await.unwrap();
    // A transaction after the pinned block must not be visible in the fork.
    let signer = PrivateKeySigner::from_str(DEV_KEY).unwrap();
    let tx = TxRequest {
        to: Some(who),
        value: U256::from(994u64),
        ..Default::default()
    };
    assert!(upstream.send_signed(&signer, &tx).await.unwrap().success);
    let spec = AnvilSpec::new(config().anvil().unwrap(), 1).with_state(StateSource::Fork {
        url: upstream.url(),
        block: pinned,
    });
    let fork = Chain::start(spec).await.unwrap();
    assert_eq!(fork.block_number().await.unwrap(), pinned);
    assert_eq!(fork.balance(who).await.unwrap(), U256::from(5u64));
    // Writes in the fork stay in the fork.
    fork.set_balance(who, U256::from(1u64)).await.unwrap();
    assert_eq!(upstream.balance(who).await.unwrap(), U256::from(999u64));
}

#[tokio::test]
async fn no_anvil_outlives_the_tests_that_made_it() {
    // Each test's handle kills its node on drop; make several and check none is left.
    let mut pids = Vec::new();
    for _ in 0..3 {
        let c = empty_chain(31337).await;
        pids.push(c.anvil().pid());
    }
    for pid in pids {
        assert!(!alive(pid), "anvil {pid} is orphaned");
    }
    let _ = pids_matching("crucible-anvil-");
}

#[tokio::test]
async fn the_same_transaction_replayed_after_a_revert_is_mined_again() {
    // Re-executing a stored answer on the same snapshot signs byte-identical content; Anvil
    // remembers the hash across `evm_revert`, so the harness must still get a receipt.
    let chain = empty_chain(56).await;
    let signer = PrivateKeySigner::from_str(DEV_KEY).unwrap();
    let to = address!("00000000000000000000000000000000000000ab");
    let tx = TxRequest {
        to: Some(to),
        value: U256::from(3u64),
        gas: Some(21_000),
        ..Default::default()
    };
    for _ in 0..200 {
        let snap = chain.snapshot().await.unwrap();
        let r = chain.send_signed(&signer, &tx).await.unwrap();
        assert!(r.success);
        assert_eq!(chain.balance(to).await.unwrap(), U256::from(3u64));
        chain.revert(&snap).await.unwrap();
        // An empty snapshot taken and reverted right away (what per-question isolation does).
        let empty = chain.snapshot().await.unwrap();
        chain.revert(&empty).await.unwrap();
    }
    for _ in 0..5 {
        assert!(chain.send_signed(&signer, &tx).await.unwrap().success);
    }
}

#[tokio::test]
async fn anvil_runs_under_the_configured_address_space_cap() {
    let mut spec = AnvilSpec::new(config().anvil().unwrap(), 1);
    spec.memory_mib = 3000;
    let chain = Chain::start(spec).await.unwrap();
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", chain.anvil().pid())).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))
        .unwrap();
    assert!(
        line.contains(&(3000u64 * 1024 * 1024).to_string()),
        "{line}"
    );
}
