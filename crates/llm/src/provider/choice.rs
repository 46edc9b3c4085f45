//! `tool_choice` as each wire spells it (Ollama has none: `none` there offers no tools), added to a request body the encoder already built (only
//! when tools are offered: every wire refuses a choice without tools).

use serde_json::{json, Value};

use super::Wire;
use crucible_core::ToolChoice;

/// Adds `choice` to `body` in `wire`'s form: OpenAI `tool_choice` (`auto`/`required`/`none` or
/// a named function), Anthropic `tool_choice` (`auto`/`any`/`none`/`tool`), Gemini
/// `toolConfig.functionCallingConfig` (`AUTO`/`ANY`/`NONE`, `allowedFunctionNames`).
pub(crate) fn apply_tool_choice(wire: Wire, body: &mut Value, choice: &ToolChoice) {
    if body.get("tools").is_none() {
        return;
    }
    let (key, value) = match (wire, choice) {
        (Wire::OpenAi | Wire::Responses, ToolChoice::Auto) => ("tool_choice", json!("auto")),
        (Wire::OpenAi | Wire::Responses, ToolChoice::Required) => {
            ("tool_choice", json!("required"))
        }
        (Wire::OpenAi | Wire::Responses, ToolChoice::None) => ("tool_choice", json!("none")),
        // Responses names the function at the top level of the choice.
        (Wire::Responses, ToolChoice::Tool(n)) => {
            ("tool_choice", json!({"type": "function", "name": n}))
        }
        // Ollama has no tool choice: only "none" can be said, by offering no tools.
        (Wire::Ollama, ToolChoice::None) => {
            if let Some(map) = body.as_object_mut() {
                map.remove("tools");
            }
            return;
        }
        (Wire::Ollama, _) => return,
        (Wire::OpenAi, ToolChoice::Tool(n)) => (
            "tool_choice",
            json!({"type": "function", "function": {"name": n}}),
        ),
        (Wire::Anthropic, ToolChoice::Auto) => ("tool_choice", json!({"type": "auto"})),
        (Wire::Anthropic, ToolChoice::Required) => ("tool_choice", json!({"type": "any"})),
        (Wire::Anthropic, ToolChoice::None) => ("tool_choice", json!({"type": "none"})),
        (Wire::Anthropic, ToolChoice::Tool(n)) => {
            ("tool_choice", json!({"type": "tool", "name": n}))
        }
        (Wire::Gemini, c) => {
            let mut config = match c {
                ToolChoice::Auto => json!({"mode": "AUTO"}),
                ToolChoice::Required | ToolChoice::Tool(_) => json!({"mode": "ANY"}),
                ToolChoice::None => json!({"mode": "NONE"}),
            };
            if let ToolChoice::Tool(n) = c {
                config["allowedFunctionNames"] = json!([n]);
            }
            ("toolConfig", json!({"functionCallingConfig": config}))
        }
    };
    if let Some(map) = body.as_object_mut() {
        map.insert(key.into(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_is_spelled_the_way_each_wire_wants() {
        let cases = [
            (Wire::OpenAi, "/tool_choice", json!("required")),
            (Wire::Anthropic, "/tool_choice", json!({"type": "any"})),
            (
                Wire::Gemini,
                "/toolConfig/functionCallingConfig/mode",
                json!("ANY"),
            ),
            (Wire::Responses, "/tool_choice", json!("required")),
        ];
        for (wire, ptr, want) in cases {
            let mut body = json!({"tools": []});
            apply_tool_choice(wire, &mut body, &ToolChoice::Required);
            assert_eq!(body.pointer(ptr), Some(&want), "{wire:?}");
            let mut bare = json!({});
            apply_tool_choice(wire, &mut bare, &ToolChoice::Required);
            assert_eq!(bare, json!({}), "no tools, no choice");
        }
        let mut r = json!({"tools": []});
        apply_tool_choice(Wire::Responses, &mut r, &ToolChoice::Tool("f".into()));
        assert_eq!(r["tool_choice"], json!({"type": "function", "name": "f"}));
        let mut o = json!({"tools": []});
        apply_tool_choice(Wire::Ollama, &mut o, &ToolChoice::None);
        assert_eq!(o, json!({}), "Ollama: none is no tools");
    }
}
