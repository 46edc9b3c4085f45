-- What people call a run and what they wrote about it (docs/store.md): an optional name shown
-- instead of (or beside) the run id, and a free-text note. Both NULL for every run stored before
-- this migration and for a run nobody named; set at start or later (`RunStore::annotate_run`),
-- never by the run itself, so naming a run changes nothing else about it.
ALTER TABLE runs ADD COLUMN name TEXT;
ALTER TABLE runs ADD COLUMN note TEXT;
