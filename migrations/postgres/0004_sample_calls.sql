-- A sample's model calls as columns a query can filter and sum (SQLite's 0008_sample_calls.sql):
-- calls made, answers cut at the token limit, and calls of a model with no price (cost unknown,
-- never counted as 0). Computed from the sample's `details` JSON when the row is written, so
-- inserts name no new column; rows written before read theirs too (0 where the key is absent or
-- the text is not JSON). Add, never rename or drop; written to run twice harmlessly.
CREATE OR REPLACE FUNCTION crucible_details_count(details TEXT, key TEXT) RETURNS BIGINT
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN COALESCE((details::jsonb ->> key)::numeric::bigint, 0);
EXCEPTION WHEN others THEN
  RETURN 0;
END
$$;
ALTER TABLE samples ADD COLUMN IF NOT EXISTS model_calls BIGINT
  GENERATED ALWAYS AS (crucible_details_count(details, 'model_calls')) STORED;
ALTER TABLE samples ADD COLUMN IF NOT EXISTS truncated_calls BIGINT
  GENERATED ALWAYS AS (crucible_details_count(details, 'truncated_calls')) STORED;
ALTER TABLE samples ADD COLUMN IF NOT EXISTS unpriced_calls BIGINT
  GENERATED ALWAYS AS (crucible_details_count(details, 'unpriced_calls')) STORED;
-- The truncated samples of a run, found without reading every row.
CREATE INDEX IF NOT EXISTS samples_truncated ON samples (run_id, truncated_calls)
  WHERE truncated_calls > 0;
