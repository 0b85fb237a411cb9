package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/mcp"
)

// FileName is the project file, at the root of the workspace.
const FileName = ".mcp.json"

// MaxFileBytes caps the file read: a project file is a few hundred
// bytes; anything near this is not one.
const MaxFileBytes = 1 << 20

// ProjectDirVar is set, when the environment does not set it, to the
// workspace, as Claude Code does: files often name it in args.
const ProjectDirVar = "CLAUDE_PROJECT_DIR"

// serverJSON is one entry of mcpServers. Keys magenta does not use
// (Claude Code's oauth, headersHelper, …) are ignored.
type serverJSON struct {
	Type    *string           `json:"type"`
	Command *string           `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     *string           `json:"url"`
	Headers map[string]string `json:"headers"`
	Extra   map[string]any    `json:"-"`
}

// Server is one server of the file: as written (for the user to judge
// before trusting it) and as it will run.
type Server struct {
	Name string
	// Kind is "stdio", "http" or "sse".
	Kind   string
	Config mcp.ServerConfig
	// written is the server as the file spells it, before ${VAR}
	// expansion: what the question shows.
	written written
}

type written struct {
	command, url string
	args         []string
	env, headers map[string]string
}

// Parse reads a project file. dir is the workspace: stdio servers run
// there. lookup reads the environment for ${VAR} expansion. An error
// means the file is malformed and none of its servers may start; a
// variable that is not set only stops the server that names it (its
// Config.Problem says which).
func Parse(data []byte, dir string, lookup func(string) (string, bool)) ([]Server, error) {
	var top map[string]json.RawMessage
	if err := strictDecode(data, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	raw, ok := top["mcpServers"]
	if !ok {
		return nil, errors.New(`no "mcpServers" object`)
	}
	var entries map[string]json.RawMessage
	if err := strictDecode(raw, &entries); err != nil || entries == nil {
		return nil, errors.New(`"mcpServers" must be an object of servers by name`)
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	env := func(k string) (string, bool) {
		if v, ok := lookup(k); ok {
			return v, true
		}
		if k == ProjectDirVar {
			return dir, true
		}
		return "", false
	}
	out := make([]Server, 0, len(names))
	for _, name := range names {
		s, err := parseServer(name, entries[name], dir, env)
		if err != nil {
			return nil, fmt.Errorf("mcpServers.%s: %v", name, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("text after the JSON value")
	}
	return nil
}

func parseServer(name string, raw json.RawMessage, dir string, env func(string) (string, bool)) (Server, error) {
	if !config.ValidMCPServerName(name) {
		return Server{}, errors.New("the name must be 1-40 letters, digits, _ or - (no \"__\")")
	}
	var j serverJSON
	if err := strictDecode(raw, &j); err != nil {
		return Server{}, fmt.Errorf("not a server object: %v", typeError(err))
	}
	if j.Type == nil && j.URL != nil && j.Command == nil {
		t := "http"
		j.Type = &t
	}
	kind := "stdio"
	if j.Type != nil {
		kind = *j.Type
	}
	var missing []string
	expand := func(s string) string {
		out, m := Expand(s, env)
		missing = append(missing, m...)
		return out
	}
	cfg := mcp.ServerConfig{Name: name, Source: mcp.SourceProject}
	wr := written{args: j.Args, env: j.Env, headers: j.Headers}
	if j.Command != nil {
		wr.command = *j.Command
	}
	if j.URL != nil {
		wr.url = *j.URL
	}
	switch kind {
	case "stdio":
		if j.Command == nil || *j.Command == "" {
			return Server{}, errors.New(`a stdio server needs "command"`)
		}
		if j.URL != nil || j.Headers != nil {
			return Server{}, errors.New(`"url" and "headers" are for "type": "http" or "sse", not a command`)
		}
		cfg.Command, cfg.Cwd = expand(*j.Command), dir
		for _, a := range j.Args {
			cfg.Args = append(cfg.Args, expand(a))
		}
		if len(j.Env) > 0 {
			cfg.Env = map[string]string{}
			for k, v := range j.Env {
				cfg.Env[k] = expand(v)
			}
		}
	case "http", "sse":
		if j.URL == nil || *j.URL == "" {
			return Server{}, fmt.Errorf(`a %q server needs "url"`, kind)
		}
		if j.Command != nil || j.Args != nil || j.Env != nil {
			return Server{}, fmt.Errorf(`"command", "args" and "env" are for a stdio server, not %q`, kind)
		}
		cfg.URL, cfg.SSE = expand(*j.URL), kind == "sse"
		if len(missing) == 0 && !strings.HasPrefix(cfg.URL, "http://") && !strings.HasPrefix(cfg.URL, "https://") {
			return Server{}, fmt.Errorf("url %q must start with http:// or https://", cfg.URL)
		}
		if len(j.Headers) > 0 {
			cfg.Headers = map[string]string{}
			for k, v := range j.Headers {
				cfg.Headers[k] = expand(v)
			}
		}
	default:
		return Server{}, fmt.Errorf(`"type" %q is not one of "stdio", "http", "sse"`, kind)
	}
	if len(missing) > 0 {
		cfg.Problem = fmt.Sprintf("%s: not set in the environment (and no ${NAME:-default}): %s", FileName, dedup(missing))
	}
	return Server{Name: name, Kind: kind, Config: cfg, written: wr}, nil
}

func dedup(names []string) string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// typeError says which field had the wrong type, without Go's type names.
func typeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		want := map[string]string{"type": "a string", "command": "a string", "url": "a string", "args": "a list of strings",
			"env": "an object of strings", "headers": "an object of strings"}[strings.SplitN(te.Field, ".", 2)[0]]
		if want == "" {
			want = "another type"
		}
		return fmt.Sprintf("%q must be %s, not %s", te.Field, want, te.Value)
	}
	return err.Error()
}
