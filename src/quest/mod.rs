//! EVM-QuestBench.
