//! The scheduler's model agent wrapper: each call counted in flight (for the live load) and
//! recorded in the sample's events as it returns; a used-up quota or a refused key stops the
//! model for the rest of the run ([`QuotaStops`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use crucible_core::{Agent, AgentError, AgentRequest, AgentTurn, BoxFuture, CallNote, Event};
use crucible_llm::ModelAgent;

/// Why a model was stopped during a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StopCause {
    /// Its provider quota ran out ([`super::Progress::QuotaReached`]).
    Quota,
    /// Its provider refused the key ([`super::Progress::KeyRefused`]).
    Key,
}

/// Models stopped during a run (a used-up quota, a refused key): (why, what was said, samples
/// left unrun).
#[derive(Default)]
pub(super) struct QuotaStops(std::sync::Mutex<BTreeMap<String, (StopCause, String, u64)>>);

impl QuotaStops {
    pub(super) fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, BTreeMap<String, (StopCause, String, u64)>> {
        match self.0.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        }
    }

    /// Records that `model` is stopped for `cause`; true the first time.
    pub(super) fn stop(&self, model: &str, cause: StopCause, message: &str) -> bool {
        let mut m = self.lock();
        if m.contains_key(model) {
            return false;
        }
        m.insert(model.to_string(), (cause, message.to_string(), 0));
        true
    }

    /// Whether `model` is stopped; if so, counts one more of its samples left unrun.
    pub(super) fn skip(&self, model: &str) -> bool {
        match self.lock().get_mut(model) {
            Some((_, _, left)) => {
                *left += 1;
                true
            }
            None => false,
        }
    }

    pub(super) fn any(&self) -> bool {
        !self.lock().is_empty()
    }

    /// One note per stopped model, saying what to do.
    pub(super) fn notes(&self, run_id: &str) -> Vec<String> {
        self.lock()
            .iter()
            .map(|(model, (cause, message, left))| match cause {
                StopCause::Quota => format!(
                    "{model}: stopped because its provider quota is used up; {left} of its \
                     samples were left unrun. Resume the run (`crucible run --resume {run_id}`, or \
                     Resume on the run's page) once the quota resets or is raised. {message}"
                ),
                StopCause::Key => format!(
                    "{model}: stopped because {message}; {left} of its samples were left unrun. \
                     Resume the run (`crucible run --resume {run_id}`, or Resume on the run's \
                     page) once the key is fixed."
                ),
            })
            .collect()
    }
}

/// A model agent whose calls in flight are counted (for [`super::Progress::Load`]) and whose calls go
/// into the sample's events as they return. It forwards the whole request and the whole turn:
/// tools, tool choice, reasoning and stop reason pass through untouched.
pub(super) struct Counted<'a> {
    pub(super) inner: &'a mut ModelAgent,
    pub(super) in_flight: &'a AtomicUsize,
    pub(super) events: &'a std::sync::Mutex<Vec<Event>>,
    /// A used-up quota stops the model (the run's [`QuotaStops`]); newly stopped models are
    /// announced by the caller.
    pub(super) quota: &'a QuotaStops,
    pub(super) model: &'a str,
    /// Whose key the model's calls use, for the refused-key message ("provider lab", "the
    /// openai key").
    pub(super) key_owner: &'a str,
    pub(super) newly_stopped: Option<(StopCause, String)>,
}

/// Counts one call in flight until dropped (also when the sample is cancelled mid-call).
struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Agent for Counted<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn respond<'a>(
        &'a mut self,
        request: AgentRequest<'a>,
    ) -> BoxFuture<'a, Result<AgentTurn, AgentError>> {
        Box::pin(async move {
            self.in_flight.fetch_add(1, Ordering::SeqCst);
            let _call = InFlight(self.in_flight);
            let before = self.inner.calls().len();
            let turn = self.inner.respond(request).await;
            let stopped = match &turn {
                Err(AgentError::QuotaExhausted { message }) => {
                    Some((StopCause::Quota, message.clone()))
                }
                Err(AgentError::KeyRefused { message }) => Some((
                    StopCause::Key,
                    format!(
                        "the key for {} was refused ({message}): edit it in Settings → \
                         Providers & models (or its key variable)",
                        self.key_owner
                    ),
                )),
                _ => None,
            };
            if let Some((cause, message)) = stopped {
                if self.quota.stop(self.model, cause, &message) {
                    self.newly_stopped = Some((cause, message));
                }
            }
            if let Some(c) = self.inner.calls().get(before) {
                let note = CallNote {
                    stop: c.stop.clone(),
                    truncated: c.truncated,
                    reasoning: c.reasoning.clone(),
                    usage: Some(crucible_core::TurnUsage {
                        input_tokens: c.usage.prompt_tokens(),
                        cached_input_tokens: c.usage.cache_read_tokens,
                        output_tokens: c.usage.output_tokens,
                        reasoning_tokens: turn
                            .as_ref()
                            .ok()
                            .and_then(|t| t.usage)
                            .map_or(0, |u| u.reasoning_tokens),
                    }),
                    request_id: c.request_id.clone(),
                    cached: c.cached,
                    cost_usd: c.cost_usd,
                };
                if let Ok(mut events) = self.events.lock() {
                    events.push(Event::ModelCall { call: note });
                }
            }
            turn
        })
    }
}
