//! `crucible models …`: check a provider with one real call, show the price table, clear the
//! response cache.

use anyhow::Result;
use clap::{Args, Subcommand};
use crucible_core::Config;
use crucible_llm::{probe, resolve_key_from_os, PriceTable, ProbeReport, Provider, ResponseCache};
use serde_json::json;

/// `crucible models`.
#[derive(Debug, Subcommand)]
pub enum ModelsCmd {
    /// Make one cheap real call and print `{ok, latency_ms, usage, error, answer, key_source}`
    /// (`key_source`: `{"kind": "keychain"|"env"|"none", "detail": backend or variable}`).
    Test(TestArgs),
    /// Print the price table in use: --prices, else `<data dir>/prices.json`, else the shipped one.
    Prices {
        /// Another price table (same JSON shape).
        #[arg(long)]
        prices: Option<std::path::PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Serve the loopback model server (OpenAI wire, answers `ok`) until Ctrl-C; prints
    /// `{"base_url": …}` first. For demos and the app's E2E tests.
    Loopback {
        /// Only this bearer key is accepted (others get a 401 with an OpenAI-style message).
        #[arg(long)]
        key: Option<String>,
        /// Delay before each answer, in ms.
        #[arg(long, default_value_t = 0)]
        latency_ms: u64,
    },
    /// Delete every cached model answer under the data dir.
    ClearCache {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `crucible models test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// openai, openrouter, ollama, openai-compatible, anthropic or gemini.
    #[arg(long)]
    provider: String,
    /// The server (default: the provider's public URL).
    #[arg(long)]
    base_url: Option<String>,
    /// Model name as the provider knows it.
    #[arg(long)]
    model: String,
    /// Env var holding the key (default: the OS keychain entry `crucible/<provider>`, then the
    /// provider's usual variable, then CRUCIBLE_API_KEY for hosted providers; an ollama or
    /// openai-compatible server gets CRUCIBLE_API_KEY only with `--key-env CRUCIBLE_API_KEY`).
    #[arg(long)]
    key_env: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn failed(e: impl ToString) -> ProbeReport {
    ProbeReport {
        ok: false,
        latency_ms: 0,
        usage: None,
        error: Some(e.to_string()),
        answer: None,
    }
}

/// Runs `crucible models …`.
pub async fn models(config: &Config, cmd: ModelsCmd) -> Result<()> {
    match cmd {
        ModelsCmd::Test(a) => {
            let mut key_source = crucible_llm::KeySource::None;
            let report = match Provider::parse(&a.provider).and_then(|p| {
                // The data dir's catalogue decides which parameters the probe may send.
                crucible_llm::Catalog::resolve(&config.data_dir)?;
                let (key, source) = resolve_key_from_os(p, None, a.key_env.as_deref())?;
                let spec = crucible_llm::ModelSpec::new(p, &a.model, a.base_url.as_deref())?;
                Ok((spec, key, source))
            }) {
                Ok((spec, key, source)) => {
                    key_source = source;
                    probe(spec, key).await
                }
                Err(e) => failed(e),
            };
            if a.json {
                let v = json!({"ok": report.ok, "latency_ms": report.latency_ms,
                               "usage": report.usage, "error": report.error, "answer": report.answer,
                               "key_source": key_source});
                out!("{}", serde_json::to_string_pretty(&v)?);
            } else if report.ok {
                out!(
                    "ok in {} ms: {:?} ({:?})",
                    report.latency_ms,
                    report.answer.as_deref().unwrap_or(""),
                    report.usage.unwrap_or_default()
                );
            } else {
                out!("failed: {}", report.error.as_deref().unwrap_or(""));
            }
            if !report.ok {
                std::process::exit(1);
            }
            Ok(())
        }
        ModelsCmd::Prices { prices, json } => {
            let table = match prices {
                Some(p) => PriceTable::load(&p)?,
                None => PriceTable::resolve(&config.data_dir)?,
            };
            if json {
                out!("{}", serde_json::to_string_pretty(&table)?);
            } else {
                out!(
                    "prices as of {} (USD per 1M tokens, input / output)",
                    table.as_of
                );
                for (m, p) in &table.models {
                    out!("{m:30} {:>8} / {:>8}", p.input_per_mtok, p.output_per_mtok);
                }
            }
            Ok(())
        }
        ModelsCmd::Loopback { key, latency_ms } => {
            let server = crucible_llm::Loopback::start_with_key(
                std::time::Duration::from_millis(latency_ms),
                key,
            )
            .await?;
            out!("{}", json!({"base_url": server.base_url()}));
            // Serve until interrupted (Ctrl-C) or killed.
            let _ = tokio::signal::ctrl_c().await;
            drop(server);
            Ok(())
        }
        ModelsCmd::ClearCache { json } => {
            let cache = ResponseCache::in_data_dir(&config.data_dir);
            let cleared = cache.clear()?;
            if json {
                let v = json!({"dir": cache.dir(), "cleared": cleared});
                out!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                out!(
                    "cleared {cleared} cached answers from {}",
                    cache.dir().display()
                );
            }
            Ok(())
        }
    }
}
