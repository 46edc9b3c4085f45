//! QuestBench composites against the real universe, sandbox and gate: every composite's scripted
//! reference scores 100 and its known-wrong scripts < 60 on two seeds; the reference runner's
//! composite loopholes (fact sheet §5.2 items 2–5) score below the pass threshold; the round
//! budget cuts an episode off; prompts are deterministic.

use std::path::PathBuf;

use crucible_core::{Benchmark, Config, ScriptedAgent};
use crucible_questbench::atomic::{Harness, PASS_THRESHOLD};
use crucible_questbench::composite::{self, CompositeOutcome, CompositeVerdict};
use crucible_questbench::seam::QuestBench;
use crucible_questbench::task::{self, Task};

fn config() -> Config {
    Config::test()
}

fn catalogue() -> Vec<Task> {
    task::load_dir(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tasks/questbench"))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn composite(id: &str) -> Task {
    catalogue()
        .into_iter()
        .find(|t| t.id() == id)
        .unwrap_or_else(|| panic!("no task {id}"))
}

async fn episode(h: &Harness, t: &Task, seed: u64, turns: Vec<String>) -> CompositeVerdict {
    let inst = h.instance(t, seed).expect("instance");
    let turns = turns
        .into_iter()
        .map(|s| inst.render_solution(&s))
        .collect::<Vec<_>>();
    let mut agent = ScriptedAgent::new("script", turns);
    composite::run_episode(h, t, &inst, &mut agent, &mut |_| {})
        .await
        .expect("episode")
        .0
}

const PLAN: &str = "```json\n{\"plan\": [{\"step\": 1, \"action\": \"do it\"}]}\n```";

// Every composite's reference and known-wrong episodes on two seeds are self-tested by
// `quest::selftest_passes_on_the_slice_with_two_seeds`, which runs the whole catalogue (45
// composites among its 107 tasks) through the same `atomic::selftest`.

/// §5.2.2: "any mined transaction" earned base 100. An unrelated successful transaction (a tiny
/// self-transfer of BNB), a reverted one and a `{query_result}` return earn nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loophole_any_mined_tx_scores_nothing() {
    let h = Harness::start(&config()).await.expect("harness");
    let t = composite("composite_approve_swap_tokens");
    let unrelated = "```ts\nexport async function executeSkill(p: string, agent: string) { return { to: agent, value: \"1\" }; }\n```";
    let reverting = "```ts\nexport async function executeSkill() { return { to: \"{{router}}\", data: \"0xdeadbeef\" }; }\n```";
    // The reference runner sent a `{query_result: …}` return as an empty contract creation.
    let query_result = "```ts\nexport async function executeSkill() { return { query_result: { success: true } }; }\n```";
    let v = episode(
        &h,
        &t,
        0,
        vec![
            PLAN.into(),
            unrelated.into(),
            reverting.into(),
            query_result.into(),
        ],
    )
    .await;
    assert!(v.score < f64::from(PASS_THRESHOLD), "{v:?}");
    assert_eq!(v.base, 0);
    assert_eq!(v.k_act, 3);
    assert_eq!(v.rounds[2].kind, "tx");
    assert!(
        v.rounds[2].tx.is_none(),
        "nothing is sent for a non-tx return"
    );
    assert!(
        v.rounds[2].reason.contains("no `to`"),
        "{}",
        v.rounds[2].reason
    );
    assert_eq!(
        v.rounds[1].status,
        Some(false),
        "the bad call is reported as reverted"
    );
    assert!(
        v.rounds[1].feedback.contains("REVERTED"),
        "{}",
        v.rounds[1].feedback
    );
}

/// §5.2.3: three false error reports earned base 100 on composites with an `amount`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loophole_false_error_report_scores_nothing() {
    let h = Harness::start(&config()).await.expect("harness");
    let t = composite("composite_approve_stake_tokens");
    let err = "```json\n{\"action\": \"error\", \"error_type\": \"TOKEN_INSUFFICIENT_BALANCE\", \"message\": \"no\"}\n```";
    let v = episode(
        &h,
        &t,
        1,
        vec![PLAN.into(), err.into(), err.into(), err.into()],
    )
    .await;
    assert_eq!(v.outcome, CompositeOutcome::ErrorReported);
    assert_eq!(v.k_act, 1, "an error report ends the episode");
    assert!(v.score < f64::from(PASS_THRESHOLD), "{v:?}");
}

/// §5.2.4: pure-query composites counted any successful round as a query. Queries without the
/// submitted answer, or with wrong values, score nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loophole_query_rounds_without_the_right_answer_score_nothing() {
    let h = Harness::start(&config()).await.expect("harness");
    let t = composite("composite_batch_query_2_balances");
    let q = "```json\n{\"action\": \"query\", \"query\": \"native_balance\"}\n```";
    let v = episode(
        &h,
        &t,
        0,
        vec![
            PLAN.into(),
            q.into(),
            q.into(),
            "```json\n{\"action\": \"submit\"}\n```".into(),
        ],
    )
    .await;
    assert!(v.score < f64::from(PASS_THRESHOLD), "{v:?}");
    let wrong = "```json\n{\"action\": \"submit\", \"answer\": {\"usdt_raw\": \"1\", \"busd_raw\": \"2\"}}\n```";
    let v = episode(&h, &t, 0, vec![PLAN.into(), q.into(), wrong.into()]).await;
    assert!(v.score < f64::from(PASS_THRESHOLD), "{v:?}");
}

/// §5.2.5: approvals are not pre-granted; skipping the approve step makes the swap revert.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loophole_missing_approval_scores_nothing() {
    let h = Harness::start(&config()).await.expect("harness");
    let t = composite("composite_approve_swap_tokens");
    let inst = h.instance(&t, 2).expect("instance");
    let turns = composite::render_script(
        &t,
        "composite_approve_swap_tokens/missing_approval.rounds.json",
        &inst,
    )
    .expect("script");
    let mut agent = ScriptedAgent::new("script", turns);
    let (v, _) = composite::run_episode(&h, &t, &inst, &mut agent, &mut |_| {})
        .await
        .expect("episode");
    assert!(v.score < f64::from(PASS_THRESHOLD), "{v:?}");
    assert!(
        v.rounds.iter().any(|r| r.status == Some(false)),
        "{:?}",
        v.rounds
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_round_budget_cuts_the_episode_off() {
    let h = Harness::start(&config()).await.expect("harness");
    let t = composite("composite_batch_transfer_2_bnb");
    let max = {
        let c = t.spec.composite.as_ref().expect("composite");
        c.optimal_steps * c.max_rounds_multiplier
    };
    let junk = "I am thinking about it.".to_string();
    let v = episode(
        &h,
        &t,
        0,
        std::iter::once(PLAN.to_string())
            .chain(std::iter::repeat_n(junk, 20))
            .collect(),
    )
    .await;
    assert_eq!(v.k_act, max);
    assert_eq!(v.outcome, CompositeOutcome::MaxRounds);
    assert_eq!(v.score, 0.0);
    assert!(v.rounds.iter().all(|r| r.kind == "invalid"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn composites_run_through_the_seam_with_deterministic_prompts() {
    let h = Harness::start(&config()).await.expect("harness");
    let bench = QuestBench::new(catalogue(), h);
    let id = "composite_wrap_swap_wbnb";
    assert!(bench.instances().iter().any(|i| i == id));
    let mut transcripts = Vec::new();
    for _ in 0..2 {
        let mut agent = bench.builtin_agent("reference", id, 3).expect("agent");
        let rec = bench
            .run(id, agent.as_mut(), 3, &mut |_| {})
            .await
            .expect("run");
        assert_eq!(rec.score, 1.0, "{}", rec.details);
        assert_eq!(rec.details["k_act"], 3);
        assert_eq!(rec.details["k_opt"], 3);
        transcripts.push(
            rec.transcript
                .iter()
                .filter(|m| m.role == crucible_core::Role::User)
                .map(|m| m.content.clone())
                .collect::<Vec<_>>(),
        );
    }
    // Same seed, same answers: every prompt and every round's feedback (balances after gas
    // included) is identical.
    assert_eq!(transcripts[0], transcripts[1]);
    // A faulty agent that always errs never passes; at rate 0 it is the reference.
    let mut always = bench.builtin_agent("faulty-1", id, 3).expect("agent");
    let rec = bench
        .run(id, always.as_mut(), 3, &mut |_| {})
        .await
        .expect("run");
    assert!(!rec.passed, "{}", rec.details);
    let mut never = bench.builtin_agent("faulty-0", id, 3).expect("agent");
    let rec = bench
        .run(id, never.as_mut(), 3, &mut |_| {})
        .await
        .expect("run");
    assert_eq!(rec.score, 1.0);
    assert!(bench.builtin_agent("faulty-2", id, 3).is_err());
}
