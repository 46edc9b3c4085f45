-- One resumer per run (docs/runs.md, "One process per run"): the process running or resuming a
-- run holds its lease and renews it while it works; a lease whose holder stopped renewing (a
-- crash, a kill) expires and the run can be resumed again.
CREATE TABLE run_leases (
    run_id     TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    -- Who holds it, for people: "crucible run (pid 1234 on host lab-3)".
    holder     TEXT NOT NULL,
    -- The holder's process id and host: a resumer on the same host whose holder process is gone
    -- takes the run over at once instead of waiting for the lease to expire.
    pid        INTEGER NOT NULL,
    host       TEXT NOT NULL,
    -- A token unique to the holding process's run session (renewals and release check it).
    token      TEXT NOT NULL,
    -- Unix seconds of the last renewal and of expiry.
    renewed_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
