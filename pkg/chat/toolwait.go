package chat

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

// ToolServerWait bounds how long a thread's first request waits for the
// tool servers (MCP) still starting. They start when the sidebar opens,
// so this matters for a message sent at once: their tools are in it
// rather than missing from the whole first turn. A server not ready by
// then is left out of that request; its tools join a later one.
const ToolServerWait = 2 * time.Second

// msgServersWaited: the wait for the tool servers of turn is over.
type msgServersWaited struct{ turn int }

// waitForToolServers holds the thread's first request while tool
// servers start (up to ToolServerWait, on a worker goroutine: the thread
// goes on handling its inbox, so abort works) and reports whether it
// does. Later requests never wait.
func (t *Thread) waitForToolServers() bool {
	servers := t.deps.ToolServers
	if t.serversWaited || servers == nil {
		return false
	}
	t.serversWaited = true
	names := servers.Starting()
	if len(names) == 0 {
		return false
	}
	tr := t.turn
	tr.waitingFor = names
	ctx, cancel := context.WithTimeout(tr.ctx, ToolServerWait)
	t.workers.Add(1)
	go func() {
		defer t.workers.Done()
		defer cancel()
		servers.WaitStarted(ctx, names)
		t.enqueue(msgServersWaited{turn: tr.id})
	}()
	return true
}

// apply sends the request that waited, saying which servers it leaves
// out (those still starting: failures are reported by the host).
func (m msgServersWaited) apply(t *Thread) {
	tr := t.turn
	if tr == nil || tr.id != m.turn || tr.waitingFor == nil {
		return // aborted meanwhile
	}
	starting := t.deps.ToolServers.Starting()
	var late []string
	for _, name := range tr.waitingFor {
		if slices.Contains(starting, name) {
			late = append(late, name)
		}
	}
	tr.waitingFor = nil
	if len(late) > 0 {
		t.notice(view.NoticeInfo, leftOutNotice(late))
	}
	t.dirty = true
	t.sendRequest()
}

// waitingForServers is the status line while the first request waits.
func waitingForServers(names []string) string {
	return fmt.Sprintf("waiting for MCP %s %s to start (up to %s)",
		view.Word(len(names), "server", "servers"), strings.Join(names, ", "), ToolServerWait)
}

// leftOutNotice says which servers the request went without.
func leftOutNotice(names []string) string {
	if len(names) == 1 {
		return fmt.Sprintf("MCP server %s is still starting: its tools are left out of this request and join a later one once it is ready", names[0])
	}
	return fmt.Sprintf("MCP servers %s are still starting: their tools are left out of this request and join a later one once they are ready", strings.Join(names, ", "))
}
