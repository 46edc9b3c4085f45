//! The figures printed by `crucible bench chain|sandbox`: medians and 90th percentiles measured on
//! the real components. Performance targets are checked by reading these, never by timed tests.

use std::sync::Arc;
use std::time::{Duration, Instant};

use alloy::primitives::{Address, U256};
use alloy::signers::local::PrivateKeySigner;
use serde::Serialize;
use serde_json::json;

use crucible_chain::gate::Gate;
use crucible_chain::sandbox::{Call, Sandbox};
use crucible_chain::universe::{self, Manifest, Profile};
use crucible_chain::TxRequest;
use crucible_core::Config;

/// Median and 90th percentile of a sample, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Figure {
    /// Number of measurements.
    pub n: usize,
    /// Median (ms).
    pub median_ms: f64,
    /// 90th percentile, nearest rank (ms).
    pub p90_ms: f64,
    /// Minimum (ms).
    pub min_ms: f64,
}

impl Figure {
    /// Summarises durations.
    pub fn of(samples: &[Duration]) -> Self {
        let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        let n = ms.len();
        let at = |q: f64| {
            if n == 0 {
                f64::NAN
            } else {
                ms[((q * n as f64).ceil() as usize).clamp(1, n) - 1]
            }
        };
        let median = if n == 0 {
            f64::NAN
        } else if n % 2 == 1 {
            ms[n / 2]
        } else {
            (ms[n / 2 - 1] + ms[n / 2]) / 2.0
        };
        Self {
            n,
            median_ms: median,
            p90_ms: at(0.9),
            min_ms: ms.first().copied().unwrap_or(f64::NAN),
        }
    }
}

/// `crucible bench chain`.
#[derive(Debug, Clone, Serialize)]
pub struct ChainBench {
    /// Universe profile measured.
    pub profile: Profile,
    /// Process start → first RPC answer, booting the stored universe.
    pub boot: Figure,
    /// `evm_snapshot` + `evm_revert` after one mined transfer.
    pub snapshot_revert: Figure,
    /// One signed transfer: sign, send, receipt.
    pub signed_transfer: Figure,
    /// Sequential signed transfers per second (each waits for its receipt).
    pub signed_transfers_per_s: f64,
}

/// Measures the chain on the bsc universe with `boots_n` boots; the default scale (15) also does
/// 200 snapshot/revert pairs and 500 signed transfers (both scale with `boots_n`).
pub async fn chain(config: &Config, boots_n: usize) -> anyhow::Result<ChainBench> {
    let profile = Profile::Bsc;
    let boots_n = boots_n.max(1);
    let (snaps_n, sends_n) = (boots_n * 40 / 3, boots_n * 100 / 3);
    let mut boots = Vec::new();
    for _ in 0..boots_n {
        let (c, _) = universe::boot(config, profile).await?;
        boots.push(c.anvil().boot);
    }
    let (c, m) = universe::boot(config, profile).await?;
    let key: PrivateKeySigner = m.account("agent")?.key.parse()?;
    let to = Address::with_last_byte(0xaa);
    let transfer = TxRequest {
        to: Some(to),
        value: U256::from(1u64),
        gas: Some(21_000),
        ..Default::default()
    };
    let mut snaps = Vec::new();
    for _ in 0..snaps_n.max(1) {
        let s = c.snapshot().await?;
        c.send_signed(&key, &transfer).await?;
        let t = Instant::now();
        c.revert(&s).await?;
        let s2 = c.snapshot().await?;
        snaps.push(t.elapsed());
        c.revert(&s2).await?;
    }
    let mut sends = Vec::new();
    let all = Instant::now();
    for _ in 0..sends_n.max(1) {
        let t = Instant::now();
        let r = c.send_signed(&key, &transfer).await?;
        anyhow::ensure!(r.success, "transfer reverted");
        sends.push(t.elapsed());
    }
    let per_s = sends.len() as f64 / all.elapsed().as_secs_f64();
    Ok(ChainBench {
        profile,
        boot: Figure::of(&boots),
        snapshot_revert: Figure::of(&snaps),
        signed_transfer: Figure::of(&sends),
        signed_transfers_per_s: per_s,
    })
}

/// `crucible bench sandbox`.
#[derive(Debug, Clone, Serialize)]
pub struct SandboxBench {
    /// Cold: process start → result for a module that reads the chain and builds an ERC-20
    /// transfer (bubblewrap + Deno start, ethers load, transpile, run).
    pub start_to_result: Figure,
    /// Prepared: module handed over → result, with the process started and ethers loaded
    /// beforehand (how the runner overlaps start-up with the previous module).
    pub prepared_to_result: Figure,
    /// The first (cold cache) run, ms.
    pub first_run_ms: f64,
}

/// The module the sandbox bench runs: what a typical atomic answer does.
pub const BENCH_MODULE: &str = r#"import { ethers } from "ethers";
export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const usdt = new ethers.Contract(deployedContracts.USDT, ["function decimals() view returns (uint8)", "function transfer(address,uint256) returns (bool)"], provider);
  const decimals = await usdt.decimals();
  const data = usdt.interface.encodeFunctionData("transfer", ["0x000000000000000000000000000000000000dEaD", ethers.parseUnits("12.5", decimals)]);
  return { to: deployedContracts.USDT, data, value: "0" };
}
"#;

/// Measures the sandbox on the bsc universe.
pub async fn sandbox(config: &Config, runs: usize) -> anyhow::Result<SandboxBench> {
    let (c, m) = universe::boot(config, Profile::Bsc).await?;
    let gate = Gate::start(&c.url()).await?;
    let sb = Sandbox::new(config)?;
    let call = call_for(&gate, &m)?;
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut first = None;
    for _ in 0..runs.max(1) + 1 {
        let run = sb.run(BENCH_MODULE, &call).await?;
        anyhow::ensure!(
            run.outcome.is_ok(),
            "bench module failed: {:?}",
            run.outcome
        );
        if first.is_none() {
            first = Some(run.elapsed);
            continue;
        }
        cold.push(run.elapsed);
        let prepared = sb.prepare(&call.provider_url).await?;
        let run = prepared.run(BENCH_MODULE, &call).await?;
        anyhow::ensure!(
            run.outcome.is_ok(),
            "bench module failed: {:?}",
            run.outcome
        );
        warm.push(run.elapsed);
    }
    Ok(SandboxBench {
        start_to_result: Figure::of(&cold),
        prepared_to_result: Figure::of(&warm),
        first_run_ms: first.unwrap_or_default().as_secs_f64() * 1e3,
    })
}

fn call_for(gate: &Gate, m: &Manifest) -> anyhow::Result<Call> {
    Ok(Call {
        provider_url: gate.url(),
        agent_address: m.account("agent")?.address.to_string(),
        deployed_contracts: json!(m.address_book()),
        now_ms: None,
    })
}

/// Runs one module against a fresh boot of `profile` (for `crucible sandbox FILE`).
pub async fn run_module(
    config: &Config,
    profile: Profile,
    code: &str,
) -> anyhow::Result<crucible_chain::sandbox::SandboxRun> {
    let (c, m) = universe::boot(config, profile).await?;
    let gate = Gate::start(&c.url()).await?;
    let sb = Sandbox::new(config)?;
    Ok(sb.run(code, &call_for(&gate, &m)?).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_median_and_p90_by_hand() {
        let d = |ms: u64| Duration::from_millis(ms);
        let f = Figure::of(&[d(5), d(1), d(3), d(2), d(4), d(10), d(6), d(7), d(8), d(9)]);
        assert_eq!(f.n, 10);
        assert_eq!(f.median_ms, 5.5);
        assert_eq!(f.p90_ms, 9.0);
        assert_eq!(f.min_ms, 1.0);
        let g = Figure::of(&[d(3), d(1), d(2)]);
        assert_eq!(g.median_ms, 2.0);
        assert_eq!(g.p90_ms, 3.0);
        assert!(Figure::of(&[]).median_ms.is_nan());
    }
}

/// Figures of `crucible bench llm`: the model-call layer against the loopback provider.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmBench {
    /// Sequential calls measured for each of the overhead figures.
    pub sequential_calls: usize,
    /// A bare reqwest POST to the zero-latency loopback server, answered whole (JSON).
    pub raw_http: Figure,
    /// The same call through `ModelAgent::complete` with streaming off (encode, limiter, retry
    /// loop, decode, cost).
    pub agent_call: Figure,
    /// `agent_call.median_ms - raw_http.median_ms`: what the layer adds per call, not streamed.
    pub overhead_per_call_ms: f64,
    /// A bare reqwest POST asking for a stream, its SSE body read whole (no parsing).
    pub raw_http_stream: Figure,
    /// The same call through `ModelAgent::complete` streamed (the default): the SSE parser and
    /// the assembler on top of the above.
    pub agent_call_stream: Figure,
    /// `agent_call_stream.median_ms - raw_http_stream.median_ms`: what the layer adds per
    /// streamed call.
    pub overhead_per_call_stream_ms: f64,
    /// Server-side latency of the throughput run (ms).
    pub latency_ms: u64,
    /// Concurrent agents sharing one provider limiter.
    pub concurrency: usize,
    /// Calls made in the throughput run.
    pub calls: usize,
    /// Wall time of the throughput run (s).
    pub seconds: f64,
    /// Calls per second.
    pub calls_per_s: f64,
    /// The ideal: `concurrency / latency`.
    pub ideal_calls_per_s: f64,
}

/// Measures the model-call layer: per-call overhead over bare HTTP (sequential, zero latency),
/// with streaming off and on, and throughput of `concurrency` agents (streamed, the default) at
/// `latency_ms` server latency.
pub async fn llm(
    sequential_calls: usize,
    latency_ms: u64,
    concurrency: usize,
    calls_per_agent: usize,
) -> anyhow::Result<LlmBench> {
    use crucible_core::{Message, Role};
    use crucible_llm::{
        AdaptiveLimiter, Aimd, Loopback, ModelAgent, ModelSettings, ModelSpec, Provider,
    };

    let conv = [Message::new(Role::User, "Reply with the single word: ok")];
    let fast = Loopback::start(Duration::ZERO).await?;
    let spec = ModelSpec::new(
        Provider::OpenAiCompatible,
        "loopback",
        Some(&fast.base_url()),
    )?;
    let http = reqwest::Client::new();
    let body = crucible_llm::encode(
        Provider::OpenAiCompatible.wire(),
        &fast.base_url(),
        "loopback",
        &spec.settings,
        None,
        &conv,
    );
    let mut streamed_body = body.body.clone();
    streamed_body["stream"] = serde_json::json!(true);
    streamed_body["stream_options"] = serde_json::json!({"include_usage": true});
    // Interleaved, so that load from elsewhere on the machine hits every series alike.
    let mut agent = ModelAgent::new(
        spec.clone().with_settings(ModelSettings {
            stream: Some(false),
            ..ModelSettings::default()
        }),
        None,
    )?;
    let mut streaming = ModelAgent::new(spec, None)?;
    let mut raw = Vec::with_capacity(sequential_calls);
    let mut through = Vec::with_capacity(sequential_calls);
    let mut raw_stream = Vec::with_capacity(sequential_calls);
    let mut through_stream = Vec::with_capacity(sequential_calls);
    for _ in 0..sequential_calls {
        let t = Instant::now();
        let sse = http
            .post(&body.url)
            .json(&streamed_body)
            .send()
            .await?
            .bytes()
            .await?;
        anyhow::ensure!(
            sse.ends_with(b"data: [DONE]\n\n"),
            "the loopback did not stream"
        );
        raw_stream.push(t.elapsed());
        let t = Instant::now();
        let c = streaming.complete(&conv).await?;
        anyhow::ensure!(c.text == "ok", "streamed answer {:?}", c.text);
        through_stream.push(t.elapsed());
        let t = Instant::now();
        let v: serde_json::Value = http
            .post(&body.url)
            .json(&body.body)
            .send()
            .await?
            .json()
            .await?;
        crucible_llm::decode(Provider::OpenAiCompatible.wire(), &v)
            .map_err(|e| anyhow::anyhow!(e.0))?;
        raw.push(t.elapsed());
        let t = Instant::now();
        agent.complete(&conv).await?;
        through.push(t.elapsed());
    }
    let (raw_http, agent_call) = (Figure::of(&raw), Figure::of(&through));
    let (raw_http_stream, agent_call_stream) =
        (Figure::of(&raw_stream), Figure::of(&through_stream));

    let slow = Loopback::start(Duration::from_millis(latency_ms)).await?;
    let limiter = AdaptiveLimiter::new(Aimd::new(concurrency, concurrency, 8));
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..concurrency {
        let spec = ModelSpec::new(
            Provider::OpenAiCompatible,
            "loopback",
            Some(&slow.base_url()),
        )?;
        let mut a = ModelAgent::new(spec, None)?.with_limiter(Arc::clone(&limiter));
        let conv = conv.clone();
        workers.push(tokio::spawn(async move {
            for _ in 0..calls_per_agent {
                a.complete(&conv).await?;
            }
            Ok::<_, crucible_llm::LlmError>(())
        }));
    }
    for w in workers {
        w.await??;
    }
    let seconds = started.elapsed().as_secs_f64();
    let calls = concurrency * calls_per_agent;
    Ok(LlmBench {
        sequential_calls,
        overhead_per_call_ms: agent_call.median_ms - raw_http.median_ms,
        raw_http,
        agent_call,
        overhead_per_call_stream_ms: agent_call_stream.median_ms - raw_http_stream.median_ms,
        raw_http_stream,
        agent_call_stream,
        latency_ms,
        concurrency,
        calls,
        seconds,
        calls_per_s: calls as f64 / seconds,
        ideal_calls_per_s: concurrency as f64 * 1000.0 / latency_ms.max(1) as f64,
    })
}

/// `crucible bench questbench`: the reference agent over every task (atomic and composite), one
/// seed; per-sample stage figures (a composite sample sums its rounds).
#[derive(Debug, Clone, Serialize)]
pub struct QuestFigures {
    /// Tasks run.
    pub tasks: usize,
    /// Execution rounds run (atomic tasks: 1 each; composites: K_act of the reference).
    pub rounds: u32,
    /// Tasks whose reference scored 100.
    pub reference_perfect: usize,
    /// Universe boot + gate + sandbox setup (ms).
    pub boot_ms: f64,
    /// Wall time of all samples after boot (ms).
    pub wall_ms: f64,
    /// Revert to the snapshot + agent funding + task setup, per sample.
    pub revert_setup: Figure,
    /// Sandbox start to result, per sample.
    pub sandbox: Figure,
    /// Sign, send and receipt, per sample.
    pub send_receipt: Figure,
    /// Check reads (before and after), per sample.
    pub checks: Figure,
}

/// Runs every task's reference solution once (seed `seed`) and times each stage.
pub async fn questbench(config: &Config, seed: u64) -> anyhow::Result<QuestFigures> {
    use crucible_questbench::atomic::{as_answer, Harness};
    let tasks = crucible_questbench::task::load_dir(&config.project_dir.join("tasks/questbench"))?;
    let t0 = Instant::now();
    let h = Harness::start(config).await?;
    let boot = t0.elapsed();
    let t1 = Instant::now();
    let (mut rs, mut sb, mut sd, mut ck) = (vec![], vec![], vec![], vec![]);
    let mut perfect = 0;
    let d = |ms: f64| Duration::from_secs_f64(ms / 1e3);
    let mut rounds = 0u32;
    for t in &tasks {
        let inst = h.instance(t, seed)?;
        let (score_ok, stages) = if t.spec.kind == crucible_questbench::task::Kind::Composite {
            let turns = crucible_questbench::composite::render_script(
                t,
                &t.spec.solutions.reference,
                &inst,
            )?;
            let mut agent = crucible_core::ScriptedAgent::new("reference", turns);
            let (v, _) =
                crucible_questbench::composite::run_episode(&h, t, &inst, &mut agent, &mut |_| {})
                    .await?;
            rounds += v.k_act;
            (v.score == 100.0, v.stages)
        } else {
            let code = inst.render_solution(&t.reference_source()?);
            let v = h.run_answer(t, &inst, &as_answer(&code)).await?;
            rounds += 1;
            (v.score == 100, v.stages)
        };
        if score_ok {
            perfect += 1;
        }
        rs.push(d(stages.revert_setup_ms));
        sb.push(d(stages.sandbox_ms));
        sd.push(d(stages.send_ms));
        ck.push(d(stages.checks_ms));
    }
    Ok(QuestFigures {
        tasks: tasks.len(),
        rounds,
        reference_perfect: perfect,
        boot_ms: boot.as_secs_f64() * 1e3,
        wall_ms: t1.elapsed().as_secs_f64() * 1e3,
        revert_setup: Figure::of(&rs),
        sandbox: Figure::of(&sb),
        send_receipt: Figure::of(&sd),
        checks: Figure::of(&ck),
    })
}
