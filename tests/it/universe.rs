//! The offline universes: reproducible builds, every contract present at its canonical address,
//! the funded positions, real swaps, revert reasons, fork mode, and clear errors for bad files.

use std::str::FromStr;

use alloy::primitives::{address, Address, Bytes, U256};
use alloy::signers::local::PrivateKeySigner;
use alloy::sol;
use alloy::sol_types::SolCall;
use crucible_chain::gate::Gate;
use crucible_chain::sandbox::{Call, Sandbox};
use crucible_chain::universe::{self, Manifest, Profile};
use crucible_chain::{Chain, TxRequest};
use crucible_core::Config;
use serde_json::json;

use crate::support::config;

sol! {
    interface IRouter {
        function WETH() external view returns (address);
        function factory() external view returns (address);
        function getAmountsOut(uint256 amountIn, address[] path) external view returns (uint256[] amounts);
        function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) external payable returns (uint256[] amounts);
    }
    interface IFactory {
        function getPair(address a, address b) external view returns (address);
    }
    interface IToken {
        function name() external view returns (string);
        function decimals() external view returns (uint8);
        function transfer(address to, uint256 amount) external;
    }
    interface IRewardPool {
        function pendingReward(address user) external view returns (uint256);
    }
}

fn e18(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(18u64))
}

async fn view<C: SolCall>(chain: &Chain, to: Address, call: C) -> C::Return {
    let out = chain.view(to, call.abi_encode()).await.unwrap();
    C::abi_decode_returns(&out).unwrap()
}

fn agent(m: &Manifest) -> PrivateKeySigner {
    PrivateKeySigner::from_str(&m.account("agent").unwrap().key).unwrap()
}

#[tokio::test]
async fn rebuilding_gives_the_committed_files_byte_for_byte() {
    let cfg = config();
    for profile in Profile::ALL {
        let out = tempfile::tempdir().unwrap();
        universe::build_into(&cfg, profile, out.path())
            .await
            .unwrap_or_else(|e| panic!("{profile}: {e}"));
        for file in ["genesis.json", "manifest.json"] {
            let fresh = std::fs::read(out.path().join(file)).unwrap();
            let committed = std::fs::read(profile.dir(&cfg).join(file)).unwrap();
            assert!(fresh == committed, "{profile}/{file} differs from a fresh build; run `crucible universe build --profile {profile}`");
        }
    }
}

#[tokio::test]
async fn check_finds_every_contract_and_the_smoke_swap_gets_the_quote() {
    let cfg = config();
    for profile in Profile::ALL {
        let r = universe::check(&cfg, profile).await.unwrap();
        assert_eq!(r.chain_id, profile.chain_id());
        let missing: Vec<_> = r
            .contracts
            .iter()
            .filter(|c| !c.has_code)
            .map(|c| &c.name)
            .collect();
        assert!(missing.is_empty(), "{profile}: no code at {missing:?}");
        assert!(r.smoke.ok, "{profile}: {:?}", r.smoke);
        assert_ne!(r.smoke.swap_before, r.smoke.swap_after);
    }
}

#[tokio::test]
async fn bsc_has_the_canonical_protocol_and_the_reference_funding() {
    let cfg = config();
    let (chain, m) = universe::boot(&cfg, Profile::Bsc).await.unwrap();
    let (usdt, busd, wbnb, cake) = (
        m.contract("USDT").unwrap(),
        m.contract("BUSD").unwrap(),
        m.contract("WBNB").unwrap(),
        m.contract("CAKE").unwrap(),
    );
    assert_eq!(usdt, address!("55d398326f99059fF775485246999027B3197955"));
    let router = m.contract("PancakeRouter").unwrap();
    assert_eq!(router, address!("10ED43C718714eb63d5aA57B78B54704E256024E"));
    assert_eq!(view(&chain, router, IRouter::WETHCall {}).await, wbnb);
    assert_eq!(
        view(&chain, router, IRouter::factoryCall {}).await,
        address!("cA143Ce32Fe78f1f7019d7d551a6402fC5350c73")
    );
    // Pairs at their mainnet addresses, and the factory agrees.
    for (a, b, at) in [
        (
            usdt,
            busd,
            address!("7EFaEf62fDdCCa950418312c6C91Aef321375A00"),
        ),
        (
            wbnb,
            usdt,
            address!("16b9a82891338f9bA80E2D6970FddA79D1eb0daE"),
        ),
        (
            cake,
            wbnb,
            address!("0eD7e52944161450477ee417DE9Cd3a859b14fD0"),
        ),
        (
            busd,
            wbnb,
            address!("58F876857a02D6762E0101bb5C46A8c1ED44Dc16"),
        ),
    ] {
        let factory = m.contract("PancakeFactory").unwrap();
        assert_eq!(
            view(&chain, factory, IFactory::getPairCall { a, b }).await,
            at
        );
    }
    assert_eq!(view(&chain, wbnb, IToken::nameCall {}).await, "Wrapped BNB");
    assert_eq!(view(&chain, usdt, IToken::nameCall {}).await, "Tether USD");
    let me = m.account("agent").unwrap().address;
    assert_eq!(chain.balance(me).await.unwrap(), e18(100));
    assert_eq!(chain.erc20_balance(usdt, me).await.unwrap(), e18(1_000));
    assert_eq!(chain.erc20_balance(busd, me).await.unwrap(), e18(1_000));
    assert_eq!(chain.erc20_balance(wbnb, me).await.unwrap(), e18(100));
    assert_eq!(chain.erc20_balance(cake, me).await.unwrap(), e18(100));
    let lp = m.pair("USDT", "BUSD").unwrap().address;
    assert_eq!(
        chain.erc20_balance(lp, me).await.unwrap(),
        e18(3) / U256::from(2u64)
    );
    assert_eq!(
        chain
            .erc20_balance(m.pair("WBNB", "USDT").unwrap().address, me)
            .await
            .unwrap(),
        e18(2)
    );
    // No pre-granted approvals (spec decision 8): the staking approval was consumed.
    assert_eq!(
        chain.erc20_allowance(usdt, me, router).await.unwrap(),
        U256::ZERO
    );
    assert_eq!(
        chain
            .erc20_allowance(lp, me, m.contract("simple_reward_pool").unwrap())
            .await
            .unwrap(),
        U256::ZERO
    );
    assert_eq!(
        chain
            .erc721_owner(m.contract("PancakeSquad").unwrap(), U256::from(1u64))
            .await
            .unwrap(),
        me
    );
    for id in 1..=10u64 {
        assert_eq!(
            chain
                .erc721_owner(m.contract("erc721_token").unwrap(), U256::from(id))
                .await
                .unwrap(),
            me
        );
    }
    let items = m.contract("erc1155_token").unwrap();
    for (id, n) in [(1u64, 1000u64), (2, 500), (3, 100)] {
        assert_eq!(
            chain
                .erc1155_balance(items, me, U256::from(id))
                .await
                .unwrap(),
            U256::from(n)
        );
    }
    assert_eq!(
        chain
            .erc20_balance(m.contract("erc1363_token").unwrap(), me)
            .await
            .unwrap(),
        e18(1_000_000)
    );
    assert_eq!(
        chain
            .erc20_balance(usdt, m.account("second").unwrap().address)
            .await
            .unwrap(),
        e18(5_000)
    );
    assert_eq!(
        chain
            .erc20_balance(usdt, m.contract("flashloan_contract").unwrap())
            .await
            .unwrap(),
        e18(10_000)
    );
    let pool = m.contract("simple_reward_pool").unwrap();
    assert!(
        view(&chain, pool, IRewardPool::pendingRewardCall { user: me }).await > U256::ZERO,
        "rewards accrue on the 0.5 LP stake"
    );
}

#[tokio::test]
async fn eth_has_the_address_book_tokens_and_mainnet_usdt_semantics() {
    let cfg = config();
    let (chain, m) = universe::boot(&cfg, Profile::Eth).await.unwrap();
    for (name, at, decimals) in [
        (
            "USDT",
            address!("dAC17F958D2ee523a2206206994597C13D831ec7"),
            6u8,
        ),
        (
            "USDC",
            address!("A0b86991c6218b36c1d19D4a2e9Eb0cE3606eb48"),
            6,
        ),
        (
            "DAI",
            address!("6B175474E89094C44Da98b954EedeAC495271d0F"),
            18,
        ),
        (
            "WBTC",
            address!("2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599"),
            8,
        ),
        (
            "WETH",
            address!("C02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"),
            18,
        ),
        (
            "LINK",
            address!("514910771AF9Ca656af840dff83E8264EcF986CA"),
            18,
        ),
        (
            "UNI",
            address!("1f9840a85d5aF5bf1D1762F925BDADdC4201F984"),
            18,
        ),
        (
            "AAVE",
            address!("7Fc66500c84A76Ad7e9c93437bFc5Ac33E2DDaE9"),
            18,
        ),
    ] {
        assert_eq!(m.contract(name).unwrap(), at, "{name}");
        assert_eq!(
            view(&chain, at, IToken::decimalsCall {}).await,
            decimals,
            "{name}"
        );
    }
    for (name, at) in [
        (
            "UniswapV2Router02",
            address!("7a250d5630B4cF539739dF2C5dAcb4c659F2488D"),
        ),
        (
            "SushiSwapRouter",
            address!("d9e1cE17f2641f24aE83637ab66a2cca9C378B9F"),
        ),
        (
            "AaveV3Pool",
            address!("87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2"),
        ),
        (
            "LidoStETH",
            address!("ae7ab96520DE3A18E5e111B5EaAb095312D7fE84"),
        ),
        (
            "CometUSDC",
            address!("c3d688B66703497DAA19211EEdff47f25384cdc3"),
        ),
        (
            "CryptoPunks",
            address!("b47e3cd837dDF8e4c57F05d70Ab865de6e193BBB"),
        ),
    ] {
        assert_eq!(m.contract(name).unwrap(), at, "{name}");
        assert!(!chain.code(at).await.unwrap().is_empty(), "{name}");
    }
    // Mainnet pair addresses fall out of the genuine init code (Uniswap) and the patched hash (Sushi).
    assert_eq!(
        m.pair("WETH", "USDC").ok().map(|p| p.address),
        Some(address!("B4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc"))
    );
    assert!(
        m.pairs
            .iter()
            .any(|p| p.address == address!("397FF1542f962076d0BFE58eA045FfA2d347ACa0")),
        "Sushi USDC/WETH"
    );
    // USDT's transfer returns no data, like mainnet's.
    let me = m.account("agent").unwrap().address;
    let usdt = m.contract("USDT").unwrap();
    let call = IToken::transferCall {
        to: Address::with_last_byte(9),
        amount: U256::from(5u64),
    };
    let out = chain
        .call_from(me, &TxRequest::call(usdt, call.abi_encode()))
        .await
        .unwrap();
    assert_eq!(out, Bytes::new());
    let r = chain
        .send_signed(&agent(&m), &TxRequest::call(usdt, call.abi_encode()))
        .await
        .unwrap();
    assert!(r.success);
    assert_eq!(
        chain
            .erc20_balance(usdt, Address::with_last_byte(9))
            .await
            .unwrap(),
        U256::from(5u64)
    );
}

#[tokio::test]
async fn a_reverted_swap_is_mined_and_reports_the_router_reason() {
    let cfg = config();
    let (chain, m) = universe::boot(&cfg, Profile::Bsc).await.unwrap();
    let key = agent(&m);
    let (router, wbnb, usdt) = (
        m.contract("PancakeRouter").unwrap(),
        m.contract("WBNB").unwrap(),
        m.contract("USDT").unwrap(),
    );
    let before = chain.balance(key.address()).await.unwrap();
    let swap = IRouter::swapExactETHForTokensCall {
        amountOutMin: e18(1_000_000),
        path: vec![wbnb, usdt],
        to: key.address(),
        deadline: U256::from(u64::MAX),
    };
    let r = chain
        .send_signed(
            &key,
            &TxRequest::call(router, swap.abi_encode()).with_value(e18(1)),
        )
        .await
        .unwrap();
    assert!(!r.success);
    assert_eq!(
        r.revert_reason.as_deref(),
        Some("UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT")
    );
    let after = chain.balance(key.address()).await.unwrap();
    assert!(
        after < before && before - after < e18(1),
        "only gas was paid"
    );
}

#[tokio::test]
async fn a_sandboxed_module_builds_a_transfer_that_the_harness_signs_and_lands() {
    let cfg = config();
    let (chain, m) = universe::boot(&cfg, Profile::Bsc).await.unwrap();
    let gate = Gate::start(&chain.url()).await.unwrap();
    let me = m.account("agent").unwrap().address;
    let call = Call {
        provider_url: gate.url(),
        agent_address: me.to_string(),
        deployed_contracts: json!(m.address_book()),
        now_ms: None,
    };
    let run = Sandbox::new(&cfg)
        .unwrap()
        .run(crucible_bench::figures::BENCH_MODULE, &call)
        .await
        .unwrap();
    let tx = run.outcome.unwrap_or_else(|f| panic!("{f:?}"));
    let to: Address = tx["to"].as_str().unwrap().parse().unwrap();
    let data: Bytes = tx["data"].as_str().unwrap().parse().unwrap();
    let r = chain
        .send_signed(&agent(&m), &TxRequest::call(to, data))
        .await
        .unwrap();
    assert!(r.success);
    let dead = address!("000000000000000000000000000000000000dEaD");
    assert_eq!(
        chain
            .erc20_balance(m.contract("USDT").unwrap(), dead)
            .await
            .unwrap(),
        e18(25) / U256::from(2u64)
    );
}

#[tokio::test]
async fn fork_mode_serves_the_upstream_universe() {
    let cfg = config();
    let (upstream, m) = universe::boot(&cfg, Profile::Bsc).await.unwrap();
    let block = upstream.block_number().await.unwrap();
    let (fork, _) = universe::boot_fork(&cfg, Profile::Bsc, &upstream.url(), block)
        .await
        .unwrap();
    let me = m.account("agent").unwrap().address;
    let usdt = m.contract("USDT").unwrap();
    assert_eq!(fork.erc20_balance(usdt, me).await.unwrap(), e18(1_000));
    assert_eq!(fork.chain_id(), 56);
}

fn project_copy(profile: Profile) -> (tempfile::TempDir, Config) {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config();
    let src = profile.dir(&cfg);
    let dst = dir.path().join("assets/universe").join(profile.name());
    std::fs::create_dir_all(&dst).unwrap();
    for f in ["genesis.json", "manifest.json"] {
        std::fs::copy(src.join(f), dst.join(f)).unwrap();
    }
    cfg.anvil_path = Some(cfg.anvil().unwrap());
    cfg.project_dir = dir.path().to_path_buf();
    (dir, cfg)
}

#[tokio::test]
async fn a_tampered_genesis_is_refused_with_the_rebuild_command() {
    let (dir, cfg) = project_copy(Profile::Bsc);
    let g = dir.path().join("assets/universe/bsc/genesis.json");
    let text = std::fs::read_to_string(&g)
        .unwrap()
        .replacen("0x", "0x1", 1);
    std::fs::write(&g, text).unwrap();
    let err = universe::boot(&cfg, Profile::Bsc)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("genesis.json") && err.contains("crucible universe build --profile bsc"),
        "{err}"
    );
}

#[tokio::test]
async fn a_missing_universe_says_how_to_build_it() {
    let (dir, cfg) = project_copy(Profile::Bsc);
    std::fs::remove_dir_all(dir.path().join("assets/universe/bsc")).unwrap();
    let err = universe::boot(&cfg, Profile::Bsc)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("manifest.json") && err.contains("crucible universe build --profile bsc"),
        "{err}"
    );
    assert!("bnb"
        .parse::<Profile>()
        .unwrap_err()
        .to_string()
        .contains("expected bsc or eth"));
}

sol! {
    interface INft {
        function approve(address to, uint256 id) external;
        function setApprovalForAll(address operator, bool approved) external;
    }
}

#[tokio::test]
async fn nft_approval_reads_follow_real_approvals() {
    let cfg = config();
    let (chain, m) = universe::boot(&cfg, Profile::Bsc).await.unwrap();
    let key = agent(&m);
    let (squad, nft) = (
        m.contract("PancakeSquad").unwrap(),
        m.contract("erc721_token").unwrap(),
    );
    let spender = Address::with_last_byte(0x51);
    assert_eq!(
        chain
            .erc721_approved(squad, U256::from(1u64))
            .await
            .unwrap(),
        Address::ZERO
    );
    let approve = INft::approveCall {
        to: spender,
        id: U256::from(1u64),
    };
    assert!(
        chain
            .send_signed(&key, &TxRequest::call(squad, approve.abi_encode()))
            .await
            .unwrap()
            .success
    );
    assert_eq!(
        chain
            .erc721_approved(squad, U256::from(1u64))
            .await
            .unwrap(),
        spender
    );
    assert!(!chain
        .approved_for_all(nft, key.address(), spender)
        .await
        .unwrap());
    let all = INft::setApprovalForAllCall {
        operator: spender,
        approved: true,
    };
    assert!(
        chain
            .send_signed(&key, &TxRequest::call(nft, all.abi_encode()))
            .await
            .unwrap()
            .success
    );
    assert!(chain
        .approved_for_all(nft, key.address(), spender)
        .await
        .unwrap());
}
