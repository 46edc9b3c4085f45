//! The response cache: a content-addressed directory of JSON files, one per answered request,
//! keyed by (provider, base URL, model, messages, settings, sample index). A repeated or resumed
//! run reads its answers back instead of paying for them again. Keys never include the API key.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::provider::{Completion, ModelSettings, Provider};
use super::LlmError;
use crucible_core::Message;

/// What a cached answer is keyed by; hashed into its file name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheKey<'a> {
    /// Provider name.
    pub provider: Provider,
    /// The server asked (a different server may serve a different model under the same name).
    pub base_url: &'a str,
    /// Model name.
    pub model: &'a str,
    /// The whole conversation.
    pub messages: &'a [Message],
    /// Sampling settings.
    pub settings: &'a ModelSettings,
    /// Which sample (round) of the same prompt this is: rounds must not share an answer.
    pub sample: u64,
    /// Tools offered through native tool calling (none: the key is what it was before tools).
    pub tools: &'a [crucible_core::ToolSpec],
    /// How the tools must be used (none: the key is what it was before tool choice).
    pub tool_choice: Option<&'a crucible_core::ToolChoice>,
    /// The saved provider entry the call went through (none: a model named by kind and URL; the
    /// key is then what it was before scopes).
    pub scope: Option<&'a str>,
}

impl CacheKey<'_> {
    /// The canonical JSON the digest is taken over (fixed field order).
    pub fn material(&self) -> Value {
        let mut m = json!({
            "v": 1,
            "provider": self.provider.as_str(),
            "base_url": self.base_url.trim_end_matches('/'),
            "model": self.model,
            "messages": self.messages,
            "settings": self.settings,
            "sample": self.sample,
        });
        if !self.tools.is_empty() {
            m["tools"] = json!(self.tools);
        }
        if let Some(choice) = self.tool_choice {
            m["tool_choice"] = json!(choice);
        }
        if let Some(scope) = self.scope {
            m["scope"] = json!(scope);
        }
        m
    }

    /// SHA-256 of the canonical JSON, hex.
    pub fn digest(&self) -> String {
        hex::encode(Sha256::digest(self.material().to_string().as_bytes()))
    }
}

/// One cache file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    key: Value,
    completion: Completion,
}

/// A response cache rooted at a directory.
#[derive(Debug, Clone)]
pub struct ResponseCache {
    dir: PathBuf,
}

impl ResponseCache {
    /// A cache in `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The cache under a data dir: `<data_dir>/llm-cache`.
    pub fn in_data_dir(data_dir: &Path) -> Self {
        Self::new(data_dir.join("llm-cache"))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, digest: &str) -> PathBuf {
        self.dir.join(&digest[..2]).join(format!("{digest}.json"))
    }

    /// The cached answer for `key`. A missing, unreadable or corrupt file is a miss (and a warning),
    /// never an error: the call is simply made again.
    pub fn get(&self, key: &CacheKey<'_>) -> Option<Completion> {
        let path = self.path(&key.digest());
        let text = std::fs::read_to_string(&path).ok()?;
        match serde_json::from_str::<Entry>(&text) {
            Ok(e) if e.key == key.material() => Some(e.completion),
            Ok(_) => {
                tracing::warn!(target: "llm::cache", path = %path.display(), "cache entry key mismatch; ignoring it");
                None
            }
            Err(err) => {
                tracing::warn!(target: "llm::cache", path = %path.display(), %err, "corrupt cache entry; ignoring it");
                None
            }
        }
    }

    /// Stores an answer (atomically: a temp file renamed into place). A truncated answer (cut at
    /// the token limit) is never stored: a later run asks again instead of replaying the cut.
    pub fn put(&self, key: &CacheKey<'_>, completion: &Completion) -> Result<(), LlmError> {
        if completion.stop.is_truncated() {
            return Ok(());
        }
        let path = self.path(&key.digest());
        let parent = path.parent().unwrap_or(&self.dir);
        let io = |e: std::io::Error| LlmError::Cache {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        std::fs::create_dir_all(parent).map_err(io)?;
        let entry = Entry {
            key: key.material(),
            completion: completion.clone(),
        };
        let bytes = serde_json::to_vec_pretty(&entry).map_err(|e| io(e.into()))?;
        let mut tmp = tempfile::NamedTempFile::new_in(parent).map_err(io)?;
        tmp.write_all(&bytes).map_err(io)?;
        tmp.persist(&path).map_err(|e| io(e.error))?;
        Ok(())
    }

    /// Number of cached answers.
    pub fn len(&self) -> usize {
        let Ok(dirs) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        dirs.flatten()
            .filter_map(|d| std::fs::read_dir(d.path()).ok())
            .flat_map(|f| f.flatten())
            .filter(|f| f.path().extension().is_some_and(|x| x == "json"))
            .count()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Deletes every cached answer; returns how many there were.
    pub fn clear(&self) -> Result<usize, LlmError> {
        let n = self.len();
        match std::fs::remove_dir_all(&self.dir) {
            Ok(()) => Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(LlmError::Cache {
                path: self.dir.display().to_string(),
                message: e.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Usage;
    use crucible_core::Role;

    #[test]
    fn every_key_part_changes_the_digest_and_equal_keys_hit() {
        let msgs = vec![Message::new(Role::User, "hi")];
        let other_msgs = vec![Message::new(Role::User, "hi!")];
        let s = ModelSettings::default();
        let hot = ModelSettings {
            temperature: Some(1.0),
            ..ModelSettings::default()
        };
        let base = CacheKey {
            provider: Provider::OpenAi,
            base_url: "http://x/v1",
            model: "m",
            messages: &msgs,
            settings: &s,
            sample: 0,
            tools: &[],
            tool_choice: None,
            scope: None,
        };
        let tools = [crucible_core::ToolSpec {
            name: "t".into(),
            description: "d".into(),
            parameters: serde_json::json!({"type": "object"}),
        }];
        let variants = [
            CacheKey {
                tools: &tools,
                ..base.clone()
            },
            CacheKey {
                provider: Provider::Anthropic,
                ..base.clone()
            },
            CacheKey {
                base_url: "http://y/v1",
                ..base.clone()
            },
            CacheKey {
                model: "n",
                ..base.clone()
            },
            CacheKey {
                messages: &other_msgs,
                ..base.clone()
            },
            CacheKey {
                settings: &hot,
                ..base.clone()
            },
            CacheKey {
                sample: 1,
                ..base.clone()
            },
            CacheKey {
                tool_choice: Some(&crucible_core::ToolChoice::Required),
                ..base.clone()
            },
            CacheKey {
                scope: Some("work-account"),
                ..base.clone()
            },
        ];
        for v in &variants {
            assert_ne!(v.digest(), base.digest(), "{v:?}");
        }
        assert_eq!(
            CacheKey {
                base_url: "http://x/v1/",
                ..base.clone()
            }
            .digest(),
            base.digest(),
            "a trailing slash is the same server"
        );

        let dir = tempfile::tempdir().unwrap();
        let cache = ResponseCache::new(dir.path().join("c"));
        assert!(cache.get(&base).is_none());
        let c = Completion {
            text: "yo".into(),
            usage: Usage {
                input_tokens: 1,
                output_tokens: 2,
                ..Usage::default()
            },
            tool_calls: Vec::new(),
            reasoning: None,
            stop: crucible_core::StopReason::Stop,
            request_id: None,
        };
        let cut = Completion {
            stop: crucible_core::StopReason::Length,
            ..c.clone()
        };
        cache.put(&base, &cut).unwrap();
        assert!(
            cache.get(&base).is_none(),
            "a truncated answer is never cached"
        );
        cache.put(&base, &c).unwrap();
        assert_eq!(cache.get(&base), Some(c));
        assert!(cache.get(&variants[5]).is_none());
        assert_eq!(cache.len(), 1);
        // A corrupt file is a miss, not a panic.
        std::fs::write(cache.path(&base.digest()), "{not json").unwrap();
        assert!(cache.get(&base).is_none());
        assert_eq!(cache.clear().unwrap(), 1);
        assert!(cache.is_empty());
        assert_eq!(cache.clear().unwrap(), 0);
    }
}
