package mcpwire

import "encoding/json"

// Protocol is the version of the messages below; a change an older peer
// would misread must bump it.
const Protocol = 1

// SelfEnv, set to "1" in the environment of a test binary whose TestMain
// calls gateway.ServeIfAsked, makes that binary serve as the gateway
// (mcp.UseThisBinaryAsGateway starts it so).
const SelfEnv = "MAGENTA_MCP_GATEWAY_SELF"

// Request operations.
const (
	// OpConnect starts a server (Connect) and answers with its Session.
	OpConnect = "connect"
	// OpTools lists a session's tools.
	OpTools = "tools"
	// OpCall calls Tool with Args and answers with the result.
	OpCall = "call"
	// OpClose stops a session (killing a stdio server's process group).
	OpClose = "close"
	// OpCancel cancels the request with id Cancels; it gets no reply.
	OpCancel = "cancel"
)

// Events the gateway sends (Reply.Event).
const (
	// EventToolsChanged: the server sent notifications/tools/list_changed.
	EventToolsChanged = "toolsChanged"
	// EventEnded: the session ended without the host closing it (the
	// server exited or the connection broke); Error says why.
	EventEnded = "ended"
)

// Request is a message from the host.
type Request struct {
	ID      uint64          `json:"id"`
	Op      string          `json:"op"`
	Session uint64          `json:"session,omitempty"`
	Connect *Connect        `json:"connect,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Cancels uint64          `json:"cancels,omitempty"`
}

// Connect says how to reach a server: a command (stdio) or a URL.
type Connect struct {
	// Name is the server's name (for messages).
	Name string `json:"name"`
	// ClientVersion is sent to the server as the client's version.
	ClientVersion string   `json:"clientVersion"`
	Command       string   `json:"command,omitempty"`
	Args          []string `json:"args,omitempty"`
	// Env is the command's whole environment (the host decides it).
	Env []string `json:"env,omitempty"`
	Dir string   `json:"dir,omitempty"`
	URL string   `json:"url,omitempty"`
	// Headers are added to every HTTP request (an API token).
	Headers map[string]string `json:"headers,omitempty"`
	// SSE speaks the older HTTP+SSE transport instead of streamable HTTP.
	SSE bool `json:"sse,omitempty"`
}

// Reply is a message from the gateway: a greeting (Hello), an answer to
// the request ID, or an event (Event, ID 0).
type Reply struct {
	ID    uint64 `json:"id,omitempty"`
	Hello *Hello `json:"hello,omitempty"`
	Event string `json:"event,omitempty"`
	// Session is the session a connect made, or an event's session.
	Session uint64 `json:"session,omitempty"`
	// PID is a stdio server's process id (connect).
	PID   int    `json:"pid,omitempty"`
	Tools []Tool `json:"tools,omitempty"`
	// Result is the CallToolResult as MCP sends it (content blocks,
	// structuredContent, isError).
	Result json.RawMessage `json:"result,omitempty"`
	// Stderr answers a close: the end of what the stdio server wrote to
	// stderr, which may say why a call found it gone.
	Stderr string `json:"stderr,omitempty"`
	Error  *Error `json:"error,omitempty"`
}

// Hello is the gateway's greeting.
type Hello struct {
	Protocol int `json:"protocol"`
	PID      int `json:"pid"`
}

// Tool is a server's tool as tools/list gave it.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// Error is a failed request, or why a session ended.
type Error struct {
	Message string `json:"message"`
	// Server: the server answered with a JSON-RPC error; the connection
	// is still good.
	Server bool `json:"server,omitempty"`
	// Stderr is the end of what a stdio server wrote to stderr, when it
	// may explain the failure.
	Stderr string `json:"stderr,omitempty"`
}

// Explain adds a server's stderr tail, if any, to msg.
func Explain(msg, stderr string) string {
	if stderr == "" {
		return msg
	}
	return msg + "; stderr: " + stderr
}
