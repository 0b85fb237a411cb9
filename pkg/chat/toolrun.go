package chat

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// tickInterval refreshes running tools' timers and live output.
const tickInterval = 250 * time.Millisecond

// toolResult is a finished tool call's result.
type toolResult tools.Result

func (r toolResult) summary() string {
	if r.Summary != "" {
		return r.Summary
	}
	return r.Text
}

// block is the tool_result the provider receives.
func (r toolResult) block(toolUseID string) provider.Block {
	text := r.Text
	if strings.TrimSpace(text) == "" {
		text = "(no output)"
	}
	content := []provider.Block{provider.TextBlock(text)}
	for _, img := range r.Images {
		content = append(content, provider.Block{Kind: provider.BlockImage, MediaType: img.MediaType, Data: img.Data})
	}
	return provider.Block{Kind: provider.BlockToolResult, ToolUseID: toolUseID, Result: content, IsError: r.IsError}
}

type msgTick struct{ turn int }

// startTool runs one tool call on a worker goroutine under its own
// context (terminate cancels just this call; abort cancels the turn's).
// The registry turns panics into error results.
func (t *Thread) startTool(tr *turn, e *entry, b provider.Block) {
	ctx, cancel := context.WithCancel(t.withPlan(tr.ctx))
	e.cancel, e.live, e.started = cancel, &tools.Live{}, time.Now()
	if excerpt, bad := tools.InvalidInput(b.Input); bad {
		// Say so in the block, instead of an empty "$ " line.
		e.desc, e.tool.Detail = "input was not valid JSON", excerpt
		e.tool.Summary = e.desc
	} else if tool, ok := t.deps.Tools.Tool(b.ToolName); ok {
		if d, ok := tool.(tools.Describer); ok {
			e.desc, e.tool.Detail = d.Describe(b.Input)
			e.tool.Summary = e.desc
		}
	}
	call := tools.Call{ID: b.ToolUseID, ThreadID: t.ID, Input: b.Input, Env: t.deps.Env, Thread: t, Subagents: t, Live: e.live}
	name, offered := b.ToolName, tr.offered
	t.workers.Add(1)
	go func() {
		defer t.workers.Done()
		// Only a tool the request offered runs (tools.Offered says why),
		// inside the interceptors (checkpoints, hooks, verification).
		res := t.deps.Tools.RunIntercepted(ctx, name, call, offered, t.deps.Interceptors)
		t.enqueue(msgToolDone{turn: tr.id, id: e.id, res: toolResult(res)})
	}()
	t.startTicker(tr)
	t.emit(ToolCallStarted{ID: b.ToolUseID, Name: name, Input: b.Input})
}

// startTicker sends msgTick while the turn's tools run.
func (t *Thread) startTicker(tr *turn) {
	if tr.ticking {
		return
	}
	tr.ticking = true
	t.workers.Add(1)
	go func() {
		defer t.workers.Done()
		tick := time.NewTicker(tickInterval)
		defer tick.Stop()
		for {
			select {
			case <-tr.ctx.Done():
				return
			case <-tick.C:
				t.enqueue(msgTick{turn: tr.id})
			}
		}
	}()
}

// onTick refreshes the timer and output of running tool calls.
func (t *Thread) onTick() {
	for _, e := range t.turn.pending {
		if e.tool.Status != view.ToolRunning {
			continue
		}
		snap := e.live.Snapshot()
		// A command's timer counts from its start (Live.Started), not
		// from the call: waiting for approval is not running.
		from := e.started
		if !snap.Started.IsZero() {
			from = snap.Started
		}
		running := time.Since(from).Truncate(time.Second).String()
		if limit := snap.Limit; limit > 0 {
			if snap.Terminal != nil {
				// The user's typing moves an interactive command's end.
				end := capabilities.TerminalDeadline(from, limit, snap.Terminal.LastInput(), capabilities.TerminalInputGrace)
				limit = end.Sub(from).Truncate(time.Second)
			}
			running += " of " + limit.String()
		}
		termChanged := refreshTerminal(e, snap, t.deps.TerminalKey)
		if snap.Seq != e.liveSeq || running != e.tool.Running || termChanged {
			e.liveSeq, e.tool.Running, e.tool.Live = snap.Seq, running, snap.Lines
			t.touch(e)
		}
	}
	t.refreshSubagentLines()
}

// finishTool records a tool call's result in its entry.
func (t *Thread) finishTool(e *entry, res toolResult) {
	if e.cancel != nil {
		e.cancel()
	}
	t.endTerminal(e)
	e.tool.Status = view.ToolDone
	if res.IsError {
		e.tool.Status = view.ToolFailed
	}
	e.tool.Summary, e.tool.Result, e.tool.LogPath = res.summary(), res.Text, res.LogPath
	e.tool.Diff, e.tool.Notes = res.Diff, append(append([]string(nil), res.Notes...), imageLines(res.Images)...)
	defer t.emit(ToolCallEnded{ID: e.toolID, Name: e.tool.Name, Result: tools.Result(res)})
	if res.Location != nil {
		e.tool.DiffPath, e.tool.DiffLine = res.Location.Path, res.Location.Line
	}
	if e.desc != "" {
		e.tool.Summary = fmt.Sprintf("%s — %s", e.desc, firstLineOf(res.summary()))
	}
	e.tool.Live, e.tool.Running, e.tool.Approval = nil, "", nil
	t.touch(e)
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// offerTools lists the tools the environment can serve now (see
// Registry.OfferedIn) for the turn's next request, and records them as
// the ones its reply may call.
func (t *Thread) offerTools(tr *turn) []provider.ToolSpec {
	specs := t.searchFilter(t.planFilter(t.deps.Tools.OfferedIn(t.deps.Env))) // websearch.go
	tr.offered = tools.OfferedSet(specs)
	out := make([]provider.ToolSpec, len(specs))
	for i, s := range specs {
		out[i] = provider.ToolSpec{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema}
	}
	return out
}
