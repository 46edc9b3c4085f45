//! Native tool calling on every wire: real-tool and simulated PILOT episodes played through
//! OpenAI `tool_calls`, Anthropic `tool_use` and Gemini `functionCall`s.

use std::sync::Arc;

use super::llm::{agent, fixed_now, openai_ok, reply, Handler, Req, Server};
use super::llm_seam::root;
use crucible_core::{Benchmark, Message};
use crucible_llm::RecordingClock;
use crucible_pilot::seam::PilotBench;
use crucible_pilot::suite::Engine;
use crucible_pilot::task::TaskLibrary;
use serde_json::{json, Value};

/// A model that plays `plan` through native tool calls in `wire`'s format: its k-th answer calls
/// step k, then it says it is done. Only the answers are scripted; the requests are the real
/// agent's, over real HTTP.
fn native_player(wire: &'static str, plan: Vec<(String, Value)>) -> Handler {
    Arc::new(move |req: Req| {
        let (list, role) = match wire {
            "gemini" => ("contents", "model"),
            _ => ("messages", "assistant"),
        };
        let k = req.body[list]
            .as_array()
            .map_or(0, |m| m.iter().filter(|m| m["role"] == role).count());
        let act = match plan.get(k) {
            Some((name, args)) => match wire {
                "openai" => reply(
                    200,
                    json!({"choices": [{"message": {"role": "assistant", "content": null,
                    "tool_calls": [{"id": format!("call_{k}"), "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}}]}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
                ),
                "anthropic" => reply(
                    200,
                    json!({"content": [{"type": "text", "text": "Next step."},
                    {"type": "tool_use", "id": format!("toolu_{k}"), "name": name, "input": args}],
                    "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}}),
                ),
                _ => reply(
                    200,
                    json!({"candidates": [{"content": {"role": "model",
                    "parts": [{"functionCall": {"name": name, "args": args}}]}}],
                    "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5}}),
                ),
            },
            None => match wire {
                "openai" => openai_ok("All done. Task completed."),
                "anthropic" => reply(
                    200,
                    json!({"content": [{"type": "text", "text": "Task completed."}],
                    "usage": {"input_tokens": 10, "output_tokens": 5}}),
                ),
                _ => reply(
                    200,
                    json!({"candidates": [{"content": {"role": "model",
                    "parts": [{"text": "Task completed."}]}}]}),
                ),
            },
        };
        Box::pin(async move { act })
    })
}

/// Native tool calling on every wire: a real-tool task played by a model that answers with
/// OpenAI `tool_calls`, Anthropic `tool_use` and Gemini `functionCall`s is executed on the real
/// MCP servers and succeeds on its end state; each request offers the tools natively and carries
/// the previous call's result in the wire's own form; the transcript keeps the native calls. A
/// simulated-set sample runs natively too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_tool_calling_runs_real_and_simulated_pilot_episodes_on_each_wire() {
    use crucible_pilot::native::{native_name, ToolProtocol};
    use crucible_pilot::real::{FaultMode, RealToolBench, RealToolSet};
    let set = RealToolSet::load(&root().join("tasks/pilot-real-tools")).unwrap();
    let install = crucible_mcp::Installation::from_config(&crate::support::config()).unwrap();
    let bench = RealToolBench::new(Arc::new(set), install)
        .with_faults(FaultMode::Off)
        .with_tool_protocol(ToolProtocol::Native);
    let instance = "git_commit_new_file@real-tools#baseline";
    let task = bench
        .set()
        .task("git_commit_new_file@real-tools")
        .unwrap()
        .clone();
    let plan: Vec<(String, Value)> = task
        .optimal_plan
        .iter()
        .map(|s| (native_name(&s.tool), s.arguments.clone()))
        .collect();
    for (wire, spec) in [
        ("openai", "openai:gpt-4o-mini"),
        ("anthropic", "anthropic:claude-3-5-haiku-20241022"),
        ("gemini", "gemini:gemini-2.0-flash"),
    ] {
        let server = Server::start(native_player(wire, plan.clone())).await;
        let clock = RecordingClock::new(fixed_now());
        let mut model = agent(&server, spec, &clock);
        let rec = bench
            .run(instance, &mut model, 1, &mut |_| {})
            .await
            .unwrap();
        assert!(rec.passed, "{wire}: {}", rec.details["evaluation"]);
        assert_eq!(rec.details["tool_protocol"], "native");
        let calls = rec.details["calls"].as_array().unwrap();
        assert_eq!(calls.len(), 3, "{wire}");
        assert!(calls.iter().all(|c| c["success"] == true));
        let with_calls: Vec<&Message> = rec
            .transcript
            .iter()
            .filter(|m| !m.tool_calls.is_empty())
            .collect();
        assert_eq!(
            with_calls.len(),
            3,
            "{wire}: the transcript keeps each native call"
        );
        assert_eq!(with_calls[0].tool_calls[0].name, "filesystem__write_file");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 4, "{wire}: three calls and the closing turn");
        for (k, r) in reqs.iter().enumerate() {
            let names: Vec<String> = match wire {
                "openai" => r.body["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                    .collect(),
                "anthropic" => r.body["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_string())
                    .collect(),
                _ => r.body["tools"][0]["functionDeclarations"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_string())
                    .collect(),
            };
            assert!(
                names.contains(&"git__git_commit".to_string())
                    && names.contains(&"tool_search".to_string()),
                "{wire}: {names:?}"
            );
            if k == 0 {
                continue;
            }
            let body = r.body.to_string();
            let answered = match wire {
                "openai" => body.contains(&format!("\"tool_call_id\":\"call_{}\"", k - 1)),
                "anthropic" => body.contains(&format!("\"tool_use_id\":\"toolu_{}\"", k - 1)),
                _ => body.contains("functionResponse"),
            };
            assert!(
                answered,
                "{wire}: request {k} carries the previous result: {body}"
            );
            assert!(
                body.contains("succeeded"),
                "{wire}: the result is the episode's feedback"
            );
        }
    }

    // The simulated set, natively: the model calls the task's first required tool, then stops.
    let pilot = PilotBench::new(Engine::new(
        TaskLibrary::load(&root().join("tasks/pilot")).unwrap(),
    ))
    .with_tool_protocol(ToolProtocol::Native);
    let instance = pilot.instances()[2].clone();
    let (task_id, _) = crucible_pilot::seam::parse_instance(&instance).unwrap();
    let first = pilot.engine().lib.tasks[pilot.engine().lib.position(task_id).unwrap()]
        .task
        .required_tools[0]
        .clone();
    let server = Server::start(native_player(
        "openai",
        vec![(native_name(&first), json!({}))],
    ))
    .await;
    let clock = RecordingClock::new(fixed_now());
    let mut model = agent(&server, "openai:gpt-4o-mini", &clock);
    let rec = pilot
        .run(&instance, &mut model, 3, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(rec.details["tool_protocol"], "native");
    assert_eq!(rec.details["calls"][0]["tool"], first.as_str());
    assert_eq!(
        server.requests()[0].body["tools"].as_array().unwrap().len(),
        pilot.engine().lib.registry.len() + 2
    );
}
