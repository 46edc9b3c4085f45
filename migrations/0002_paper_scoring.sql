-- EVM-QuestBench is scored two ways (docs/fidelity.md): `score`/`passed` keep Crucible's scoring,
-- these hold the paper's. NULL on a sample stored before this migration (`crucible rescore`
-- fills a copy of its run); the other benchmarks have one scoring and store it in both.
ALTER TABLE samples ADD COLUMN score_paper REAL;
ALTER TABLE samples ADD COLUMN passed_paper INTEGER;
