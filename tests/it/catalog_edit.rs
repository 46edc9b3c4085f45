//! Settings → Providers' model catalogue reaches runs: an override saved through the app's own
//! path (`views::model_catalog::save_override`, what the `save_model_override` command calls)
//! changes what every request of a `crucible run` carries, and a reset brings the shipped entry
//! back. The provider is a loopback that records each request body.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use crucible_views::model_catalog::{reset_override, save_override, EntryFields};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A loopback OpenAI-compatible server answering "Task completed", keeping each request body.
async fn recorder() -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 8192];
                let head_end = loop {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        break i + 4;
                    }
                };
                let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                while buf.len() < head_end + len {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let body = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
                log.lock().unwrap().push(body);
                let answer = json!({"id": "x", "object": "chat.completion",
                    "choices": [{"index": 0, "message": {"role": "assistant",
                    "content": "Task completed"}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 2}})
                .to_string();
                let out = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                    answer.len()
                );
                let _ = sock.write_all(out.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    (base, seen)
}

fn run(data: &Path, db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_crucible"));
    c.args([
        "run",
        "--db",
        &db.display().to_string(),
        "--bench",
        "pilot",
        "--model",
        "openai-compatible:acme-reasoner-2",
        "--provider",
        "openai-compatible:acme-reasoner-2=lab",
        "--limit",
        "1",
        "--prompt-type",
        "cot",
        "--no-cache",
        "--json",
    ])
    .env("CRUCIBLE_DATA_DIR", data)
    .env("CRUCIBLE_LOG", "error")
    .env("LAB_KEY", "k")
    .env_remove("CRUCIBLE_API_KEY");
    c
}

async fn output(mut c: Command) -> Output {
    tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalogue_entry_edited_in_settings_changes_what_a_run_sends() {
    let (base, seen) = recorder().await;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let db = tmp.path().join("runs.db");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("providers.json"),
        json!({"version": 1, "providers": [{"id": "lab", "kind": "openai-compatible",
            "base_url": base, "key_env": "LAB_KEY",
            "models": [{"name": "acme-reasoner-2", "settings": {"max_tokens": 64}}]}]})
        .to_string(),
    )
    .unwrap();

    // Unknown to the shipped catalogue: `max_tokens`, as every OpenAI-compatible server takes.
    let out = output(run(&data, &db)).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first: Vec<Value> = std::mem::take(&mut *seen.lock().unwrap());
    assert!(!first.is_empty());
    for b in &first {
        assert_eq!(b["max_tokens"], 64, "{b}");
        assert!(b.get("max_completion_tokens").is_none(), "{b}");
    }

    // The user says, in Settings, that this family takes `max_completion_tokens`.
    save_override(
        &data,
        &EntryFields {
            match_: "acme-reasoner".into(),
            max_tokens_field: Some("max_completion_tokens".into()),
            reasoning: Some("openai_effort".into()),
            ..EntryFields::default()
        },
    )
    .unwrap();
    let out = output(run(&data, &db)).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let second: Vec<Value> = std::mem::take(&mut *seen.lock().unwrap());
    assert!(!second.is_empty());
    for b in &second {
        assert_eq!(b["max_completion_tokens"], 64, "{b}");
        assert!(b.get("max_tokens").is_none(), "{b}");
    }

    // Reset to shipped: back to `max_tokens`.
    reset_override(&data, "acme-reasoner").unwrap();
    let out = output(run(&data, &db)).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let third: Vec<Value> = std::mem::take(&mut *seen.lock().unwrap());
    assert!(third.iter().all(|b| b["max_tokens"] == 64), "{third:?}");
}
