//! The prompt sets and the reference runner's prompt options, over the whole catalogue: the
//! paper set carries the paper's information and none of the assisted hints, the assisted set
//! is byte for byte what it was before prompt sets existed, naive mode adds the description,
//! the same seed gives the same prompt, and (on a real Anvil and Deno) a viem module runs and
//! scores, and the built-in reference agent scores the same under every wording.

use std::path::PathBuf;

use alloy::primitives::keccak256;
use crucible_chain::universe::{Manifest, Profile};
use crucible_core::{Benchmark, Config, Message, PromptSet, Role};
use crucible_questbench::atomic::{self, as_answer, Harness};
use crucible_questbench::composite;
use crucible_questbench::instance::Instance;
use crucible_questbench::prompt::{self, Library, NlDifficulty, Prompting};
use crucible_questbench::seam::QuestBench;
use crucible_questbench::task::{self, Kind, Task, TemplateLabel};

fn catalogue() -> Vec<Task> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tasks/questbench");
    task::load_dir(&dir).unwrap_or_else(|e| panic!("{e}"))
}

fn manifest() -> Manifest {
    Manifest::load(&Config::test(), Profile::Bsc).unwrap_or_else(|e| panic!("{e}"))
}

fn set(set: PromptSet) -> Prompting {
    Prompting {
        set,
        ..Default::default()
    }
}

fn text(ms: &[Message]) -> String {
    ms.iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// keccak256 over every assisted opening prompt and the first two round requests, seeds 0..3:
/// computed from the prompts as they were before prompt sets (commit 06f60ee). A change of
/// the assisted wording changes it.
const ASSISTED_DIGEST: &str = "0x496dfd9a05d486d9d78f8e09a8f1cfadbdc37fa98ae51355be3661c8215d2a43";

#[test]
fn assisted_prompts_are_byte_identical_to_the_earlier_prompts() {
    let m = manifest();
    let p = set(PromptSet::Assisted);
    let mut all = Vec::new();
    for t in catalogue() {
        for seed in 0..3 {
            let inst = Instance::new(&t, seed, &m).unwrap();
            let ms = prompt::messages(&t, &inst, &m, &p);
            assert_eq!(ms.len(), 1, "{}", t.id());
            assert_eq!(ms[0].role, Role::User);
            let earlier = if t.spec.kind == Kind::Composite {
                composite::prompt(&t, &inst, &m)
            } else {
                atomic::prompt(&t, &inst, &m)
            };
            assert_eq!(ms[0].content, earlier, "{}", t.id());
            all.extend_from_slice(ms[0].content.as_bytes());
            all.push(0);
        }
    }
    for n in 1..=2 {
        all.extend_from_slice(prompt::round_request(&p, n, 6).as_bytes());
        assert_eq!(
            prompt::round_request(&p, n, 6),
            composite::round_request(n, 6)
        );
    }
    assert_eq!(keccak256(&all).to_string(), ASSISTED_DIGEST);
}

#[test]
fn paper_prompts_carry_the_papers_information_and_none_of_the_assisted_hints() {
    let m = manifest();
    let p = set(PromptSet::Paper);
    for t in catalogue() {
        let inst = Instance::new(&t, 5, &m).unwrap();
        let ms = prompt::messages(&t, &inst, &m, &p);
        assert_eq!(ms[0].role, Role::System, "{}", t.id());
        assert_eq!(ms[1].role, Role::User, "{}", t.id());
        let system = &ms[0].content;
        let all = text(&ms);
        // B.1: the interface, exactly as the module must export it.
        for s in [
            "export async function executeSkill(",
            "providerUrl: string",
            "agentAddress: string",
            "deployedContracts: Record<string, string>",
            "ethers.js v6",
            "chain ID 56",
        ] {
            assert!(system.contains(s), "{}: {s:?} missing", t.id());
        }
        // The runner's environment: the canonical contracts and the deployedContracts keys.
        for name in [
            "WBNB",
            "USDT",
            "BUSD",
            "CAKE",
            "PancakeRouter",
            "PancakeFactory",
        ] {
            let a = m.contract(name).unwrap().to_checksum(None);
            assert!(system.contains(&a), "{}: {name} missing", t.id());
        }
        for key in m.address_book().keys() {
            assert!(
                system.contains(key.as_str()),
                "{}: key {key} missing",
                t.id()
            );
        }
        assert!(ms[1].content.contains(&inst.text), "{}", t.id());
        // Query tasks: the answer keys (the output format), in the paper set too.
        if let Some(schema) = &t.spec.answer {
            for k in schema.fields.keys() {
                assert!(
                    all.contains(&format!("`{k}`")),
                    "{}: answer key {k}",
                    t.id()
                );
            }
        }
        let round1 = prompt::round_request(&p, 1, 6);
        let fence = if t.spec.kind == Kind::Composite {
            &round1
        } else {
            system
        };
        assert!(fence.contains("```typescript"), "{}", t.id());
        match t.spec.kind {
            Kind::Composite => {
                for s in [
                    "{\"submit\": true}",
                    "\"query_type\": \"token_balance\"",
                    "\"error_detected\": true",
                    "fewer steps = higher score",
                    "\"plan\"",
                ] {
                    assert!(all.contains(s), "{}: {s:?} missing", t.id());
                }
            }
            Kind::Atomic if t.is_query() => {
                assert!(system.contains("Return exactly ONE object"), "{}", t.id())
            }
            Kind::Atomic => assert!(
                system.contains("Return exactly ONE transaction object per response"),
                "{}",
                t.id()
            ),
        }
        // None of the assisted hints: fee policy, gas handling, units and decimals conventions,
        // the round budget, the extra rules, the query forms the paper does not show.
        let without_task = all.replace(&inst.text, "");
        let without_answer = match &t.spec.answer {
            Some(s) => s
                .fields
                .values()
                .fold(without_task, |acc, d| acc.replace(d.as_str(), "")),
            None => without_task,
        };
        for hint in [
            "maxPriorityFeePerGas",
            "baseFeePerGas",
            "otherwise an estimate",
            "18 decimals",
            "base units",
            "in wei",
            "decimal string",
            "at most",
            "Use exactly the amounts",
            "do not ask questions",
            "native_balance",
            "amounts_out",
            "`agentAddress` is your account",
        ] {
            assert!(
                !without_answer.contains(hint),
                "{}: assisted hint {hint:?} in the paper prompt",
                t.id()
            );
        }
        // Neither the account's address nor its key is in any prompt of either set.
        let agent = inst.agent.to_checksum(None);
        let key = alloy::hex::encode(inst.signer().to_bytes());
        for p in [set(PromptSet::Paper), set(PromptSet::Assisted)] {
            let all = text(&prompt::messages(&t, &inst, &m, &p));
            assert!(
                !all.contains(&agent) || inst.text.contains(&agent),
                "{}",
                t.id()
            );
            assert!(!all.contains(&key), "{}", t.id());
        }
    }
    let p2 = set(PromptSet::Paper);
    assert!(prompt::round_request(&p2, 1, 6).contains("\"submit\": true"));
    assert!(!prompt::round_request(&p2, 2, 6).contains('6'));
}

#[test]
fn naive_mode_adds_the_task_description_in_both_sets() {
    let m = manifest();
    for t in catalogue() {
        let inst = Instance::new(&t, 1, &m).unwrap();
        for s in PromptSet::ALL {
            let plain = text(&prompt::messages(&t, &inst, &m, &set(s)));
            let naive = Prompting {
                naive: true,
                ..set(s)
            };
            let with = text(&prompt::messages(&t, &inst, &m, &naive));
            assert!(!plain.contains("Context for this task"), "{}", t.id());
            assert!(with.contains("Context for this task"), "{}", t.id());
            assert!(with.contains(&prompt::naive_context(&t)), "{}", t.id());
            assert!(with.contains(&t.spec.title), "{}", t.id());
            if let Some(c) = &t.spec.composite {
                assert!(with.contains(&c.workflow[0]), "{}", t.id());
            }
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_prompt_in_every_wording() {
    let m = manifest();
    let mut differ = 0;
    let tasks = catalogue();
    for t in &tasks {
        for library in Library::ALL {
            for s in PromptSet::ALL {
                let p = Prompting {
                    set: s,
                    library,
                    naive: true,
                };
                let a = prompt::messages(t, &Instance::new(t, 11, &m).unwrap(), &m, &p);
                let b = prompt::messages(t, &Instance::new(t, 11, &m).unwrap(), &m, &p);
                assert_eq!(a, b, "{}", t.id());
                let c = prompt::messages(t, &Instance::new(t, 12, &m).unwrap(), &m, &p);
                differ += usize::from(a != c);
            }
        }
    }
    // Seeds matter (a few tasks have no sampled value in their text).
    assert!(differ > tasks.len() * 3, "{differ}");
}

#[test]
fn viem_prompts_name_viem_and_not_ethers() {
    let m = manifest();
    for t in catalogue() {
        let inst = Instance::new(&t, 2, &m).unwrap();
        let p = Prompting {
            library: Library::Viem,
            ..Default::default()
        };
        let all = text(&prompt::messages(&t, &inst, &m, &p));
        assert!(all.contains("viem v2"), "{}", t.id());
        assert!(all.contains("from 'viem'"), "{}", t.id());
        assert!(!all.contains("ethers.js v6"), "{}", t.id());
        assert!(!all.contains("from \"ethers\""), "{}", t.id());
        let a = Prompting {
            library: Library::Viem,
            ..set(PromptSet::Assisted)
        };
        let all = text(&prompt::messages(&t, &inst, &m, &a));
        assert!(all.contains("viem v2"), "{}", t.id());
        assert!(!all.contains("ethers v6"), "{}", t.id());
    }
}

#[test]
fn nl_difficulty_picks_labelled_templates_and_falls_back_to_any() {
    let m = manifest();
    let mut t = catalogue()
        .into_iter()
        .find(|t| t.id() == "bnb_transfer_basic")
        .unwrap();
    // No labels: every setting gives the paper's (random) instance.
    for nl in NlDifficulty::ALL {
        for seed in 0..5 {
            let a = Instance::with_difficulty(&t, seed, &m, nl).unwrap();
            let b = Instance::new(&t, seed, &m).unwrap();
            assert_eq!((a.template_index, &a.text), (b.template_index, &b.text));
            assert_eq!(a.template_label, None);
        }
    }
    // One moderate template among precise ones: `moderate` always picks it, the parameters are
    // those of the random instance.
    let n = t.spec.templates.len();
    t.spec.template_labels = vec![TemplateLabel::Precise; n];
    t.spec.template_labels[n - 1] = TemplateLabel::Moderate;
    for seed in 0..8 {
        let a = Instance::with_difficulty(&t, seed, &m, NlDifficulty::Moderate).unwrap();
        let b = Instance::new(&t, seed, &m).unwrap();
        assert_eq!(a.template_index, n - 1);
        assert_eq!(a.template_label, Some(TemplateLabel::Moderate));
        assert_eq!(a.params_json(), b.params_json());
        let p = Instance::with_difficulty(&t, seed, &m, NlDifficulty::Precise).unwrap();
        assert_ne!(p.template_index, n - 1);
        let v = Instance::with_difficulty(&t, seed, &m, NlDifficulty::Vague).unwrap();
        assert_eq!(v.template_index, b.template_index, "fallback to any");
    }
    for nl in NlDifficulty::ALL {
        assert_eq!(NlDifficulty::parse(nl.as_str()), Some(nl));
    }
    for l in Library::ALL {
        assert_eq!(Library::parse(l.as_str()), Some(l));
    }
    assert_eq!(Library::parse("web3"), None);
}

const VIEM_TRANSFER: &str = r#"import { parseEther } from 'viem'

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
    return { to: '{{to_address}}' as `0x${string}`, value: parseEther('{{amount}}'), data: '0x' as `0x${string}` };
}
"#;

const VIEM_ERC20: &str = r#"import { createPublicClient, http, encodeFunctionData, parseUnits, erc20Abi } from 'viem'
import { bsc } from 'viem/chains'

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
    const client = createPublicClient({ chain: bsc, transport: http(providerUrl) });
    const token = '{{token}}' as `0x${string}`;
    const decimals = await client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' });
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: ['{{to_address}}' as `0x${string}`, parseUnits('{{amount}}', decimals)] });
    return { to: token, data, value: 0n };
}
"#;

#[tokio::test]
async fn a_viem_module_runs_in_the_sandbox_and_scores() {
    let h = Harness::start(&Config::test())
        .await
        .unwrap_or_else(|e| panic!("{e} (Anvil and Deno come from `npm ci` in the project root)"));
    h.require_viem().expect("viem is vendored by npm ci");
    let tasks = catalogue();
    for (id, module) in [
        ("bnb_transfer_basic", VIEM_TRANSFER),
        ("erc20_transfer_fixed", VIEM_ERC20),
    ] {
        let t = tasks.iter().find(|t| t.id() == id).unwrap();
        for seed in 0..2 {
            let inst = h.instance(t, seed).unwrap();
            let answer = as_answer(&inst.render_solution(module));
            let v = h.run_answer(t, &inst, &answer).await.unwrap();
            assert_eq!(
                v.score, 100,
                "{id} seed {seed}: {:?} {}",
                v.outcome, v.reason
            );
        }
    }
    // A viem module that forgets to import what it uses fails to run, and scores 0.
    let t = tasks
        .iter()
        .find(|t| t.id() == "bnb_transfer_basic")
        .unwrap();
    let inst = h.instance(t, 0).unwrap();
    let broken = VIEM_TRANSFER.replace("import { parseEther } from 'viem'\n", "");
    let v = h
        .run_answer(t, &inst, &as_answer(&inst.render_solution(&broken)))
        .await
        .unwrap();
    assert_eq!(v.score, 0);
}

#[tokio::test]
async fn the_reference_agent_scores_the_same_under_every_wording_and_records_the_options() {
    let tasks: Vec<Task> = catalogue()
        .into_iter()
        .filter(|t| {
            [
                "erc20_approve",
                "query_erc20_balance",
                "composite_approve_swap_tokens",
                "composite_batch_query_2_balances",
            ]
            .contains(&t.id())
        })
        .collect();
    let ids: Vec<String> = tasks.iter().map(|t| t.id().to_string()).collect();
    let h = Harness::start(&Config::test()).await.unwrap();
    let mut bench = QuestBench::new(tasks, h);
    let wordings = [
        (PromptSet::Assisted, Library::Ethers, false),
        (PromptSet::Paper, Library::Ethers, false),
        (PromptSet::Paper, Library::Viem, true),
    ];
    let mut scores: Vec<Vec<f64>> = Vec::new();
    for (s, library, naive) in wordings {
        bench = bench
            .with_prompt_set(s)
            .with_library(library)
            .with_naive(naive);
        let mut row = Vec::new();
        for id in &ids {
            let mut agent = bench.builtin_agent("reference", id, 3).unwrap();
            let rec = bench.run(id, agent.as_mut(), 3, &mut |_| {}).await.unwrap();
            assert_eq!(rec.prompt_set, s);
            let o = &rec.details["options"];
            assert_eq!(o["prompt_set"], s.as_str());
            assert_eq!(o["library"], library.as_str());
            assert_eq!(o["naive"], naive);
            assert_eq!(o["nl_difficulty"], "random");
            let first = &rec.transcript[0];
            match s {
                PromptSet::Paper => assert_eq!(first.role, Role::System),
                PromptSet::Assisted => assert_eq!(first.role, Role::User),
            }
            row.push(rec.score);
        }
        scores.push(row);
    }
    assert!(scores[0].iter().all(|s| *s == 1.0), "{scores:?}");
    assert_eq!(scores[0], scores[1]);
    assert_eq!(scores[0], scores[2]);
}

#[tokio::test]
async fn a_composite_answered_in_the_papers_control_forms_scores() {
    let t = catalogue()
        .into_iter()
        .find(|t| t.id() == "composite_batch_transfer_2_bnb")
        .unwrap();
    let h = Harness::start(&Config::test()).await.unwrap();
    let inst = h.instance(&t, 4).unwrap();
    let reference = composite::render_script(&t, &t.spec.solutions.reference, &inst).unwrap();
    // The runner's forms: a token_balance query by `query_type`/`token_address`, the last
    // module followed by `"submit": true` in prose.
    let usdt = inst_manifest_usdt(&h);
    let turns = vec![
        reference[0].clone(),
        format!(
            "{{\"action\": \"query\", \"query_type\": \"token_balance\", \"token_address\": \"{usdt}\", \"submit\": false}}"
        ),
        reference[1].clone(),
        format!("{}\nThis completes the task. \"submit\": true", reference[2]),
    ];
    let mut agent = crucible_core::ScriptedAgent::new("paper-forms", turns);
    let p = Prompting::default();
    let (v, transcript) = composite::run_episode_with(&h, &t, &inst, &p, &mut agent, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(v.base, 100, "{:?}", v.reason);
    assert_eq!(v.rounds[0].kind, "query");
    assert!(
        v.rounds[0].result.is_some(),
        "query failed: {}",
        v.rounds[0].reason
    );
    assert_eq!(v.k_act, v.k_opt + 1);
    assert_eq!(transcript[0].role, Role::System);
    // A bare {"submit": true} ends the episode without a round.
    let mut agent = crucible_core::ScriptedAgent::new(
        "submit-only",
        vec![reference[0].clone(), "{\"submit\": true}".into()],
    );
    let (v, _) = composite::run_episode_with(&h, &t, &inst, &p, &mut agent, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(v.k_act, 0);
}

fn inst_manifest_usdt(h: &Harness) -> String {
    h.manifest().contract("USDT").unwrap().to_checksum(None)
}
