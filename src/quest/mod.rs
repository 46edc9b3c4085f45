//! EVM-QuestBench. Today it holds the TypeScript [`sandbox`] that runs model-written modules; the
//! task files, checks and round protocol build on it.

pub mod sandbox;
