package tools

import (
	"context"
	"fmt"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"log/slog"
	"runtime/debug"
	"sort"
	"time"
)

// Registry is a set of tools by name. It is built at start-up and read
// afterwards; reads are safe for concurrent use.
type Registry struct {
	tools map[string]Tool
}

// NewRegistry returns a registry of the given tools; a duplicate name is
// an error.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{tools: make(map[string]Tool, len(ts))}
	for _, t := range ts {
		name := t.Spec().Name
		if _, dup := r.tools[name]; dup {
			return nil, fmt.Errorf("tools: %q registered twice", name)
		}
		r.tools[name] = t
	}
	return r, nil
}

// DefaultMaxShellTimeout caps bash_command's per-call timeout unless the
// options say otherwise.
const DefaultMaxShellTimeout = 10 * time.Minute

// Config is what the built-in tools take from the user's options.
type Config struct {
	MaxShellTimeout time.Duration
}

// Default returns the registry of every built-in tool with default
// settings.
func Default() *Registry { return Builtin(Config{}) }

// Builtin returns the registry of every built-in tool.
func Builtin(cfg Config) *Registry {
	if cfg.MaxShellTimeout <= 0 {
		cfg.MaxShellTimeout = DefaultMaxShellTimeout
	}
	r, err := NewRegistry(ThreadTitle(), BashCommand(cfg.MaxShellTimeout), Grep(), WebFetch(), GetFile(), EditFile(), WriteFile(),
		Hover(), FindReferences(), Diagnostics())
	if err != nil {
		panic(err)
	}
	return r
}

// Tool returns the named tool.
func (r *Registry) Tool(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Specs lists the tools' specs sorted by name, so requests are stable.
func (r *Registry) Specs() []Spec {
	specs := make([]Spec, 0, len(r.tools))
	for _, t := range r.tools {
		specs = append(specs, t.Spec())
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs
}

// Run runs the named tool. An unknown name, a panic in the tool, or a
// cancelled context become error results the model can read.
func (r *Registry) Run(ctx context.Context, name string, call Call) (res Result) {
	t, ok := r.tools[name]
	if !ok {
		return Errorf(fmt.Sprintf("unknown tool %q; available tools: %v", name, r.names()))
	}
	defer func() {
		if p := recover(); p != nil {
			slog.Error("tool panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
			res = Errorf(fmt.Sprintf("tool %s failed with an internal error (%v); this is a bug in magenta, not in your input", name, p))
		}
	}()
	res = t.Run(capabilities.WithCall(ctx, capabilities.CallInfo{ThreadID: call.ThreadID, RequestID: call.ID}), call)
	if ctx.Err() != nil && !res.IsError {
		return Errorf(fmt.Sprintf("tool %s was aborted by the user", name))
	}
	return res
}

func (r *Registry) names() []string {
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
