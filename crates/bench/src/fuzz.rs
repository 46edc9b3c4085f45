//! `crucible bench fuzz`: the parsers of untrusted input driven for a fixed time each with seeded
//! generated inputs, the same kinds the property tests use (fragments each parser looks for, in
//! any order; real inputs with characters replaced, inserted or removed; now and then one
//! fragment repeated up to ~800 KB). It prints inputs, inputs/s and findings per parser: a panic
//! (caught, with its message) or an input slower than the threshold.
//!
//! The parsers are called as the app calls them; nothing here is asserted on time.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// What to run.
#[derive(Debug, Clone)]
pub struct FuzzOptions {
    /// Seconds per parser.
    pub seconds: f64,
    /// Seed of the generators.
    pub seed: u64,
    /// An input taking longer than this is a finding, ms.
    pub slow_ms: u64,
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// `panic` or `slow`.
    pub kind: &'static str,
    /// The panic message, or the time taken.
    pub message: String,
    /// Input size, bytes.
    pub input_bytes: usize,
    /// The input's first 200 characters, escaped.
    pub input_start: String,
}

/// Figures of one parser.
#[derive(Debug, Clone, Serialize)]
pub struct ParserFigures {
    /// Parser name (`crate.function`).
    pub parser: &'static str,
    /// Inputs run.
    pub inputs: u64,
    /// Inputs per second.
    pub inputs_per_s: f64,
    /// Bytes of input run, in total.
    pub bytes: u64,
    /// Largest input, bytes.
    pub largest_input: usize,
    /// Slowest input, ms.
    pub slowest_ms: f64,
    /// Panics and slow inputs (at most 10 kept; `finding_count` has them all).
    pub findings: Vec<Finding>,
    /// All findings.
    pub finding_count: u64,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct FuzzReport {
    /// Seconds per parser.
    pub seconds_per_parser: f64,
    /// Generator seed.
    pub seed: u64,
    /// Slow-input threshold, ms.
    pub slow_ms: u64,
    /// One entry per parser.
    pub parsers: Vec<ParserFigures>,
}

type Parser = Box<dyn Fn(&[u8])>;

struct Target {
    name: &'static str,
    tokens: Vec<&'static str>,
    seeds: Vec<Vec<u8>>,
    run: Parser,
}

fn text(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap_or("")
}

fn targets(project: &std::path::Path) -> Vec<Target> {
    use crucible_questbench::{atomic, composite, import, task::Task};
    let read = |p: &str| std::fs::read(project.join(p)).unwrap_or_default();
    let task_seed = read("tasks/questbench/atomic/native_transfer/bnb_transfer_basic.json");
    let row = read("tasks/intent2tx/default/instances.jsonl")
        .split(|b| *b == b'\n')
        .next()
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    let json = vec![
        "{",
        "}",
        "[",
        "]",
        "\"",
        "\\",
        ",",
        ":",
        "\n",
        "-",
        "1000000000000000000001",
        "true",
        "null",
        "é",
    ];
    let md = vec!["```", "```ts\n", "```json\n", "//", "/*", "*/"];
    let with = |extra: &[&'static str]| {
        let mut v = json.clone();
        v.extend(md.iter().copied());
        v.extend(extra.iter().copied());
        v
    };
    vec![
        Target {
            name: "questbench.extract_code",
            tokens: with(&["const x = 1;", "export default"]),
            seeds: vec![b"```ts\nexport default async () => 1;\n```".to_vec()],
            run: Box::new(|b| {
                let _ = atomic::extract_code(text(b));
            }),
        },
        Target {
            name: "questbench.parse_reply",
            tokens: with(&["\"action\"", "\"submit\": true", "{\"action\": \"query\"}"]),
            seeds: vec![b"```json\n{\"action\": \"submit\"}\n```".to_vec()],
            run: Box::new(|b| {
                let _ = composite::parse_reply(text(b));
            }),
        },
        Target {
            name: "questbench.task_json",
            tokens: with(&["\"checks\"", "\"family\"", "\"weight\": 10"]),
            seeds: vec![task_seed],
            run: Box::new(|b| {
                let _ = Task::from_json(text(b), std::path::Path::new("fuzz.json"));
            }),
        },
        Target {
            name: "questbench.bank_question",
            tokens: with(&["\"id\"", "\"question\"", "{amount}", "\"parameters\""]),
            seeds: vec![br#"{"id": "q1", "question": "Send {amount} BNB to {to}", "parameters": {"amount": {"type": "number", "min": 0.1, "max": 1}}}"#.to_vec()],
            run: Box::new(|b| {
                let _ = import::import_question(text(b), "fuzz.json");
            }),
        },
        Target {
            name: "intent2tx.parse_prediction",
            tokens: with(&["{\"function\": \"transfer\", \"value\": 0},"]),
            seeds: vec![row.clone()],
            run: Box::new(|b| {
                let _ = crucible_intent2tx::parse::parse_prediction(text(b), b.len() % 2 == 0);
            }),
        },
        Target {
            name: "intent2tx.import",
            tokens: with(&["True", "None", "\"intent\"", "\"ground_truth\"", "\u{feff}"]),
            seeds: vec![row.clone()],
            run: Box::new(|b| {
                let _ = crucible_intent2tx::import::import_str(text(b));
            }),
        },
        Target {
            name: "intent2tx.parse_instance",
            tokens: with(&["\"params\"", "\"type\": \"uint256\""]),
            seeds: vec![row],
            run: Box::new(|b| {
                let _ = crucible_intent2tx::import::parse_instance(text(b));
            }),
        },
        Target {
            name: "pilot.parse_turn",
            tokens: vec![
                "<tool_search>", "</tool_search>", "<tool_info>", "</tool_info>", "<tool_call>",
                "</tool_call>", "{\"tool\": \"x\"}", "Task completed", "<", ">", "\"", "İ", "\n",
            ],
            seeds: vec![b"<tool_call>file_operations_reader</tool_call>".to_vec()],
            run: Box::new(|b| {
                let t = text(b);
                let _ = crucible_pilot::protocol::parse_turn(t);
                let _ = crucible_pilot::protocol::parse_feedback(t);
            }),
        },
        Target {
            name: "llm.decode",
            tokens: with(&[
                "\"choices\"", "\"message\"", "\"content\"", "\"candidates\"", "\"parts\"",
                "\"usage\"",
            ]),
            seeds: vec![
                br#"{"choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":1}}"#
                    .to_vec(),
                br#"{"content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1}}"#.to_vec(),
                br#"{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]}"#.to_vec(),
            ],
            run: Box::new(|b| {
                if let Ok(v) = serde_json::from_slice::<serde_json::Value>(b) {
                    use crucible_llm::Wire;
                    for w in [Wire::OpenAi, Wire::Anthropic, Wire::Gemini] {
                        let _ = crucible_llm::decode(w, &v);
                    }
                }
            }),
        },
        Target {
            name: "store.snapshot",
            tokens: vec![],
            seeds: vec![snapshot_seed(3), snapshot_seed(40)],
            run: Box::new(|b| {
                use crucible_store::snapshot::SnapshotReader;
                if let Some((head, mut r)) = SnapshotReader::open(b, b.len() as u64) {
                    for _ in 0..head.samples {
                        if r.next_record().is_none() {
                            return;
                        }
                    }
                    let _ = r.finish();
                }
            }),
        },
    ]
}

fn snapshot_seed(n: usize) -> Vec<u8> {
    use crucible_store::snapshot::{SnapshotRecord, SnapshotWriter, LABELS, METRICS};
    let names = ["m", "i", "t", "p", "k", "c", "s", "d", "o"];
    let runs = vec!["r0".to_string()];
    let mut w = SnapshotWriter::new(names.iter().copied(), &runs, &[0], n as i64, n);
    for id in 1..=n as i64 {
        w.push(&SnapshotRecord {
            id,
            benchmark: crucible_core::BenchmarkId::ALL[id as usize % 3],
            run: 0,
            labels: [0; LABELS],
            round: 0,
            score: 1.0,
            passed: true,
            cost_usd: 0.0,
            k_act: None,
            k_opt: None,
            score_paper: 1.0,
            passed_paper: true,
            model_calls: 1,
            truncated_calls: 0,
            unpriced_calls: 0,
            metrics: [0.5; METRICS],
        });
    }
    w.finish()
}

/// One generated input for `t`.
fn generate(t: &Target, rng: &mut ChaCha8Rng) -> Vec<u8> {
    let pick = rng.random_range(0..100);
    if pick < 2 && !t.tokens.is_empty() {
        // One fragment repeated up to ~800 KB: the adversarial sizes of issue #20.
        let tok = t.tokens[rng.random_range(0..t.tokens.len())];
        let n = 800_000 / tok.len().max(1);
        return tok.repeat(rng.random_range(1..=n)).into_bytes();
    }
    if (pick < 50 || t.tokens.is_empty()) && !t.seeds.is_empty() {
        let mut b = t.seeds[rng.random_range(0..t.seeds.len())].clone();
        for _ in 0..rng.random_range(1..8) {
            let i = rng.random_range(0..=b.len());
            match rng.random_range(0..3) {
                0 if i < b.len() => b[i] ^= rng.random_range(1..=255u8),
                1 if i < b.len() => {
                    b.remove(i);
                }
                _ => b.insert(i, rng.random()),
            }
        }
        if t.tokens.is_empty() && rng.random_bool(0.2) {
            b.truncate(rng.random_range(0..=b.len()));
        }
        // Text parsers get text: invalid UTF-8 is replaced the way a lossy read would.
        if !t.tokens.is_empty() {
            return String::from_utf8_lossy(&b).into_owned().into_bytes();
        }
        return b;
    }
    let mut s = String::new();
    for _ in 0..rng.random_range(0..400) {
        if rng.random_bool(0.15) {
            s.push(rng.random::<char>());
        } else {
            s.push_str(t.tokens[rng.random_range(0..t.tokens.len())]);
        }
    }
    s.into_bytes()
}

thread_local! {
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs every parser for `opts.seconds`. `project` is the checkout (its task files seed the
/// mutations).
pub fn fuzz(project: &std::path::Path, opts: &FuzzOptions) -> FuzzReport {
    // Panics are findings, not output: record the message, print nothing.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg}{at}")));
    }));
    let parsers = targets(project)
        .iter()
        .enumerate()
        .map(|(k, t)| run_one(t, k as u64, opts))
        .collect();
    std::panic::set_hook(hook);
    FuzzReport {
        seconds_per_parser: opts.seconds,
        seed: opts.seed,
        slow_ms: opts.slow_ms,
        parsers,
    }
}

/// Drives one parser for `opts.seconds` (the panic hook is the caller's).
fn run_one(t: &Target, k: u64, opts: &FuzzOptions) -> ParserFigures {
    let budget = Duration::from_secs_f64(opts.seconds.max(0.01));
    let slow = Duration::from_millis(opts.slow_ms);
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed ^ (k << 32));
    let mut f = ParserFigures {
        parser: t.name,
        inputs: 0,
        inputs_per_s: 0.0,
        bytes: 0,
        largest_input: 0,
        slowest_ms: 0.0,
        findings: Vec::new(),
        finding_count: 0,
    };
    let started = Instant::now();
    while started.elapsed() < budget {
        let input = generate(t, &mut rng);
        let t0 = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| (t.run)(&input)));
        let took = t0.elapsed();
        f.inputs += 1;
        f.bytes += input.len() as u64;
        f.largest_input = f.largest_input.max(input.len());
        f.slowest_ms = f.slowest_ms.max(took.as_secs_f64() * 1e3);
        let finding = match result {
            Err(_) => Some((
                "panic",
                LAST_PANIC
                    .with(|p| p.borrow_mut().take())
                    .unwrap_or_else(|| "panic".into()),
            )),
            Ok(()) if took > slow => Some(("slow", format!("{:.0} ms", took.as_secs_f64() * 1e3))),
            Ok(()) => None,
        };
        if let Some((kind, message)) = finding {
            f.finding_count += 1;
            if f.findings.len() < 10 {
                f.findings.push(Finding {
                    kind,
                    message,
                    input_bytes: input.len(),
                    input_start: String::from_utf8_lossy(&input)
                        .chars()
                        .take(200)
                        .flat_map(char::escape_default)
                        .collect(),
                });
            }
        }
    }
    f.inputs_per_s = f.inputs as f64 / started.elapsed().as_secs_f64();
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> std::path::PathBuf {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    fn every_parser_runs_without_findings() {
        let opts = FuzzOptions {
            seconds: 0.3,
            seed: 1,
            slow_ms: 60_000,
        };
        let r = fuzz(&project(), &opts);
        assert_eq!(r.parsers.len(), 10);
        for p in &r.parsers {
            assert!(p.inputs > 0, "{}", p.parser);
            assert_eq!(p.finding_count, 0, "{}: {:?}", p.parser, p.findings);
        }
    }

    #[test]
    fn a_panicking_parser_is_a_finding_not_a_crash() {
        let t = Target {
            name: "test.panics",
            tokens: vec!["x", "{"],
            seeds: vec![],
            run: Box::new(|b| {
                if b.contains(&b'{') {
                    panic!("boom on {{");
                }
            }),
        };
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
        }));
        let f = run_one(
            &t,
            0,
            &FuzzOptions {
                seconds: 0.1,
                seed: 3,
                slow_ms: 60_000,
            },
        );
        std::panic::set_hook(hook);
        assert!(f.finding_count > 0 && f.finding_count < f.inputs, "{f:?}");
        assert_eq!(f.findings[0].kind, "panic");
        assert!(
            f.findings[0].message.contains("boom"),
            "{:?}",
            f.findings[0]
        );
        // One test: the panic hook is process-wide.
        every_parser_runs_without_findings();
    }
}
