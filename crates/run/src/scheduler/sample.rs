//! One job run to a stored sample: the agent it asks (scripted, built-in or a provider model), the
//! usage of its model calls, and the sample row that is committed.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::counted::{Counted, StopCause};
use super::{Progress, Shared};
use crate::models::{key_for, ModelRef};
use crate::spec::Job;
use crate::RunError;
use crucible_core::{Benchmark, Event, Message, Outcome, Role, SampleRecord, ScriptedAgent};
use crucible_llm::ModelAgent;
use crucible_store::{rfc3339, NewSample, SampleRow};

/// Usage of one sample's model calls.
#[derive(Default)]
struct Spend {
    tokens_in: u64,
    tokens_out: u64,
    cost_usd: f64,
    /// Model calls made (`None` for built-in agents and replays).
    calls: Option<u64>,
    /// Of them, answers cut at the token limit.
    truncated_calls: u64,
    /// Of them, calls of a model with no price: their cost is unknown, not 0.
    unpriced_calls: u64,
}

fn model_agent(
    sh: &Shared,
    name: &str,
    spec: &crucible_llm::ModelSpec,
) -> Result<ModelAgent, RunError> {
    let provider = sh.endpoints.get(name).map(|e| e.provider.as_str());
    let key = key_for(&sh.ctx.config.data_dir, spec, provider, &sh.origin)?;
    let mut a = ModelAgent::new(spec.clone(), key)?
        .with_limiter(sh.limits.limiter(spec.provider.as_str(), &spec.base_url))
        .with_prices(Arc::clone(&sh.prices))
        .with_cache(sh.cache.clone())
        .with_cache_scope(provider.unwrap_or_default());
    if let Some(b) = &sh.budget {
        a = a.with_budget(b.clone());
    }
    Ok(a)
}

pub(super) async fn run_job(
    sh: &Shared,
    bench: &dyn Benchmark,
    job: &Job,
    agents: &mut BTreeMap<String, ModelAgent>,
) -> Result<NewSample, RunError> {
    let started = Instant::now();
    // Shared with the counting agent, so each model call lands between the turns around it.
    let log = std::sync::Mutex::new(Vec::new());
    let mut spend = Spend::default();
    let record = {
        let mut push = |e: Event| {
            if let Ok(mut events) = log.lock() {
                events.push(e);
            }
        };
        match (&job.replay, sh.models.get(&job.model)) {
            (Some(turns), _) => {
                let mut a = ScriptedAgent::new(job.model.clone(), turns.clone());
                bench
                    .run(&job.instance, &mut a, job.seed, &mut push)
                    .await?
            }
            (None, Some(ModelRef::Builtin(name))) => {
                let mut a = bench.builtin_agent(name, &job.instance, job.seed)?;
                bench
                    .run(&job.instance, a.as_mut(), job.seed, &mut push)
                    .await?
            }
            (None, Some(ModelRef::Provider(spec))) => {
                let agent = match agents.remove(&job.model) {
                    Some(a) => a,
                    None => model_agent(sh, &job.model, spec)?,
                };
                let mut agent = agent.with_sample(u64::from(job.round)).with_seed(job.seed);
                let before = agent.calls().len();
                let key_owner = match sh.endpoints.get(&job.model) {
                    Some(e) if !e.provider.is_empty() => format!("provider {}", e.provider),
                    _ => format!(
                        "the {} key",
                        job.model.split(':').next().unwrap_or("provider")
                    ),
                };
                let mut counted = Counted {
                    inner: &mut agent,
                    in_flight: &sh.in_flight,
                    events: &log,
                    quota: &sh.quota,
                    model: &job.model,
                    key_owner: &key_owner,
                    newly_stopped: None,
                };
                let r = bench
                    .run(&job.instance, &mut counted, job.seed, &mut push)
                    .await;
                if let Some((cause, message)) = counted.newly_stopped.take() {
                    let model = job.model.clone();
                    sh.emit(match cause {
                        StopCause::Quota => Progress::QuotaReached { model, message },
                        StopCause::Key => Progress::KeyRefused { model, message },
                    })
                    .await;
                }
                let calls = &agent.calls()[before..];
                spend.calls = Some(calls.len() as u64);
                for c in calls {
                    spend.tokens_in += c.usage.prompt_tokens();
                    spend.tokens_out += c.usage.output_tokens;
                    match c.cost_usd {
                        Some(usd) => spend.cost_usd += usd,
                        None => spend.unpriced_calls += 1,
                    }
                    spend.truncated_calls += u64::from(c.truncated);
                }
                agents.insert(job.model.clone(), agent);
                r?
            }
            (None, None) => {
                return Err(RunError::Spec(format!(
                    "model {:?} is not in the run",
                    job.model
                )))
            }
        }
    };
    let latency_ms = started.elapsed().as_millis() as i64;
    let events = log.into_inner().unwrap_or_default();
    Ok(to_sample(sh, job, record, events, spend, latency_ms))
}

fn to_sample(
    sh: &Shared,
    job: &Job,
    mut r: SampleRecord,
    events: Vec<Event>,
    spend: Spend,
    latency_ms: i64,
) -> NewSample {
    // A provider model's sample says how many of its answers were cut at the token limit.
    if let (Some(calls), Some(d)) = (spend.calls, r.details.as_object_mut()) {
        d.insert("model_calls".into(), serde_json::json!(calls));
        d.insert(
            "truncated_calls".into(),
            serde_json::json!(spend.truncated_calls),
        );
        d.insert(
            "truncated".into(),
            serde_json::json!(spend.truncated_calls > 0),
        );
        // `cost_usd` sums the priced calls only; these had none (the store's `unpriced_calls`).
        d.insert(
            "unpriced_calls".into(),
            serde_json::json!(spend.unpriced_calls),
        );
    }
    let error = job.replay_error.clone().or_else(|| r.agent_error.clone());
    let first_user = |t: &[Message]| {
        t.iter()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.clone())
            .unwrap_or_default()
    };
    let last_answer = |t: &[Message]| {
        t.iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(|m| m.content.clone())
            .unwrap_or_default()
    };
    let artefacts = events
        .iter()
        .filter_map(|e| match e {
            Event::Note { kind, detail } if kind != "tool_call" => {
                Some((kind.clone(), detail.to_string()))
            }
            _ => None,
        })
        .collect();
    let m = &job.meta;
    NewSample {
        row: SampleRow {
            run_id: sh.run_id.clone(),
            benchmark: job.benchmark.clone(),
            model: job.model.clone(),
            instance: job.instance.clone(),
            task: m.task.clone(),
            prompt_type: m.prompt_type.clone(),
            round: i64::from(job.round),
            seed: job.seed as i64,
            kind: m.kind.clone(),
            category: m.category.clone(),
            subcategory: m.subcategory.clone(),
            difficulty: m.difficulty.clone(),
            outcome: if error.is_some() {
                Outcome::AgentError
            } else {
                r.outcome
            },
            score: r.score.clamp(0.0, 1.0),
            passed: r.passed && error.is_none(),
            metrics: serde_json::to_string(&r.metrics).unwrap_or_else(|_| "{}".into()),
            details: r.details.to_string(),
            prompt: first_user(&r.transcript),
            raw_answer: last_answer(&r.transcript),
            k_act: r.k_act.map(i64::from),
            k_opt: r.k_opt.map(i64::from),
            tokens_in: spend.tokens_in as i64,
            tokens_out: spend.tokens_out as i64,
            cost_usd: spend.cost_usd,
            latency_ms,
            // A benchmark with one scoring: the paper's is its own.
            score_paper: Some(r.paper.map_or(r.score, |p| p.score).clamp(0.0, 1.0)),
            passed_paper: Some(r.paper.map_or(r.passed, |p| p.passed) && error.is_none()),
            prompt_set: r.prompt_set.as_str().into(),
            error,
            finished_at: rfc3339(SystemTime::now()),
        },
        events: events
            .iter()
            .filter_map(|e| serde_json::to_string(e).ok())
            .collect(),
        artefacts,
    }
}
