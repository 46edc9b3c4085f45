-- A sample's model calls as columns a query can filter and sum (docs/store.md, `samples`):
-- how many calls it made, how many answers were cut at the token limit, and how many calls had
-- no price (a model neither in the catalogue nor priced by the user), whose cost is unknown and
-- never counted as 0. They are read from the sample's `details` JSON, where every Crucible since
-- the stop-reason work writes them, so inserts name no new column and older samples read theirs
-- (0 where the key is absent). Virtual: computed on read, stored only in the index.
ALTER TABLE samples ADD COLUMN model_calls INTEGER GENERATED ALWAYS AS (
  CASE WHEN json_valid(details) THEN COALESCE(json_extract(details, '$.model_calls'), 0) ELSE 0 END
) VIRTUAL;
ALTER TABLE samples ADD COLUMN truncated_calls INTEGER GENERATED ALWAYS AS (
  CASE WHEN json_valid(details) THEN COALESCE(json_extract(details, '$.truncated_calls'), 0) ELSE 0 END
) VIRTUAL;
ALTER TABLE samples ADD COLUMN unpriced_calls INTEGER GENERATED ALWAYS AS (
  CASE WHEN json_valid(details) THEN COALESCE(json_extract(details, '$.unpriced_calls'), 0) ELSE 0 END
) VIRTUAL;
-- The truncated samples of a run, found without reading every row's details.
CREATE INDEX samples_truncated ON samples (run_id, truncated_calls) WHERE truncated_calls > 0;
