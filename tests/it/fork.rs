//! Fork mode end to end against a second local Anvil acting as the upstream "mainnet": it
//! serves the built bsc universe *without* QuestBench's test contracts (and without the agent's
//! USDT balance), so the fork must deploy and fund them itself. A real run of the reference
//! agent scores 100 on the fork; the upstream is then killed and the same (URL, block) runs
//! again from the persistent fork cache with the same scores. Bad input (unreachable URL, wrong
//! chain id, block beyond head, an RPC that only rate-limits) fails before any run is stored.

use std::path::Path;

use alloy::primitives::{keccak256, Address, U256};
use axum::http::StatusCode;
use axum::routing::post;
use crucible_catalog::catalog::loader;
use crucible_chain::fork::{ForkProxy, ForkTarget};
use crucible_chain::universe::{self, Manifest, Profile};
use crucible_chain::{AnvilSpec, Chain, StateSource};
use crucible_core::Config;
use crucible_run::{self as run, ForkSpec, RunContext, RunSpec};
use crucible_store::Store;
use serde_json::Value;

use super::support::{config, empty_chain};

fn e18(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(18u64))
}

/// The mapping slot `keccak256(holder . p)`.
fn holder_slot(holder: Address, p: u64) -> String {
    let mut pre = [0u8; 64];
    pre[12..32].copy_from_slice(holder.as_slice());
    pre[56..64].copy_from_slice(&p.to_be_bytes());
    format!("{:#x}", keccak256(pre))
}

/// An upstream "mainnet": the bsc universe's genesis minus every non-canonical contract and
/// minus the agent's USDT balance slot, booted on its own Anvil, one block mined (head = 1).
async fn upstream(dir: &Path) -> (Chain, Manifest) {
    upstream_of(dir, Profile::Bsc, 1).await
}

/// An upstream serving `profile`'s universe without its non-canonical contracts (for bsc also
/// without the agent's USDT balance), `blocks` blocks mined.
async fn upstream_of(dir: &Path, profile: Profile, blocks: u64) -> (Chain, Manifest) {
    let cfg = config();
    let m = Manifest::load(&cfg, profile).unwrap();
    let src = profile.dir(&cfg).join(&m.genesis);
    let mut g: Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    let alloc = g["alloc"].as_object_mut().unwrap();
    for c in m.contracts.iter().filter(|c| !c.canonical) {
        let removed = alloc.remove(&format!("{:#x}", c.address));
        assert!(removed.is_some(), "{} is in the genesis", c.name);
    }
    if profile == Profile::Bsc {
        let agent = m.account("agent").unwrap().address;
        let usdt = format!("{:#x}", m.contract("USDT").unwrap());
        let slot = holder_slot(agent, 1);
        let gone = alloc[&usdt]["storage"]
            .as_object_mut()
            .unwrap()
            .remove(&slot);
        assert!(
            gone.is_some(),
            "the agent's USDT balance is slot keccak(agent . 1)"
        );
    }
    let path = dir.join(format!("upstream-{profile}.json"));
    std::fs::write(&path, serde_json::to_vec(&g).unwrap()).unwrap();
    let spec = AnvilSpec::new(cfg.anvil().unwrap(), profile.chain_id())
        .with_state(StateSource::Genesis(path))
        .with_history(); // an archive node: older blocks keep their state
    let chain = Chain::start(spec).await.unwrap();
    chain.mine(blocks).await.unwrap();
    assert_eq!(chain.block_number().await.unwrap(), blocks);
    (chain, m)
}

fn cfg_in(data: &Path) -> Config {
    let mut c = config();
    c.data_dir = data.to_path_buf();
    c
}

fn quest_spec(url: &str, block: u64) -> RunSpec {
    let mut s = RunSpec::new(vec!["questbench".into()], vec!["builtin:reference".into()]);
    s.limit = Some(3);
    s.seed = 5;
    s.concurrency = 1;
    s.fork = Some(ForkSpec::new(url, block).unwrap());
    s
}

async fn scores(
    store: &impl crucible_store::RunReader,
    run_id: &str,
) -> Vec<(String, crucible_core::Outcome, f64, bool)> {
    let mut v: Vec<_> = store
        .samples(run_id)
        .await
        .unwrap()
        .into_iter()
        .map(|(_, s)| (s.instance, s.outcome, s.score, s.passed))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fork_deploys_the_test_contracts_funds_the_agent_and_replays_from_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let (up, m) = upstream(tmp.path()).await;
    let cfg = cfg_in(tmp.path());
    let target = ForkTarget::new(&up.url(), 1, tmp.path()).unwrap();
    let agent = m.account("agent").unwrap().address;
    let usdt = m.contract("USDT").unwrap();
    let e1363 = m.contract("erc1363_token").unwrap();
    assert!(up.code(e1363).await.unwrap().is_empty());
    assert_eq!(up.erc20_balance(usdt, agent).await.unwrap(), U256::ZERO);

    let (fork, _, info, overlay) = universe::boot_fork_cached(&cfg, Profile::Bsc, &target)
        .await
        .unwrap();
    assert_eq!((info.chain_id, info.head, info.block), (56, 1, 1));
    let test_contracts: Vec<String> = m
        .contracts
        .iter()
        .filter(|c| !c.canonical)
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(overlay.deployed, test_contracts);
    assert!(overlay.funded.contains(&"USDT".to_string()), "{overlay:?}");
    for (name, a) in m.address_book() {
        assert!(!fork.code(a).await.unwrap().is_empty(), "{name} has code");
    }
    assert_eq!(fork.erc20_balance(usdt, agent).await.unwrap(), e18(1_000));
    assert_eq!(
        fork.erc20_balance(e1363, agent).await.unwrap(),
        e18(1_000_000)
    );
    assert!(fork.fork_proxy().unwrap().forwarded() > 0);
    let usdt_code = fork.code(usdt).await.unwrap();
    drop(fork);

    // The upstream dies; the same (URL, block) boots from the cache alone.
    drop(up);
    let dead = reqwest::Client::new()
        .post(target.url.clone().unwrap())
        .body("{}")
        .send()
        .await;
    assert!(dead.is_err(), "the upstream is gone");
    let (again, _, info2, overlay2) = universe::boot_fork_cached(&cfg, Profile::Bsc, &target)
        .await
        .unwrap();
    assert_eq!(info2, info);
    assert_eq!(overlay2, overlay);
    assert_eq!(again.fork_proxy().unwrap().forwarded(), 0);
    assert!(again.fork_proxy().unwrap().hits() > 0);
    assert_eq!(again.code(usdt).await.unwrap(), usdt_code);
    assert_eq!(again.erc20_balance(usdt, agent).await.unwrap(), e18(1_000));
    assert_eq!(again.fork_failures(), 0);
    // A read the cache never saw fails loudly (and is counted) instead of reading as zero.
    let stranger = Address::repeat_byte(0x77);
    let miss = again.balance(stranger).await;
    assert!(miss.is_err(), "{miss:?}");
    assert!(again.fork_failures() > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_run_scores_the_reference_100_and_replays_offline_after_the_upstream_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let (up, _) = upstream(tmp.path()).await;
    let cfg = cfg_in(tmp.path());
    let store = Store::open(&tmp.path().join("c.db")).await.unwrap();
    let ctx = RunContext::new(cfg.clone(), store.clone(), loader());
    let url = up.url();
    let first = run::start(&ctx, quest_spec(&url, 1)).await.unwrap();
    assert_eq!(first.samples, 3);
    let a = scores(&store, &first.run_id).await;
    assert_eq!(a.len(), 3);
    for (inst, outcome, score, passed) in &a {
        assert_eq!(
            (outcome.as_str(), *score, *passed),
            ("exact", 1.0, true),
            "{inst}"
        );
    }
    let row = store.run(&first.run_id).await.unwrap();
    let spec: Value = serde_json::from_str(&row.spec).unwrap();
    assert_eq!(spec["fork"]["block"], 1);
    assert_eq!(spec["fork"]["chain_id"], 56);
    assert_eq!(spec["fork"]["url"], format!("{url}/"));
    let label = format!("fork of {url}/ at block 1 (chain id 56)");
    let listed = crucible_views::console::list_runs(&store.clone().into())
        .await
        .unwrap();
    assert_eq!(listed[0].fork.as_deref(), Some(label.as_str()));
    let explorer = crucible_views::results::Explorer::open(&tmp.path().join("c.db"))
        .await
        .unwrap();
    let picked = explorer.runs().await.unwrap();
    assert_eq!(picked[0].fork.as_deref(), Some(label.as_str()));
    let caches: Vec<_> = std::fs::read_dir(tmp.path().join("fork-cache"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(caches.len(), 1, "one cache for one (URL, block)");
    assert!(
        std::fs::metadata(caches[0].path().join("rpc.jsonl"))
            .unwrap()
            .len()
            > 0
    );

    drop(up);
    let second = run::start(&ctx, quest_spec(&url, 1)).await.unwrap();
    assert_ne!(second.run_id, first.run_id);
    assert_eq!(scores(&store, &second.run_id).await, a);
}

async fn refused(data: &Path, spec: RunSpec) -> String {
    let store = Store::open(&data.join("c.db")).await.unwrap();
    let ctx = RunContext::new(cfg_in(data), store.clone(), loader());
    let e = run::start(&ctx, spec).await.unwrap_err().to_string();
    assert!(store.runs().await.unwrap().is_empty(), "no run stored: {e}");
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_fork_input_fails_before_any_run_is_stored() {
    // Unreachable.
    let tmp = tempfile::tempdir().unwrap();
    let port = crucible_chain::anvil::free_port().unwrap();
    let e = refused(
        tmp.path(),
        quest_spec(&format!("http://127.0.0.1:{port}"), 1),
    )
    .await;
    assert!(e.contains("cannot reach the fork RPC"), "{e}");

    // Wrong chain: an Ethereum-id node for QuestBench (bsc, 56).
    let tmp = tempfile::tempdir().unwrap();
    let eth = empty_chain(1).await;
    eth.mine(2).await.unwrap();
    let e = refused(tmp.path(), quest_spec(&eth.url(), 1)).await;
    assert!(e.contains("chain id 1") && e.contains("chain id 56"), "{e}");

    // Beyond head.
    let tmp = tempfile::tempdir().unwrap();
    let (up, _) = upstream(tmp.path()).await;
    let e = refused(tmp.path(), quest_spec(&up.url(), 1_000)).await;
    assert!(
        e.contains("beyond the head") && e.contains("block 1"),
        "{e}"
    );

    // An RPC that only rate-limits: retried with backoff, then a clear error.
    let tmp = tempfile::tempdir().unwrap();
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counted = hits.clone();
    let app = axum::Router::new().fallback(post(move || {
        let counted = counted.clone();
        async move {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            (StatusCode::TOO_MANY_REQUESTS, "slow down")
        }
    }));
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(l, app).await });
    let e = refused(
        tmp.path(),
        quest_spec(
            &format!("http://user:hunter2@{addr}/v3/0123456789abcdef0123"),
            1,
        ),
    )
    .await;
    assert!(e.contains("rate-limiting") && e.contains("429"), "{e}");
    assert!(
        !e.contains("hunter2") && !e.contains("0123456789abcdef0123"),
        "{e}"
    );
    assert!(hits.load(std::sync::atomic::Ordering::SeqCst) >= 3);

    // The proxy itself: a cache with no upstream answers nothing it has not seen.
    let t = ForkTarget {
        url: None,
        redacted: "http://nowhere/".into(),
        block: 1,
        data_dir: tmp.path().to_path_buf(),
    };
    let p = ForkProxy::start(&t).await.unwrap();
    let r: Value = reqwest::Client::new()
        .post(p.url())
        .json(&serde_json::json!({"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("CRUCIBLE_FORK_URL"),
        "{r}"
    );
    assert_eq!(p.failures(), 1);
}

async fn intent_run(
    ctx: &RunContext,
    fork: Option<(&str, u64)>,
) -> Vec<(String, crucible_core::Outcome, f64, bool)> {
    let mut s = RunSpec::new(vec!["intent2tx".into()], vec!["builtin:reference".into()]);
    s.limit = Some(3);
    s.concurrency = 1;
    s.fork = fork.map(|(u, b)| ForkSpec::new(u, b).unwrap());
    let r = run::start(ctx, s).await.unwrap();
    let v = scores(&ctx.store, &r.run_id).await;
    assert!(!v.is_empty());
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_intent2tx_run_executes_on_a_fork_as_it_does_offline_and_replays_from_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let (up, m) = upstream_of(tmp.path(), Profile::Eth, 1).await;
    assert!(
        m.contracts.iter().any(|c| !c.canonical),
        "the eth universe has local contracts"
    );
    let store = Store::open(&tmp.path().join("c.db")).await.unwrap();
    let ctx = RunContext::new(cfg_in(tmp.path()), store.clone(), loader());
    let offline = intent_run(&ctx, None).await;
    assert!(
        offline.iter().all(|(_, _, score, _)| *score == 1.0),
        "{offline:?}"
    );
    let url = up.url();
    let forked = intent_run(&ctx, Some((&url, 1))).await;
    assert_eq!(forked, offline);
    drop(up);
    assert_eq!(intent_run(&ctx, Some((&url, 1))).await, offline);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_intent2tx_instance_with_a_block_number_executes_on_a_fork_of_the_block_before() {
    use crucible_intent2tx::book::AddressBook;
    use crucible_intent2tx::execute::{instance_block, Executor};
    let tmp = tempfile::tempdir().unwrap();
    let (up, _) = upstream_of(tmp.path(), Profile::Eth, 3).await;
    let cfg = cfg_in(tmp.path());
    let (instances, _) = crucible_intent2tx::load::builtin_dataset(&cfg, "default", true).unwrap();
    let plain = instances[0].clone();
    let mut dated = plain.clone();
    dated
        .metadata
        .extra
        .insert("block_number".into(), Value::String("3".into()));
    assert_eq!(instance_block(&dated), Some(3));
    assert_eq!(instance_block(&plain), None);
    let target = ForkTarget::new(&up.url(), 1, tmp.path()).unwrap();
    let mut ex = Executor::boot_fork(&cfg, AddressBook::builtin(), &target)
        .await
        .unwrap();
    let truth = || Ok(dated.ground_truth.steps().to_vec());
    let blocks = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir.join("fork-cache"))
            .unwrap()
            .flatten()
            .map(|e| {
                e.file_name()
                    .to_string_lossy()
                    .split('-')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(blocks(tmp.path()), ["1"]);
    let r = ex.evaluate(&dated, truth()).await.unwrap();
    assert!(r.exec && r.state_eq, "{r:?}");
    // The instance's block 3 − 1 = 2 got its own fork (and cache); the plain one goes back to 1.
    assert_eq!(blocks(tmp.path()), ["1", "2"]);
    let r = ex.evaluate(&plain, truth()).await.unwrap();
    assert!(r.exec, "{r:?}");
}

fn cli(data: &Path, args: &[&str]) -> (bool, String, String) {
    crate::support::crucible_text(data, args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crucible_run_forks_from_the_command_line_and_runs_show_names_the_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let (up, _) = upstream(tmp.path()).await;
    let secret_url = format!("{}/?apikey=s3cr3t", up.url());
    let base = [
        "run",
        "--bench",
        "questbench",
        "--model",
        "builtin:reference",
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let run = |args: Vec<String>| {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        cli(tmp.path(), &a)
    };
    // Bad input: named flag, nothing stored.
    let (ok, _, err) = run(with(&["--fork-url", "ftp://x", "--fork-block", "1"]));
    assert!(
        !ok && err.contains("--fork-url") && err.contains("ftp"),
        "{err}"
    );
    let (ok, _, err) = run(with(&["--fork-url", &secret_url, "--fork-block", "0"]));
    assert!(
        !ok && err.contains("--fork-block") && err.contains("must be at least 1"),
        "{err}"
    );
    let (ok, _, err) = run(with(&["--fork-url", &secret_url]));
    assert!(!ok && err.contains("--fork-block"), "{err}");
    // A real run on the fork.
    let (ok, out, err) = run(with(&[
        "--limit",
        "1",
        "--json",
        "--fork-url",
        &secret_url,
        "--fork-block",
        "1",
    ]));
    assert!(ok, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let id = report["run_id"].as_str().unwrap().to_string();
    assert_eq!(report["finished"], 1);
    let (ok, out, err) = cli(tmp.path(), &["runs", "show", &id, "--json"]);
    assert!(ok, "{err}");
    let shown: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(shown["chain"]["mode"], "fork");
    assert_eq!(shown["chain"]["block"], 1);
    assert_eq!(shown["chain"]["chain_id"], 56);
    assert_eq!(shown["chain"]["url"], format!("{}/?apikey=***", up.url()));
    assert_eq!(shown["samples"][0]["score"], 1.0);
    let (_, text, _) = cli(tmp.path(), &["runs", "show", &id]);
    assert!(
        text.contains("chain: fork of") && text.contains("block 1 (chain id 56)"),
        "{text}"
    );
    // The key is nowhere in the database.
    let db = std::fs::read(tmp.path().join("crucible.db")).unwrap();
    assert!(!String::from_utf8_lossy(&db).contains("s3cr3t"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_the_cache_lacks_with_the_upstream_gone_are_never_scored_and_resume_finishes() {
    let tmp = tempfile::tempdir().unwrap();
    let (up, _) = upstream(tmp.path()).await;
    let port = up.anvil().port();
    let store = Store::open(&tmp.path().join("c.db")).await.unwrap();
    let ctx = RunContext::new(cfg_in(tmp.path()), store.clone(), loader());
    let url = up.url();
    // Warm the cache with one task only.
    let mut one = quest_spec(&url, 1);
    one.limit = Some(1);
    run::start(&ctx, one).await.unwrap();
    drop(up);
    // More tasks read state the cache never saw: those samples fail as infrastructure (not
    // stored, never a score) and the run stays resumable.
    let mut more = quest_spec(&url, 1);
    more.limit = Some(6);
    let partial = run::start(&ctx, more).await.unwrap();
    assert_eq!(partial.samples, 6);
    assert!(
        partial.finished < 6,
        "some task needed an upstream read: {partial:?}"
    );
    assert_eq!(partial.failed, 6 - partial.finished, "{partial:?}");
    for (inst, _, score, passed) in scores(&store, &partial.run_id).await {
        assert!(
            passed && score == 1.0,
            "a stored sample is a real score: {inst}"
        );
    }
    // The upstream comes back at the same URL: resume fetches what was missing and finishes.
    let cfg = config();
    let genesis = tmp.path().join("upstream-bsc.json");
    let mut spec = AnvilSpec::new(cfg.anvil().unwrap(), 56)
        .with_state(StateSource::Genesis(genesis))
        .with_history();
    spec.port = port;
    let back = Chain::start(spec).await.unwrap();
    back.mine(1).await.unwrap();
    // A resume reads the stored spec: its fork RPC is reached only because this user allows it.
    let mut ctx = ctx.clone();
    ctx.trusted_base_urls.push(url.clone());
    let done = run::resume(&ctx, &partial.run_id).await.unwrap();
    assert_eq!(done.finished, 6, "{done:?}");
    let all = scores(&store, &partial.run_id).await;
    assert_eq!(all.len(), 6);
    assert!(all.iter().all(|(_, _, s, p)| *p && *s == 1.0), "{all:?}");
}
