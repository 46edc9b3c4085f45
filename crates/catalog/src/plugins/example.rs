//! A fourth benchmark, compiled only in the tests: "echo", whose task is to repeat a word. It is
//! the minimal plugin docs/architecture.md shows, and its tests prove that the pack domain,
//! loading a run's content into a runnable benchmark, answer extraction and the trace's checks
//! reach a benchmark through its plugin alone — no file of `run`, `views` or the CLI names it.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};

use crucible_core::load::{LoadError, LoadPurpose, LoadRequest, Loaded, Ready};
use crucible_core::{
    Agent, AgentRequest, BenchError, Benchmark, Event, InstanceMeta, Message, Outcome, Role,
    SampleRecord,
};

use crucible_core::plugin::{
    BuiltinPack, Check, ContentError, Extraction, Plugin, Recognition, SelfTestError,
    SelfTestFailure, SelfTestReport, SelfTestRequest, StudioPack,
};
use crucible_core::{BoxFuture, Config};

use super::Registry;

/// The echo benchmark: a pack is a folder with `echo.jsonl`, one word to repeat per line.
struct Echo;

const FILE: &str = "echo.jsonl";

/// The words of the packs in `dirs`, in order.
fn words(dirs: &[&Path]) -> Result<Vec<String>, ContentError> {
    let mut out = Vec::new();
    for dir in dirs {
        let file = dir.join(FILE);
        let text = std::fs::read_to_string(&file).map_err(|e| ContentError::at(&file, e))?;
        out.extend(text.split_whitespace().map(String::from));
    }
    Ok(out)
}

/// The echo benchmark loaded for a run: one instance per word.
struct EchoBench {
    words: Vec<String>,
}

impl Benchmark for EchoBench {
    fn name(&self) -> &'static str {
        "echo"
    }
    fn instances(&self) -> Vec<String> {
        self.words.clone()
    }
    fn meta(&self, instance: &str) -> Result<InstanceMeta, BenchError> {
        Ok(InstanceMeta {
            task: instance.to_string(),
            kind: "word".into(),
            ..InstanceMeta::default()
        })
    }
    fn builtin_agents(&self) -> Vec<&'static str> {
        vec!["parrot"]
    }
    fn builtin_agent(
        &self,
        _name: &str,
        instance: &str,
        _seed: u64,
    ) -> Result<Box<dyn Agent + '_>, BenchError> {
        Ok(Box::new(crucible_core::FixedAgent::new("parrot", instance)))
    }
    fn run<'a>(
        &'a self,
        instance: &'a str,
        agent: &'a mut dyn Agent,
        seed: u64,
        events: &'a mut (dyn FnMut(Event) + Send),
    ) -> crucible_core::BoxFuture<'a, Result<SampleRecord, BenchError>> {
        Box::pin(async move {
            let asked = [Message::new(Role::User, format!("Repeat: {instance}"))];
            let turn = agent.respond(AgentRequest::new(&asked)).await;
            let (answer, agent_error) = match turn {
                Ok(t) => (t.text, None),
                Err(e) => (String::new(), Some(e.to_string())),
            };
            let said = Echo.extract(&answer).map(|e| e.text).unwrap_or_default();
            let passed = said == instance;
            let score = f64::from(u8::from(passed));
            let outcome = if passed { Outcome::Pass } else { Outcome::Fail };
            events(Event::SampleFinished { outcome, score });
            let mut transcript = asked.to_vec();
            transcript.push(Message::new(Role::Assistant, answer.clone()));
            Ok(SampleRecord {
                benchmark: "echo".into(),
                instance: instance.to_string(),
                agent: agent.name().to_string(),
                seed,
                outcome,
                score,
                passed,
                transcript,
                details: json!({"word": instance, "answer": said}),
                metrics: Default::default(),
                k_act: None,
                k_opt: None,
                paper: None,
                prompt_set: Default::default(),
                agent_error,
            })
        })
    }
}

impl Plugin for Echo {
    fn name(&self) -> &'static str {
        "echo"
    }
    fn label(&self) -> &'static str {
        "Echo"
    }
    fn builtin_agents(&self) -> Vec<&'static str> {
        vec!["parrot"]
    }
    fn builtin_packs(&self) -> &'static [BuiltinPack] {
        &[BuiltinPack {
            name: "builtin-echo",
            dir: "echo",
            selected_by: &["default"],
            description: "words to repeat",
        }]
    }
    fn recognise(&self, dir: &Path) -> Recognition {
        if dir.join(FILE).is_file() {
            Recognition::Marker
        } else {
            Recognition::No
        }
    }
    fn count_tasks(&self, dir: &Path) -> Result<usize, ContentError> {
        let file = dir.join(FILE);
        let text = std::fs::read_to_string(&file).map_err(|e| ContentError::at(&file, e))?;
        let words: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        if let Some(i) = words.iter().position(|w| w.contains(' ')) {
            return Err(ContentError::at(
                &file,
                format!("line {}: one word per line", i + 1),
            ));
        }
        Ok(words.len())
    }
    fn load(&self, req: LoadRequest<'_>) -> Result<Box<dyn Loaded>, LoadError> {
        if let Some((key, _)) = req.options.iter().next() {
            return Err(LoadError::Refused(format!("Echo has no option {key:?}")));
        }
        let builtin = req.config.project_dir.join("tasks/echo");
        let dirs: Vec<&Path> = if req.packs.is_empty() {
            vec![builtin.as_path()]
        } else {
            req.packs.iter().map(|p| p.dir.as_path()).collect()
        };
        Ok(Box::new(Ready(Arc::new(EchoBench {
            words: words(&dirs)?,
        }))))
    }
    fn studio_packs(&self, _studio: &Path) -> Vec<StudioPack> {
        Vec::new()
    }
    fn extract(&self, answer: &str) -> Option<Extraction> {
        let word = answer.split_whitespace().last()?;
        Some(Extraction {
            lang: "text",
            source: "last word",
            text: word.to_string(),
        })
    }
    fn checks(&self, details: &Value) -> Vec<Check> {
        let Some(want) = details["word"].as_str() else {
            return Vec::new();
        };
        let got = details["answer"].as_str().unwrap_or_default();
        vec![Check::new(
            "repeated",
            want == got,
            want.to_string(),
            got.to_string(),
        )]
    }
    fn self_test<'a>(
        &'a self,
        req: SelfTestRequest<'a>,
    ) -> BoxFuture<'a, Result<SelfTestReport, SelfTestError>> {
        Box::pin(async move {
            // The reference answer (the word itself) must pass, and a wrong one ("") must not.
            let text =
                std::fs::read_to_string(req.dir.join(FILE)).map_err(SelfTestError::failed)?;
            let words: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            let mut failing = Vec::new();
            for (i, w) in words.iter().enumerate() {
                let passes = |answer: &str| {
                    let said = self.extract(answer).map(|e| e.text).unwrap_or_default();
                    self.checks(&json!({"word": w, "answer": said}))[0].passed
                };
                if !passes(w) || passes("") {
                    failing.push(SelfTestFailure {
                        task: format!("line {}", i + 1),
                        seed: None,
                        problem: format!("{w:?} is not one word"),
                    });
                }
                (req.progress)(i + 1, words.len());
            }
            Ok(SelfTestReport {
                checked: words.len(),
                seeds: 1,
                failing,
                not_executable: 0,
                not_executable_examples: Vec::new(),
                report: json!({"words": words.len()}),
            })
        })
    }
}

fn write(dir: &Path, file: &str, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(file), text).unwrap();
}

/// A project whose `tasks/` holds only the echo benchmark's built-in pack, and a data dir with
/// one echo pack recognised by its file, one named by its pack.json and one that is broken.
fn fixture(root: &Path) -> Config {
    let config = Config {
        project_dir: root.join("project"),
        data_dir: root.join("data"),
        ..Config::test()
    };
    write(
        &config.project_dir.join("tasks/echo"),
        FILE,
        "alpha\nbeta\n",
    );
    let packs = config.data_dir.join("packs");
    write(&packs.join("plain"), FILE, "one\ntwo\nthree\n");
    write(
        &packs.join("named"),
        "pack.json",
        r#"{"name": "my-echo", "benchmark": "echo"}"#,
    );
    write(&packs.join("named"), FILE, "gamma\n");
    write(&packs.join("broken"), FILE, "two words\n");
    config
}

#[test]
fn a_registered_plugin_is_listed_counted_and_read_without_naming_it_anywhere_else() {
    let tmp = tempfile::tempdir().unwrap();
    let config = fixture(tmp.path());
    let reg = Registry::with(vec![Box::new(Echo)]);
    assert_eq!(reg.names().last(), Some(&"echo"));
    assert_eq!(reg.default_pack("echo", ""), Some("builtin-echo"));

    let list = crate::packs::list_in(&config, &reg).unwrap();
    let get = |name: &str| list.iter().find(|p| p.name == name).unwrap();
    let builtin = get("builtin-echo");
    assert_eq!(
        (
            builtin.benchmark.as_str(),
            builtin.tasks,
            builtin.error.as_deref()
        ),
        ("echo", 2, None)
    );
    assert_eq!(builtin.description.as_deref(), Some("words to repeat"));
    assert_eq!(
        (get("plain").benchmark.as_str(), get("plain").tasks),
        ("echo", 3)
    );
    assert_eq!(
        get("my-echo").tasks,
        1,
        "pack.json names the benchmark and the pack"
    );
    let broken = get("broken").error.as_deref().unwrap();
    assert!(
        broken.contains("echo.jsonl: line 1: one word per line"),
        "{broken}"
    );

    // Crucible's own registry does not know echo: a pack naming it says which benchmarks exist.
    let plain = crate::packs::list(&config).unwrap();
    let named = plain.iter().find(|p| p.path.ends_with("named")).unwrap();
    let why = named.error.as_deref().unwrap();
    assert!(
        why.contains(r#"benchmark: "echo" is not one of questbench, intent2tx, pilot"#),
        "{why}"
    );

    // The self-test runs through the catalogue's self-test, its verdict recorded like any pack's.
    let mut plain_pack = get("plain").clone();
    plain_pack.hash = "h".into();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (verdict, report) = rt
        .block_on(crate::selftest::run_in(
            &config,
            &reg,
            &plain_pack,
            1,
            None,
            &|_, _| {},
        ))
        .unwrap();
    assert!(verdict.passed, "{verdict:?}");
    assert_eq!((verdict.checked, report["words"].as_u64()), (3, Some(3)));
    assert_eq!(
        crate::selftest::verdicts(&config)["plain"].benchmark,
        "echo",
        "recorded in verified.json"
    );

    let echo = reg.get("echo").unwrap();
    let e = echo.extract("I say: hello").unwrap();
    assert_eq!((e.lang, e.text.as_str()), ("text", "hello"));
    let checks = echo.checks(&json!({"word": "hello", "answer": "hullo"}));
    assert_eq!(
        (
            checks[0].passed,
            checks[0].expected.as_str(),
            checks[0].actual.as_str()
        ),
        (false, "hello", "hullo")
    );

    // The task studio's hooks have defaults: a benchmark the studio does not edit says so.
    let config = Config::test();
    let check = crucible_core::plugin::TextCheck {
        config: Some(&config),
        text: "hello",
        path: Path::new("echo.jsonl"),
    };
    let e = echo.check_text(check).unwrap_err();
    assert!(e.message.contains("does not edit Echo"), "{e}");
    let e = echo
        .dry_run_answer(crucible_core::plugin::AnswerRequest {
            config: &config,
            path: Path::new("echo.jsonl"),
            id: "hello",
            seed: 0,
            choice: &crucible_core::plugin::SolutionChoice::Reference,
        })
        .unwrap_err();
    assert!(e.message.contains("does not dry-run Echo"), "{e}");
}

#[test]
fn a_registered_plugin_is_loaded_for_a_run_from_its_pack_and_scores_a_sample() {
    use crucible_run::{Benchmarks, PackRef, RunSpec};
    let tmp = tempfile::tempdir().unwrap();
    let config = fixture(tmp.path());
    let reg = Registry::with(vec![Box::new(Echo)]);
    let dir = config.data_dir.join("packs/plain");
    let mut spec = RunSpec::new(vec!["echo".into()], vec!["builtin:parrot".into()]);
    spec.packs = vec![PackRef {
        name: "plain".into(),
        benchmark: "echo".into(),
        path: String::new(),
        hash: "h".into(),
        files: crate::packs::file_digests(&dir).unwrap(),
    }];
    let catalog = crate::Catalog::load_for(&config, &spec, LoadPurpose::Run, &reg).unwrap();
    assert!(!catalog.needs_chain("echo"), "echo needs no chain");
    let bench = catalog.benchmark("echo").expect("ready without booting");
    assert_eq!(bench.instances(), ["one", "two", "three"]);

    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut parrot = bench.builtin_agent("parrot", "two", 0).unwrap();
    let mut seen = Vec::new();
    let rec = rt
        .block_on(bench.run("two", parrot.as_mut(), 7, &mut |e| seen.push(e)))
        .unwrap();
    assert_eq!((rec.outcome, rec.score, rec.seed), (Outcome::Pass, 1.0, 7));
    let checks = reg.get("echo").unwrap().checks(&rec.details);
    assert!(checks[0].passed, "{checks:?}");
    assert!(matches!(seen.last(), Some(Event::SampleFinished { .. })));

    // The pack is checked against its digests: an edited file is refused, naming it.
    std::fs::write(dir.join(FILE), "one\ntwo\nfour\n").unwrap();
    let e = crate::Catalog::load_for(&config, &spec, LoadPurpose::Run, &reg).unwrap_err();
    assert!(e.to_string().contains("echo.jsonl was edited"), "{e}");

    // Without packs, the built-in folder; an option echo does not have is refused by name.
    spec.packs.clear();
    spec.options.insert(
        "echo".into(),
        [("loud".to_string(), json!(true))].into_iter().collect(),
    );
    let e = crate::Catalog::load_for(&config, &spec, LoadPurpose::Run, &reg).unwrap_err();
    assert!(e.to_string().contains("no option \"loud\""), "{e}");
    spec.options.clear();
    let catalog = crate::Catalog::load_for(&config, &spec, LoadPurpose::Preview, &reg).unwrap();
    let bench = catalog.benchmark("echo").unwrap();
    assert_eq!(bench.instances(), ["alpha", "beta"]);
}
