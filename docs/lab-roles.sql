-- Per-person roles for a Crucible lab store (docs/lab-scale.md, "Trust model").
-- Run once by the store's admin (the role that owns the tables, e.g. the one that ran
-- `crucible store migrate`), after the schema exists. Then create one login role per member:
--   CREATE ROLE ada LOGIN PASSWORD '…' IN ROLE lab_member;
-- Every member reads everything; each changes or deletes only the runs, overrides and replays
-- they made (`created_by` is the role they logged in as). Workers store samples into any run
-- they are working on; a shared worker role (`lab_worker`, see below) may also end other
-- members' runs. Crucible's own `--force` checks are a courtesy; these policies are the
-- boundary. Tested by crates/store (postgres tests: lab_roles_*).
DO $$ BEGIN
  CREATE ROLE lab_member NOLOGIN;
EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN
  CREATE ROLE lab_worker NOLOGIN IN ROLE lab_member;
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

GRANT USAGE ON SCHEMA public TO lab_member;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO lab_member;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO lab_member;
-- The schema version is the admin's to change (`crucible store migrate`).
REVOKE INSERT, UPDATE, DELETE ON _sqlx_migrations FROM lab_member;

-- Runs: read by all; made as oneself; changed and deleted by their owner only.
ALTER TABLE runs ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS runs_read ON runs;
DROP POLICY IF EXISTS runs_insert ON runs;
DROP POLICY IF EXISTS runs_update ON runs;
DROP POLICY IF EXISTS runs_delete ON runs;
DROP POLICY IF EXISTS runs_worker_update ON runs;
CREATE POLICY runs_read ON runs FOR SELECT USING (true);
CREATE POLICY runs_insert ON runs FOR INSERT WITH CHECK (created_by = session_user);
CREATE POLICY runs_update ON runs FOR UPDATE
  USING (created_by = session_user) WITH CHECK (created_by = session_user);
CREATE POLICY runs_delete ON runs FOR DELETE USING (created_by = session_user);
-- A worker role the lab trusts may end (set the status of) anyone's run it works on.
CREATE POLICY runs_worker_update ON runs FOR UPDATE TO lab_worker USING (true) WITH CHECK (true);

-- Samples of a run: anyone may add (workers store them), only the run's owner may change or
-- delete them (deleting a run takes its samples by cascade, which the policies do not block).
ALTER TABLE samples ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS samples_read ON samples;
DROP POLICY IF EXISTS samples_insert ON samples;
DROP POLICY IF EXISTS samples_change ON samples;
DROP POLICY IF EXISTS samples_delete ON samples;
CREATE POLICY samples_read ON samples FOR SELECT USING (true);
CREATE POLICY samples_insert ON samples FOR INSERT WITH CHECK (true);
CREATE POLICY samples_change ON samples FOR UPDATE USING (
  EXISTS (SELECT 1 FROM runs r WHERE r.id = run_id AND r.created_by = session_user));
CREATE POLICY samples_delete ON samples FOR DELETE USING (
  EXISTS (SELECT 1 FROM runs r WHERE r.id = run_id AND r.created_by = session_user));

-- Overrides and replays: read by all; made as oneself; changed or deleted by their maker, or
-- by the owner of the run they are about.
ALTER TABLE sample_overrides ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS overrides_read ON sample_overrides;
DROP POLICY IF EXISTS overrides_insert ON sample_overrides;
DROP POLICY IF EXISTS overrides_change ON sample_overrides;
DROP POLICY IF EXISTS overrides_delete ON sample_overrides;
CREATE POLICY overrides_read ON sample_overrides FOR SELECT USING (true);
CREATE POLICY overrides_insert ON sample_overrides FOR INSERT
  WITH CHECK (created_by = session_user);
CREATE POLICY overrides_change ON sample_overrides FOR UPDATE USING (
  created_by = session_user
  OR EXISTS (SELECT 1 FROM runs r WHERE r.id = run_id AND r.created_by = session_user));
CREATE POLICY overrides_delete ON sample_overrides FOR DELETE USING (
  created_by = session_user
  OR EXISTS (SELECT 1 FROM runs r WHERE r.id = run_id AND r.created_by = session_user));
ALTER TABLE sample_replays ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS replays_read ON sample_replays;
DROP POLICY IF EXISTS replays_insert ON sample_replays;
DROP POLICY IF EXISTS replays_change ON sample_replays;
DROP POLICY IF EXISTS replays_delete ON sample_replays;
CREATE POLICY replays_read ON sample_replays FOR SELECT USING (true);
CREATE POLICY replays_insert ON sample_replays FOR INSERT
  WITH CHECK (created_by = session_user);
CREATE POLICY replays_change ON sample_replays FOR UPDATE USING (
  created_by = session_user
  OR EXISTS (SELECT 1 FROM runs r WHERE r.id = run_id AND r.created_by = session_user));
CREATE POLICY replays_delete ON sample_replays FOR DELETE USING (
  created_by = session_user
  OR EXISTS (SELECT 1 FROM runs r WHERE r.id = run_id AND r.created_by = session_user));
