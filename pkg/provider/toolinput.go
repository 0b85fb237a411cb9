package provider

import (
	"bytes"
	"encoding/json"
)

// ToolInput turns a tool call's raw arguments, as the model streamed
// them, into the JSON object the tool layer decodes: {} for empty or null
// arguments, the arguments themselves when they are an object, and
// otherwise {"_invalid_arguments": "<raw text>"}. Every adapter uses it,
// so whichever provider the model runs on, it is told exactly what it
// sent rather than that required properties are missing.
func ToolInput(raw []byte) json.RawMessage {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage("{}")
	}
	if trimmed[0] == '{' && json.Valid(trimmed) {
		return append(json.RawMessage(nil), trimmed...)
	}
	wrapped, _ := json.Marshal(map[string]string{InvalidArgumentsKey: string(raw)})
	return wrapped
}
