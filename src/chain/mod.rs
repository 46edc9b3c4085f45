//! The chain: Anvil lifecycle, universe, gate.
