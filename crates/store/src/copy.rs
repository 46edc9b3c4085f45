//! Copying one run between stores, whatever their backends: `crucible store push` (a local run
//! published to a lab store) and `store pull` (a lab run brought back for offline review). The
//! copy holds everything the run has — its row, models, name and note, every sample with its
//! transcript and artefacts (in the order they were stored, so reports read them in the same
//! order), the progress log, reviewers' overrides and replays — and nothing is written to the
//! target unless the source can be read whole first.

use serde::Serialize;

use crate::{
    NewOverride, NewReplay, NewRun, NewSample, ReplayKind, RunNotes, RunStore, StoreError,
};

/// What a copy moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Copied {
    /// Samples.
    pub samples: u64,
    /// Reviewers' overrides.
    pub overrides: u64,
    /// Replays.
    pub replays: u64,
}

/// Copies run `run_id` from `from` to `to`. Refused when the run is still being run (a live
/// lease) or `to` already holds a run with that id ([`StoreError::RunExists`]).
///
/// A copy that fails removes only what it created itself: never a run that was already in
/// `to` or that another copy created a moment earlier (then `create_run` fails and this copy
/// wrote nothing). While it copies, the target run's status is `failed`, so a copy killed half
/// way is never listed as a run that resume could finish.
pub async fn copy_run<A: RunStore, B: RunStore>(
    from: &A,
    to: &B,
    run_id: &str,
    to_name: &str,
) -> Result<Copied, StoreError> {
    let mut created = false;
    let copied = copy_whole(from, to, run_id, to_name, &mut created).await;
    if copied.is_err() && created {
        // Nothing half-copied is left behind (the target's writes are not one transaction).
        if let Err(e) = to.delete_run(run_id).await {
            tracing::warn!(target: "store", error = %e, "removing a half-copied run failed");
        }
    }
    copied
}

async fn copy_whole<A: RunStore, B: RunStore>(
    from: &A,
    to: &B,
    run_id: &str,
    to_name: &str,
    created: &mut bool,
) -> Result<Copied, StoreError> {
    let run = from.run(run_id).await?;
    if let Some(holder) = from.lease_holder(run_id).await? {
        return Err(StoreError::RunLive {
            run_id: run_id.to_string(),
            by: holder.name,
        });
    }
    match to.run(run_id).await {
        Ok(_) => {
            return Err(StoreError::RunExists {
                run_id: run_id.to_string(),
                store: to_name.to_string(),
            })
        }
        Err(StoreError::UnknownRun(_)) => {}
        Err(e) => return Err(e),
    }
    // Read everything first: a source that fails half-way leaves the target untouched.
    let models = from.models(run_id).await?;
    let mut samples = from.samples(run_id).await?;
    samples.sort_by_key(|(id, _)| *id);
    let mut rows = Vec::with_capacity(samples.len());
    for (id, row) in samples {
        rows.push((
            id,
            NewSample {
                row,
                events: from.events(id).await?,
                artefacts: from.artefacts(id).await?,
            },
        ));
    }
    let log = from.run_log(run_id).await?;
    let owner = from.owner_of(run_id).await?;
    let overrides = from.overrides(Some(run_id)).await?;
    let replays = from.replays(Some(run_id)).await?;

    let notes = RunNotes::try_new(run.name.as_deref(), run.note.as_deref())?;
    to.create_run(&NewRun {
        id: run.id.clone(),
        created_at: run.created_at.clone(),
        seed: run.seed as u64,
        spec: run.spec.clone(),
        versions: run.versions.clone(),
        planned: run.planned.max(0) as u64,
        models,
        notes,
    })
    .await?;
    *created = true;
    to.keep_owner(run_id, &owner).await?;
    // Not resumable while incomplete: the true status is set last.
    to.set_status(run_id, crucible_core::RunStatus::Failed, None)
        .await?;
    let mut new_id = std::collections::HashMap::new();
    for (old, s) in &rows {
        new_id.insert(*old, to.insert_sample(s).await?);
    }
    for line in &log {
        to.log(run_id, line).await?;
    }
    let mut copied = Copied {
        samples: rows.len() as u64,
        ..Copied::default()
    };
    for o in &overrides {
        let Some(&sample) = new_id.get(&o.sample_id) else {
            continue;
        };
        let new = if o.kind == "confirm" {
            NewOverride::try_confirm(sample, &o.note, &o.reviewer)?
        } else {
            NewOverride::try_new(sample, o.passed, Some(o.score), &o.note, &o.reviewer)?
        };
        to.add_override(&new, &o.created_at).await?;
        copied.overrides += 1;
    }
    for r in &replays {
        let Some(&sample) = new_id.get(&r.sample_id) else {
            continue;
        };
        let mode = if r.mode == "rescore" {
            ReplayKind::Rescore
        } else {
            ReplayKind::Reexecute
        };
        to.add_replay(
            &NewReplay {
                sample_id: sample,
                mode,
                agrees: r.agrees,
                fresh_outcome: r.fresh_outcome,
                fresh_score: r.fresh_score,
                differences: r.differences.clone(),
            },
            &r.created_at,
        )
        .await?;
        copied.replays += 1;
    }
    // A status this version does not know is copied as `failed` (resumable, never taken for a
    // run going on), as before the status was typed.
    let status = match run.status {
        crucible_core::RunStatus::Unknown => crucible_core::RunStatus::Failed,
        known => known,
    };
    to.set_status(run_id, status, run.finished_at.as_deref())
        .await?;
    Ok(copied)
}
