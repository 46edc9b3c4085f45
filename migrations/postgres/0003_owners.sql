-- Who made what (docs/lab-scale.md, "Trust model"): the PostgreSQL role that made a run, an
-- override or a replay (session_user: the role a member logged in as, which they cannot pick
-- per row), and the host a run was planned on, for people. Rows made before this migration
-- have an empty owner (unknown). Row-level security (docs/lab-roles.sql) then lets each member
-- change only their own runs. Add, never rename or drop; written to run twice harmlessly.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS created_by TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ALTER COLUMN created_by SET DEFAULT session_user;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS created_host TEXT NOT NULL DEFAULT '';
ALTER TABLE sample_overrides ADD COLUMN IF NOT EXISTS created_by TEXT NOT NULL DEFAULT '';
ALTER TABLE sample_overrides ALTER COLUMN created_by SET DEFAULT session_user;
ALTER TABLE sample_replays ADD COLUMN IF NOT EXISTS created_by TEXT NOT NULL DEFAULT '';
ALTER TABLE sample_replays ALTER COLUMN created_by SET DEFAULT session_user;
