//! Figures printed by `crucible bench`.
