-- Crucible's store (see docs/store.md). The tables and columns below are a contract shared with
-- the report and desktop code: add, never rename or drop.
CREATE TABLE runs (
  id          TEXT PRIMARY KEY,
  created_at  TEXT NOT NULL,
  finished_at TEXT,
  status      TEXT NOT NULL,
  seed        INTEGER NOT NULL,
  spec        TEXT NOT NULL,
  versions    TEXT NOT NULL,
  planned     INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE run_models (
  run_id  TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  model   TEXT NOT NULL,
  spec    TEXT NOT NULL,
  PRIMARY KEY (run_id, model)
);
CREATE TABLE samples (
  id           INTEGER PRIMARY KEY,
  run_id       TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  benchmark    TEXT NOT NULL,
  model        TEXT NOT NULL,
  instance     TEXT NOT NULL,
  task         TEXT NOT NULL,
  prompt_type  TEXT NOT NULL,
  round        INTEGER NOT NULL,
  seed         INTEGER NOT NULL,
  kind         TEXT NOT NULL,
  category     TEXT NOT NULL,
  subcategory  TEXT NOT NULL,
  difficulty   TEXT NOT NULL,
  outcome      TEXT NOT NULL,
  score        REAL NOT NULL,
  passed       INTEGER NOT NULL,
  metrics      TEXT NOT NULL,
  details      TEXT NOT NULL,
  prompt       TEXT NOT NULL,
  raw_answer   TEXT NOT NULL,
  k_act        INTEGER,
  k_opt        INTEGER,
  tokens_in    INTEGER NOT NULL,
  tokens_out   INTEGER NOT NULL,
  cost_usd     REAL NOT NULL,
  latency_ms   INTEGER NOT NULL,
  error        TEXT,
  finished_at  TEXT NOT NULL,
  UNIQUE (run_id, benchmark, model, instance, round)
);
CREATE TABLE events (
  sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
  seq       INTEGER NOT NULL,
  event     TEXT NOT NULL,
  PRIMARY KEY (sample_id, seq)
);
CREATE TABLE artefacts (
  sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
  seq       INTEGER NOT NULL,
  kind      TEXT NOT NULL,
  data      TEXT NOT NULL,
  PRIMARY KEY (sample_id, seq)
);
CREATE INDEX samples_run ON samples(run_id, benchmark, model);
-- Added beyond the contract: the run-level progress log (one run::Progress per row).
CREATE TABLE run_log (
  run_id  TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL,
  event   TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
