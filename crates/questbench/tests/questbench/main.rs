//! EVM-QuestBench's integration tests, one binary: composites on the real universe, sandbox and
//! gate (`composite`), the prompt sets over the whole catalogue (`prompts`) and untrusted task
//! files (`untrusted`).

mod composite;
mod prompts;
mod untrusted;
