-- Who made what, as the lab store records it (postgres/0003_owners.sql): the local user that
-- made a run, an override or a replay, and the host a run was planned on. A run copied from a
-- lab store (`crucible store pull`) keeps its lab owner. Rows made before this migration have
-- an empty owner (unknown). Adds, never renames or drops.
ALTER TABLE runs ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN created_host TEXT NOT NULL DEFAULT '';
ALTER TABLE sample_overrides ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
ALTER TABLE sample_replays ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
