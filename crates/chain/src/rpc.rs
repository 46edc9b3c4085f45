//! A minimal JSON-RPC 2.0 client over HTTP with an explicit timeout on every call.
//!
//! alloy supplies the types, ABI coding and signing; this client sends the requests so that
//! Anvil's cheat methods, timeouts and error codes are all handled in one visible place.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::ChainError;

/// A JSON-RPC endpoint.
#[derive(Debug, Clone)]
pub struct Rpc {
    client: reqwest::Client,
    url: String,
    timeout: Duration,
}

impl Rpc {
    /// A client for `url` with a per-call timeout.
    pub fn new(url: impl Into<String>, timeout: Duration) -> Self {
        let client = reqwest::Client::builder()
            .no_proxy()
            .pool_max_idle_per_host(4)
            .build()
            .expect("a plain reqwest client always builds");
        Self {
            client,
            url: url.into(),
            timeout,
        }
    }

    /// The endpoint URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The same client with another timeout.
    pub fn with_timeout(&self, timeout: Duration) -> Self {
        Self {
            timeout,
            ..self.clone()
        }
    }

    /// Calls `method` and decodes its result.
    pub async fn call<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, ChainError> {
        let value = self.call_value(method, params).await?;
        serde_json::from_value(value.clone()).map_err(|e| ChainError::Decode {
            method: method.to_string(),
            message: format!("{e}: {value}"),
        })
    }

    /// Sends several calls in one JSON-RPC batch request; each element is that call's result or
    /// its own RPC error (a failed element does not fail the batch; transport problems do).
    pub async fn call_batch(
        &self,
        calls: &[(&str, Value)],
    ) -> Result<Vec<Result<Value, ChainError>>, ChainError> {
        if calls.is_empty() {
            return Ok(Vec::new());
        }
        let body: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (m, p))| json!({"jsonrpc": "2.0", "id": i, "method": m, "params": p}))
            .collect();
        let transport = |e: reqwest::Error| ChainError::Transport {
            method: "batch".to_string(),
            message: e.to_string(),
            timeout: e.is_timeout(),
        };
        let resp = self
            .client
            .post(&self.url)
            .timeout(self.timeout)
            .json(&body)
            .send()
            .await
            .map_err(transport)?;
        let items: Vec<Value> = resp.json().await.map_err(transport)?;
        let mut out: Vec<Option<Result<Value, ChainError>>> =
            (0..calls.len()).map(|_| None).collect();
        for mut item in items {
            let Some(i) = item.get("id").and_then(Value::as_u64).map(|i| i as usize) else {
                continue;
            };
            if i >= out.len() {
                continue;
            }
            let method = calls[i].0.to_string();
            out[i] = Some(match item.get("error") {
                Some(err) => Err(ChainError::Rpc {
                    method,
                    code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: err
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    data: err.get("data").cloned().map(Box::new),
                }),
                None => Ok(item
                    .get_mut("result")
                    .map(Value::take)
                    .unwrap_or(Value::Null)),
            });
        }
        out.into_iter()
            .enumerate()
            .map(|(i, r)| {
                r.ok_or_else(|| ChainError::Decode {
                    method: calls[i].0.to_string(),
                    message: "the batch response has no answer for this call".into(),
                })
            })
            .collect()
    }

    /// Calls `method` and returns its raw result.
    pub async fn call_value(&self, method: &str, params: Value) -> Result<Value, ChainError> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let resp = self
            .client
            .post(&self.url)
            .timeout(self.timeout)
            .json(&body)
            .send()
            .await
            .map_err(|e| ChainError::Transport {
                method: method.to_string(),
                message: e.to_string(),
                timeout: e.is_timeout(),
            })?;
        let mut v: Value = resp.json().await.map_err(|e| ChainError::Transport {
            method: method.to_string(),
            message: e.to_string(),
            timeout: e.is_timeout(),
        })?;
        if let Some(err) = v.get("error") {
            return Err(ChainError::Rpc {
                method: method.to_string(),
                code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: err
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                data: err.get("data").cloned().map(Box::new),
            });
        }
        Ok(v.get_mut("result").map(Value::take).unwrap_or(Value::Null))
    }
}
