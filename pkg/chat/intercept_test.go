package chat

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// recordingInterceptor vetoes calls of the tool named veto, adds a line
// to every other result, and records what it saw, as a hook, a
// checkpoint or a verification would.
type recordingInterceptor struct {
	veto string
	mu   sync.Mutex
	seen []string
}

func (r *recordingInterceptor) Intercept(ctx context.Context, name string, call tools.Call, next tools.Next) tools.Result {
	r.mu.Lock()
	r.seen = append(r.seen, name)
	r.mu.Unlock()
	if name == r.veto {
		return tools.Errorf("blocked by policy: no " + name)
	}
	res := next(ctx)
	res.Text += "\n(checked)"
	return res
}

func (r *recordingInterceptor) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// An interceptor given to the App wraps every tool call of every thread,
// sub-agents included: it can veto a call (the model gets its result and
// the tool does not run) and add to a result, with no change to the loop.
func TestAnAppInterceptorWrapsEveryToolCall(t *testing.T) {
	ic := &recordingInterceptor{veto: "thread_title"}
	h := newAgentHarness(t, config.Subagents{}, nil, func(c *providertest.Call) {
		if len(c.Results()) == 0 {
			c.ToolUse("g", "get_file", map[string]string{"filePath": "missing.txt"})
			c.Stop(provider.StopToolUse)
			return
		}
		text, _ := resultText(t, c, "g")
		yieldTo(c, "child saw: "+text)
	}, func(d *AppDeps) { d.Interceptors = []tools.Interceptor{ic} })

	h.app.Send("name it, then split")
	c := h.nextParent(t)
	c.ToolUse("t1", "thread_title", map[string]string{"title": "Renamed"})
	c.ToolUse("spawn_1", "spawn_subagents", map[string]any{"agents": agents("read")})
	c.Stop(provider.StopToolUse)
	next := h.nextParent(t)
	title, isErr := resultText(t, next, "t1")
	assert.True(t, isErr)
	assert.Equal(t, "blocked by policy: no thread_title", title, "a vetoed call's result is the interceptor's")
	spawned, _ := resultText(t, next, "spawn_1")
	assert.Contains(t, spawned, "(checked)", "the sub-agent's get_file was wrapped too")
	assert.True(t, strings.HasSuffix(spawned, "(checked)"), "and the spawn call itself")
	next.Reply("ok")
	h.screen.waitForText(t, "ok")
	assert.NotContains(t, h.screen.text(), "Renamed", "the vetoed tool did not run")
	assert.ElementsMatch(t, []string{"thread_title", "spawn_subagents", "get_file", "yield_to_parent"}, ic.names())
}

// A panicking interceptor is a bug reported to the model, not a crash;
// after the tool ran, the tool's result is kept.
func TestAPanickingInterceptorIsAnErrorResult(t *testing.T) {
	reg := tools.Default()
	before := tools.InterceptorFunc(func(context.Context, string, tools.Call, tools.Next) tools.Result { panic("boom") })
	res := reg.RunIntercepted(context.Background(), "thread_title", tools.Call{Thread: nopTitle{}, Input: []byte(`{"title":"x"}`)}, tools.Offered{"thread_title": true}, []tools.Interceptor{before})
	require.True(t, res.IsError)
	assert.Contains(t, res.Text, "The tool did not run")
	after := tools.InterceptorFunc(func(ctx context.Context, _ string, _ tools.Call, next tools.Next) tools.Result {
		next(ctx)
		panic("late")
	})
	res = reg.RunIntercepted(context.Background(), "thread_title", tools.Call{Thread: nopTitle{}, Input: []byte(`{"title":"x"}`)}, tools.Offered{"thread_title": true}, []tools.Interceptor{after})
	assert.False(t, res.IsError)
	assert.Contains(t, res.Text, "late")
	// A call the request did not offer is refused before any interceptor.
	res = reg.RunIntercepted(context.Background(), "thread_title", tools.Call{}, tools.Offered{}, []tools.Interceptor{before})
	assert.Contains(t, res.Text, "not offered")
}

type nopTitle struct{}

func (nopTitle) SetTitle(string) {}
