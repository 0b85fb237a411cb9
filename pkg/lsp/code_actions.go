package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// CodeActions implements capabilities.LspClient: every supporting
// server's actions for the 0-based lines first..last of path, in start
// order of the servers and each server's own order.
func (a *Adapter) CodeActions(ctx context.Context, path string, first, last int) ([]capabilities.CodeAction, error) {
	answers, err := a.ask(ctx, askSpec{Method: capabilities.LSPCodeAction, Path: path, Line: first, EndLine: last})
	if err != nil {
		return nil, err
	}
	if err := failed(capabilities.LSPCodeAction, answers); err != nil {
		return nil, err
	}
	var out []capabilities.CodeAction
	for _, ans := range answers {
		if ans.Error != "" {
			continue
		}
		var items []json.RawMessage
		if err := jsonList(ans.Result, &items); err != nil {
			return nil, fmt.Errorf("%s from %s: undecodable actions: %w", capabilities.LSPCodeAction, ans.Client, err)
		}
		var commands []string
		_ = jsonList(ans.Commands, &commands) // none known: none runs
		for _, item := range items {
			ca, err := decodeCodeAction(item, ans, commands)
			if err != nil {
				return nil, fmt.Errorf("%s from %s: %w", capabilities.LSPCodeAction, ans.Client, err)
			}
			out = append(out, ca)
		}
	}
	return out, nil
}

// decodeCodeAction reads a CodeAction or a bare Command (an action that
// only runs a command) as ans's server sent it.
func decodeCodeAction(raw json.RawMessage, ans clientAnswer, commands []string) (capabilities.CodeAction, error) {
	var item struct {
		Title    string          `json:"title"`
		Kind     string          `json:"kind"`
		Command  json.RawMessage `json:"command"`
		Edit     json.RawMessage `json:"edit"`
		Disabled *struct {
			Reason string `json:"reason"`
		} `json:"disabled"`
	}
	if err := json.Unmarshal(raw, &item); err != nil {
		return capabilities.CodeAction{}, fmt.Errorf("undecodable action: %w", err)
	}
	ca := capabilities.CodeAction{Server: ans.Client, ClientID: ans.ID, Title: item.Title, Kind: item.Kind, Raw: raw, Resolvable: ans.Resolvable}
	if item.Disabled != nil {
		ca.Disabled = item.Disabled.Reason
		if ca.Disabled == "" {
			ca.Disabled = "the server says it cannot be applied now"
		}
	}
	var name string
	switch {
	case json.Unmarshal(item.Command, &name) == nil: // a bare Command
		ca.Command, ca.CommandRaw, ca.Resolvable = name, raw, false
	case len(item.Command) > 0 && string(item.Command) != "null":
		var cmd struct {
			Command string `json:"command"`
		}
		if err := json.Unmarshal(item.Command, &cmd); err != nil {
			return ca, fmt.Errorf("undecodable command of %q: %w", item.Title, err)
		}
		ca.Command, ca.CommandRaw = cmd.Command, item.Command
	}
	ca.CommandRunnable = ca.Command != "" && slices.Contains(commands, ca.Command)
	if len(item.Edit) > 0 && string(item.Edit) != "null" {
		we, err := decodeWorkspaceEdit(item.Edit, ans.Encoding)
		if err != nil {
			return ca, fmt.Errorf("the edit of %q: %w", item.Title, err)
		}
		we.Server = ans.Client
		ca.Edit = &we
	}
	return ca, nil
}

// ResolveCodeAction implements capabilities.LspClient.
func (a *Adapter) ResolveCodeAction(ctx context.Context, ca capabilities.CodeAction) (capabilities.CodeAction, error) {
	ans, err := a.askClient(ctx, "codeAction/resolve", "resolve_action", ca.ClientID, string(ca.Raw))
	if err != nil {
		return ca, err
	}
	var commands []string
	if ca.CommandRunnable {
		commands = []string{ca.Command}
	}
	ans.Resolvable = false
	return decodeCodeAction(ans.Result, ans, commands)
}

// RunCodeCommand implements capabilities.LspClient: the server runs the
// command; edits it sends back (workspace/applyEdit) Neovim applies to
// its buffers itself.
func (a *Adapter) RunCodeCommand(ctx context.Context, ca capabilities.CodeAction) (capabilities.CommandRun, error) {
	ans, err := a.askClient(ctx, "workspace/executeCommand", "run_command", ca.ClientID, string(ca.CommandRaw))
	if err != nil {
		return capabilities.CommandRun{}, err
	}
	var run capabilities.CommandRun
	if err := jsonList(ans.Modified, &run.Modified); err != nil {
		return run, fmt.Errorf("workspace/executeCommand: undecodable answer: %w", err)
	}
	return run, nil
}

// askClient calls lsp_ask.lua's fn(id, clientID, payload), which sends
// method to that one client, and returns its answer or its refusal.
func (a *Adapter) askClient(ctx context.Context, method, fn string, clientID int, payload string) (clientAnswer, error) {
	raw, err := a.call(ctx, method, func(id int) error {
		return a.nv.ExecLua(`require('magenta.lsp_ask').`+fn+`(...)`, nil, id, clientID, payload)
	})
	if err != nil {
		return clientAnswer{}, err
	}
	var reply struct {
		Answers json.RawMessage `json:"answers"`
	}
	var answers []clientAnswer
	err = json.Unmarshal([]byte(raw), &reply)
	if err == nil {
		err = jsonList(reply.Answers, &answers)
	}
	if err == nil && len(answers) != 1 {
		err = fmt.Errorf("%d answers from one client", len(answers))
	}
	if err != nil {
		return clientAnswer{}, fmt.Errorf("%s: undecodable answer: %w", method, err)
	}
	if err := failed(method, answers); err != nil {
		return clientAnswer{}, err
	}
	return answers[0], nil
}
