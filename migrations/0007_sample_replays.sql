-- A re-execution or re-score of a stored sample (docs/store.md, "Replays"): the fresh verdict
-- beside the stored one, kept so the validator-audit queue can list samples whose replay
-- disagrees. The sample's own row is never changed. Deleting a run deletes its replays.
-- `differences` is the JSON list of `{field, stored, fresh}` the replay found.
CREATE TABLE sample_replays (
  id             INTEGER PRIMARY KEY,
  sample_id      INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
  run_id         TEXT NOT NULL,
  mode           TEXT NOT NULL CHECK (mode IN ('reexecute', 'rescore')),
  agrees         INTEGER NOT NULL CHECK (agrees IN (0, 1)),
  fresh_outcome  TEXT NOT NULL,
  fresh_score    REAL NOT NULL,
  differences    TEXT NOT NULL,
  created_at     TEXT NOT NULL
);
CREATE INDEX sample_replays_by_run ON sample_replays (run_id, sample_id);
