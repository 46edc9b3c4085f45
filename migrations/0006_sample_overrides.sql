-- A reviewer's verdict on a sample, kept beside the scorer's (docs/store.md, "Overrides"). Every
-- override is kept (the newest of a sample is the one reports use), with who made it, when, why,
-- what the scorer had said and which Crucible version scored it, so an override never hides the
-- original. Deleting a run deletes its overrides. `kind` is `override` (the reviewer's verdict
-- replaces the scorer's in reports) or `confirm` (the reviewer checked the scorer's verdict and
-- agrees: reports keep the scorer's; the audit queue counts it towards validator agreement).
CREATE TABLE sample_overrides (
  id               INTEGER PRIMARY KEY,
  sample_id        INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
  run_id           TEXT NOT NULL,
  passed           INTEGER NOT NULL CHECK (passed IN (0, 1)),
  score            REAL NOT NULL CHECK (score >= 0 AND score <= 1),
  note             TEXT NOT NULL,
  reviewer         TEXT NOT NULL,
  created_at       TEXT NOT NULL,
  original_passed  INTEGER NOT NULL,
  original_score   REAL NOT NULL,
  scorer_version   TEXT NOT NULL,
  kind             TEXT NOT NULL DEFAULT 'override' CHECK (kind IN ('override', 'confirm'))
);
CREATE INDEX sample_overrides_by_run ON sample_overrides (run_id, sample_id);
