package chat

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// shellTool needs a shell and counts its runs.
type shellTool struct {
	tools.Tool
	runs *atomic.Int32
}

func (s shellTool) Needs() []capabilities.Capability {
	return []capabilities.Capability{capabilities.CapShell}
}

func (s shellTool) Run(ctx context.Context, call tools.Call) tools.Result {
	s.runs.Add(1)
	return s.Tool.Run(ctx, call)
}

// A tool the request did not offer (its environment lacks what it needs)
// does not run when the model calls it anyway: the model gets an error
// result naming it as unavailable; an offered one in the same reply runs.
func TestToolsNotOfferedDoNotRun(t *testing.T) {
	var runs atomic.Int32
	shell := shellTool{tools.MustTyped("run_it", "runs it", nil, func(context.Context, tools.Call, struct{}) tools.Result {
		return tools.Result{Text: "ran"}
	}), &runs}
	reg, err := tools.NewRegistry(tools.ThreadTitle(), shell)
	require.NoError(t, err)
	h := newHarness(t, reg) // its environment has no shell
	h.app.Send("do it")
	call := h.fake.Next(t)
	for _, spec := range call.Request.Tools {
		assert.NotEqual(t, "run_it", spec.Name)
	}
	call.ToolUse("tu_1", "run_it", map[string]string{})
	call.ToolUse("tu_2", "thread_title", map[string]string{"title": "Done"})
	call.Stop(provider.StopToolUse)

	next := h.fake.Next(t)
	results := next.Results()
	assert.True(t, results["tu_1"].IsError)
	assert.Contains(t, results["tu_1"].Result[0].Text, "tool run_it is not available: it needs shell")
	assert.Contains(t, results["tu_1"].Result[0].Text, "so it did not run")
	assert.False(t, results["tu_2"].IsError)
	assert.Equal(t, int32(0), runs.Load())
	next.Reply("ok")
	h.screen.waitForText(t, "ok")
}
