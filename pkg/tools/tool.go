package tools

import (
	"context"
	"encoding/json"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Spec describes a tool to the model.
type Spec struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// ThreadControl is what a tool may change in the thread that called it.
// Implementations are safe for concurrent use: they enqueue a message to
// the thread's owner goroutine.
type ThreadControl interface {
	SetTitle(title string)
}

// Call is one invocation of a tool.
type Call struct {
	ID       string // the provider's tool-use id
	ThreadID string
	Input    json.RawMessage
	Env      *capabilities.Environment
	Thread   ThreadControl
	// Subagents spawns and waits for sub-agents, and lets a sub-agent
	// yield its result (nil where the thread cannot).
	Subagents Subagents
	// Live shows progress in the chat while the call runs (may be nil).
	Live *Live
}

// Image is an image a tool returns to the model.
type Image struct {
	MediaType string
	Data      []byte
}

// Result is what the model gets back.
type Result struct {
	Text    string
	Images  []Image
	IsError bool
	// Summary is a one-line description for the chat UI; empty means the
	// UI shows the first line of Text.
	Summary string
	// LogPath is a file with the call's full output, offered in the chat.
	LogPath string
	// Diff is a unified diff of a change the call made, for the chat.
	Diff string
	// Location is where the user can jump to see the change.
	Location *Location
	// Notes are lines an interceptor adds for the user (the diagnostics an
	// edit introduced, a checkpoint that is incomplete), drawn under the
	// call's diff; what the model should read goes into Text as well.
	Notes []string
}

// Location is a place in a file (1-based line).
type Location struct {
	Path string
	Line int
}

// Errorf returns an error result.
func Errorf(text string) Result { return Result{Text: text, IsError: true} }

// Tool is something the model can call. Run must return when ctx is
// cancelled, and must be safe to call from several goroutines.
type Tool interface {
	Spec() Spec
	Run(ctx context.Context, call Call) Result
}
