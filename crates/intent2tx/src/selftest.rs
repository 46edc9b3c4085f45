//! The self-test of an Intent2Tx dataset (a content pack): every instance's reference answer must
//! score perfectly and every fault-injecting agent whose fault applies must be caught (a metric
//! its fault lowers below 1). With an executor, the ground truth must also execute on the
//! offline universe and the reference's state changes must equal it; an instance that cannot
//! execute offline is listed with the reason, not failed — its static metrics still run.

use serde::Serialize;

use super::agents::BuiltinAgent;
use super::book::AddressBook;
use super::execute::{prediction_calls, Executor};
use super::metrics::{score_text, Scores};
use super::parse::parse_prediction;
use super::schema::Instance;
use super::IntentError;

/// One instance's self-test.
#[derive(Debug, Clone, Serialize)]
pub struct InstanceCheck {
    /// Instance id.
    pub id: String,
    /// The reference answer scored perfectly (and, executed, matched the ground truth's state).
    pub ok: bool,
    /// What failed, for people (empty when `ok`).
    pub problems: Vec<String>,
    /// Fault agents whose fault applies here, and whether each was caught.
    pub faults: Vec<(String, bool)>,
    /// Why the instance cannot execute on the offline universe, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_executable: Option<String>,
}

/// A dataset's self-test.
#[derive(Debug, Clone, Serialize)]
pub struct SelftestReport {
    /// Per instance, in dataset order.
    pub instances: Vec<InstanceCheck>,
    /// Instances that passed.
    pub passed: usize,
    /// Instances that execute offline (when an executor was given).
    pub executable: usize,
    /// Whether execution was checked.
    pub executed: bool,
}

fn perfect(s: &Scores) -> bool {
    [s.fmt, s.logic, s.param, s.pass, s.final_score]
        .iter()
        .all(|v| (*v - 1.0).abs() < 1e-9)
}

fn metric(s: &Scores, name: &str) -> f64 {
    match name {
        "fmt" => s.fmt,
        "logic" => s.logic,
        "param" => s.param,
        "pass" => s.pass,
        _ => s.final_score,
    }
}

/// Runs the self-test over `instances`; `exec` also executes on the offline universe.
pub async fn run(
    instances: &[Instance],
    book: &AddressBook,
    mut exec: Option<&mut Executor>,
) -> Result<SelftestReport, IntentError> {
    let mut out = Vec::with_capacity(instances.len());
    let mut executable = 0;
    for inst in instances {
        let mut problems = Vec::new();
        let reference = BuiltinAgent::Reference.answer(inst, book);
        let s = score_text(inst, &reference);
        if !perfect(&s) {
            problems.push(format!(
                "the reference answer scores fmt {:.2}, logic {:.2}, param {:.2}, pass {:.2}, final {:.2} instead of 1",
                s.fmt, s.logic, s.param, s.pass, s.final_score
            ));
        }
        let mut faults = Vec::new();
        for agent in BuiltinAgent::ALL.into_iter().skip(1) {
            if !agent.applies(inst, book) {
                continue;
            }
            let f = score_text(inst, &agent.answer(inst, book));
            let caught = agent.lowers().iter().any(|m| metric(&f, m) < 1.0);
            if !caught {
                problems.push(format!(
                    "the {} agent's answer is not caught (it scores as well as the reference)",
                    agent.name()
                ));
            }
            faults.push((agent.name().to_string(), caught));
        }
        let mut not_executable = None;
        if let Some(ex) = exec.as_deref_mut() {
            if let Some(why) = offline_reason(inst, book) {
                not_executable = Some(why);
            } else if let Some(why) = ex.truth_reason(inst).await? {
                not_executable = Some(format!("the ground truth does not execute offline: {why}"));
            } else {
                executable += 1;
                let parsed = parse_prediction(&reference, inst.ground_truth.is_multi());
                let r = ex.evaluate(inst, prediction_calls(&parsed)).await?;
                if !(r.exec && r.state_eq) {
                    problems.push(format!(
                        "executed, the reference answer does not match the ground truth's state changes ({})",
                        r.reason.unwrap_or_else(|| format!("{} balances differ", r.mismatches.len()))
                    ));
                }
            }
        }
        out.push(InstanceCheck {
            id: inst.id.clone(),
            ok: problems.is_empty(),
            problems,
            faults,
            not_executable,
        });
    }
    Ok(SelftestReport {
        passed: out.iter().filter(|c| c.ok).count(),
        executable,
        executed: exec.is_some(),
        instances: out,
    })
}

/// Why an instance cannot execute on the offline universe, decided from its calls alone: a
/// called contract the offline universe does not hold (`None`: every called contract is there).
pub fn offline_reason(instance: &Instance, book: &AddressBook) -> Option<String> {
    for (i, c) in instance.ground_truth.steps().iter().enumerate() {
        match super::value::parse_address(&serde_json::Value::String(c.contract_address.clone())) {
            Some(a) if book.by_address(a).is_some() => {}
            Some(a) => {
                return Some(format!(
                    "step {}: contract {a} ({}) is not in the offline universe; run in fork mode to execute it",
                    i + 1,
                    c.contract
                ))
            }
            None => {
                return Some(format!(
                    "step {}: contract address {:?} is not an address",
                    i + 1,
                    c.contract_address
                ))
            }
        }
    }
    None
}
