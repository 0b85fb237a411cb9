package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcpwire"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// KindMCP is the approval kind of an MCP tool call.
const KindMCP = "mcp"

// ResultCharBudget caps the text the model gets from one call, like
// bash_command's output; the rest is saved as an artifact.
const ResultCharBudget = tools.BashCharBudget

// maxToolName is the longest tool name providers accept.
const maxToolName = 64

// ToolName is the name the model sees for a server's tool.
func ToolName(server, tool string) string { return "mcp__" + server + "__" + tool }

type tool struct {
	srv    *server
	name   string // the server's name for it
	spec   tools.Spec
	schema *jsonschema.Resolved // checks the model's input before a call
}

// newTool checks the server's tool and wraps it; an input schema that is
// not a valid JSON Schema object is an error (the tool is skipped).
func newTool(s *server, t mcpwire.Tool) (*tool, error) {
	name := ToolName(s.cfg.Name, t.Name)
	if !config.NameChars(name, maxToolName) {
		return nil, fmt.Errorf("tool %q: %q is not a name models accept (letters, digits, _ and -, at most %d)", t.Name, name, maxToolName)
	}
	raw := t.InputSchema
	if len(raw) == 0 {
		return nil, fmt.Errorf("tool %q: no input schema", t.Name)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("tool %q: invalid input schema: %v", t.Name, err)
	}
	if schema.Type != "object" {
		return nil, fmt.Errorf("tool %q: input schema must have type \"object\"", t.Name)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tool %q: invalid input schema: %v", t.Name, err)
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return &tool{srv: s, name: t.Name, spec: tools.Spec{Name: name, Description: desc, InputSchema: raw}, schema: resolved}, nil
}

func (t *tool) Spec() tools.Spec { return t.spec }

// Needs is empty: an MCP tool runs wherever its server runs.
func (t *tool) Needs() []capabilities.Capability { return nil }

func (t *tool) Run(ctx context.Context, call tools.Call) tools.Result {
	args := json.RawMessage(call.Input)
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage("{}")
	}
	// Checked before asking: the user is not asked about a call the
	// server would refuse.
	var input any
	if err := json.Unmarshal(args, &input); err != nil {
		return tools.Errorf(fmt.Sprintf("%s: the input is not valid JSON: %v", t.spec.Name, err))
	}
	if err := t.schema.Validate(input); err != nil {
		return tools.Errorf(fmt.Sprintf("%s: the input does not match the tool's schema: %v", t.spec.Name, err))
	}
	if err := t.approve(ctx, call); err != nil {
		return tools.Errorf(err.Error())
	}
	session := t.srv.current()
	if session == nil {
		return tools.Errorf(fmt.Sprintf("MCP server %q is not running (%s); try again later", t.srv.cfg.Name, t.srv.status().LastError))
	}
	timeout := t.srv.cfg.timeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := session.call(cctx, t.name, args)
	var callErr *callError
	switch {
	case err == nil:
		return t.result(call, res)
	case ctx.Err() != nil:
		return tools.Errorf(fmt.Sprintf("%s was aborted", t.spec.Name))
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return tools.Errorf(fmt.Sprintf("%s timed out after %s (mcpServers.%s.timeout)", t.spec.Name, timeout, t.srv.cfg.Name))
	case !errors.As(err, &callErr) || !callErr.server:
		// Not an answer from the server: the connection is gone (the
		// process crashed) or speaks garbage. Start afresh next time.
		t.srv.broken(session, fmt.Errorf("connection lost during a call: %w", err))
		return tools.Errorf(fmt.Sprintf("MCP server %q stopped during the call (%v); it restarts on the next request", t.srv.cfg.Name, err))
	}
	return tools.Errorf(fmt.Sprintf("%s failed: %v", t.spec.Name, err))
}

// approve asks before a call unless the allow list or an earlier ALWAYS
// covers the tool.
func (t *tool) approve(ctx context.Context, call tools.Call) error {
	if t.srv.cfg.allows(t.name) || t.srv.m.approved(t.spec.Name) {
		return nil
	}
	b := t.srv.m.opts.Broker
	if b == nil {
		return fmt.Errorf("%s needs approval and nobody can give it; add it to mcpServers.%s.allow", t.spec.Name, t.srv.cfg.Name)
	}
	d, err := b.Ask(ctx, approval.Request{
		ThreadID: call.ThreadID, ToolUseID: call.ID, Kind: KindMCP, Subject: t.spec.Name,
		Reason: fmt.Sprintf("MCP server %q's tool %q wants to run with %s", t.srv.cfg.Name, t.name, abbreviate(string(call.Input), 200)),
	})
	switch {
	case err != nil:
		return fmt.Errorf("%s was not run: the thread was aborted while it waited for approval", t.spec.Name)
	case d == approval.Deny:
		return fmt.Errorf("%s was not run: the user declined", t.spec.Name)
	case d == approval.AllowAlways:
		t.srv.m.remember(t.spec.Name)
	}
	return nil
}

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
