package acp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
)

var _ sdk.AgentLoader = (*Agent)(nil)

// LoadSession implements sdk.AgentLoader: a thread saved in this
// workspace (by Neovim, a headless run or this agent) becomes a session
// again, and its conversation is replayed to the client as updates
// before the answer.
func (a *Agent) LoadSession(_ context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	id := string(p.SessionId)
	if id == "" || strings.ContainsAny(id, "/\\.") {
		return sdk.LoadSessionResponse{}, fmt.Errorf("%q is not a session id", id)
	}
	a.appMu.Lock()
	if a.app == nil {
		if err := a.start(p.Cwd); err != nil {
			a.appMu.Unlock()
			return sdk.LoadSessionResponse{}, err
		}
	} else if filepath.Clean(p.Cwd) != a.cwd {
		a.appMu.Unlock()
		return sdk.LoadSessionResponse{}, fmt.Errorf("this agent works in %s; start another for %s", a.cwd, p.Cwd)
	}
	store := a.store
	if store == nil {
		a.appMu.Unlock()
		return sdk.LoadSessionResponse{}, errors.New("saved threads are off (threads.persist = false)")
	}
	a.mu.Lock()
	_, open := a.sessions[id]
	a.mu.Unlock()
	if open { // a session of this agent: replayed as saved so far
		a.appMu.Unlock()
		saved, err := store.Load(id)
		if err != nil {
			return sdk.LoadSessionResponse{}, fmt.Errorf("session %s: %w", id, err)
		}
		a.replay(id, saved.Messages)
		a.out.flush(a.ctx)
		return sdk.LoadSessionResponse{}, nil
	}
	// Neovim (or another agent) writing the thread keeps it: the App
	// would open it read-only, where a prompt cannot go.
	w, saved, err := store.OpenWriter(id)
	if err != nil {
		a.appMu.Unlock()
		if errors.Is(err, threadstore.ErrLocked) {
			return sdk.LoadSessionResponse{}, fmt.Errorf("session %s is open in Neovim or another agent", id)
		}
		return sdk.LoadSessionResponse{}, fmt.Errorf("session %s: %w", id, err)
	}
	_ = w.Close() // the App opens it again, for itself
	a.app.SelectThread(id)
	shown := a.app.ActiveThreadID()
	a.appMu.Unlock()
	if shown != id {
		return sdk.LoadSessionResponse{}, fmt.Errorf("session %s could not be opened", id)
	}
	a.mu.Lock()
	if _, ok := a.sessions[id]; !ok {
		a.sessions[id] = &session{id: id, ended: make(chan chat.TurnEnded, 1)}
	}
	a.mu.Unlock()
	a.replay(id, saved.Messages)
	a.out.flush(a.ctx)
	return sdk.LoadSessionResponse{}, nil
}

// replay sends a saved conversation as the updates that made it: the
// user's text, the replies, and each tool call with its result.
func (a *Agent) replay(id string, msgs []threadstore.Message) {
	for _, m := range msgs {
		for _, b := range m.Content {
			switch {
			case b.Kind == provider.BlockText && m.Role == provider.RoleUser:
				a.out.send(id, sdk.UpdateUserMessageText(b.Text))
			case b.Kind == provider.BlockText:
				a.out.send(id, sdk.UpdateAgentMessageText(b.Text))
			case b.Kind == provider.BlockToolUse:
				a.out.send(id, sdk.StartToolCall(sdk.ToolCallId(b.ToolUseID), b.ToolName,
					sdk.WithStartKind(toolKind(b.ToolName)), sdk.WithStartStatus(sdk.ToolCallStatusCompleted),
					sdk.WithStartRawInput(rawJSON(b.Input))))
			case b.Kind == provider.BlockToolResult:
				status := sdk.ToolCallStatusCompleted
				if b.IsError {
					status = sdk.ToolCallStatusFailed
				}
				var text []string
				for _, r := range b.Result {
					if r.Kind == provider.BlockText {
						text = append(text, r.Text)
					}
				}
				a.out.send(id, sdk.UpdateToolCall(sdk.ToolCallId(b.ToolUseID), sdk.WithUpdateStatus(status),
					sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(strings.Join(text, "\n")))})))
			}
		}
	}
}
