-- The prompt wording a sample was asked in (docs/fidelity.md): `paper` (the published prompts'
-- information) or `assisted` (Crucible's earlier prompts with extra hints). Every sample stored
-- before this migration was asked in what is now the assisted wording.
ALTER TABLE samples ADD COLUMN prompt_set TEXT NOT NULL DEFAULT 'assisted';
