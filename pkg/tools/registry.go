package tools

import (
	"context"
	"fmt"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"log/slog"
	"reflect"
	"runtime/debug"
	"sort"
	"time"
)

// Registry is a set of tools by name. It is built at start-up and read
// afterwards; reads are safe for concurrent use.
type Registry struct {
	tools map[string]Tool
	// providers add tools that come and go (MCP servers'); they are
	// asked for every request and every call.
	providers []Provider
}

// Provider supplies tools that change while the host runs. Tools must be
// cheap and must not wait: it is called for every request.
type Provider interface {
	Tools() []Tool
}

// WithProvider returns a registry holding r's tools and, from then on,
// p's; r is not changed. A built-in tool wins over a provided one of the
// same name.
func (r *Registry) WithProvider(p Provider) *Registry {
	out := r.With()
	out.providers = append(out.providers, p)
	return out
}

// provided lists the providers' tools now, by name.
func (r *Registry) provided() map[string]Tool {
	out := map[string]Tool{}
	for _, p := range r.providers {
		for _, t := range p.Tools() {
			if name := toolName(t); r.tools[name] == nil {
				out[name] = t
			}
		}
	}
	return out
}

// NewRegistry returns a registry of the given tools; a duplicate name is
// an error.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{tools: make(map[string]Tool, len(ts))}
	for _, t := range ts {
		name := toolName(t)
		if _, dup := r.tools[name]; dup {
			return nil, fmt.Errorf("tools: %q registered twice", name)
		}
		r.tools[name] = t
	}
	return r, nil
}

// named is a tool that knows its name without building its spec
// (MustTyped's build their schema on first use).
type named interface{ Name() string }

// toolName is t's name, without building its spec when it can: a
// wrapper that embeds a tool (grepTool{Tool: …}, adding Describe and
// the like) hides the embedded tool's Name, so it is looked through.
func toolName(t Tool) string {
	if n, ok := t.(named); ok {
		return n.Name()
	}
	if inner, ok := embeddedTool(t); ok {
		return toolName(inner)
	}
	return t.Spec().Name
}

// embeddedTool returns the Tool that t, a struct or a pointer to one,
// embeds.
func embeddedTool(t Tool) (Tool, bool) {
	v := reflect.ValueOf(t)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, false
	}
	sf, ok := v.Type().FieldByName("Tool")
	if !ok || !sf.Anonymous || len(sf.Index) != 1 {
		return nil, false
	}
	inner, ok := v.Field(sf.Index[0]).Interface().(Tool)
	return inner, ok && inner != nil
}

// Warm builds the specs of the registry's own tools (not its
// providers', which may start servers), so the first request does not
// pay for it; the host calls it once the first frame is drawn.
func (r *Registry) Warm() {
	for _, t := range r.tools {
		t.Spec()
	}
}

// DefaultMaxShellTimeout caps bash_command's per-call timeout unless the
// options say otherwise.
const DefaultMaxShellTimeout = 10 * time.Minute

// Config is what the built-in tools take from the user's options.
type Config struct {
	MaxShellTimeout time.Duration
	// ShellInteractive is the shell.interactive option ("" = "model").
	ShellInteractive string
}

// Default returns the registry of every built-in tool with default
// settings.
func Default() *Registry { return Builtin(Config{}) }

// Builtin returns the registry of every built-in tool.
func Builtin(cfg Config) *Registry {
	if cfg.MaxShellTimeout <= 0 {
		cfg.MaxShellTimeout = DefaultMaxShellTimeout
	}
	codeActions, applyCodeAction := CodeActionTools()
	r, err := NewRegistry(ThreadTitle(), BashCommandWith(cfg.MaxShellTimeout, cfg.ShellInteractive), Grep(), WebFetch(), WebSearch(), GetFile(), EditFile(), WriteFile(),
		Hover(), FindReferences(), Diagnostics(),
		Definition(), DocumentSymbols(), WorkspaceSymbols(), RenameSymbol(), FormatFile(), codeActions, applyCodeAction, Skill(), TodoWrite(), ExitPlanMode())
	if err != nil {
		panic(err)
	}
	return r
}

// Tool returns the named tool.
func (r *Registry) Tool(name string) (Tool, bool) {
	if t, ok := r.tools[name]; ok {
		return t, true
	}
	if len(r.providers) == 0 {
		return nil, false
	}
	t, ok := r.provided()[name]
	return t, ok
}

// Needer is implemented by tools that need capabilities beyond those
// builtinNeeds lists (tools from outside, such as MCP servers').
type Needer interface {
	Needs() []capabilities.Capability
}

// builtinNeeds is what each built-in tool needs from the environment.
var builtinNeeds = map[string][]capabilities.Capability{
	"bash_command":    {capabilities.CapShell},
	"grep":            {capabilities.CapSearch},
	"web_fetch":       {capabilities.CapWeb},
	WebSearchName:     {capabilities.CapWebSearch},
	"get_file":        {capabilities.CapFileIO},
	"edit_file":       {capabilities.CapFileIO},
	"write_file":      {capabilities.CapFileIO},
	"hover":           {capabilities.CapLSP},
	"find_references": {capabilities.CapLSP},
	"diagnostics":     {capabilities.CapDiagnostics},
	// The LSP tools below are also offered only while a server supports
	// their request (lspTool.OfferedIn).
	"definition":        {capabilities.CapLSP},
	"document_symbols":  {capabilities.CapLSP},
	"workspace_symbols": {capabilities.CapLSP},
	"rename_symbol":     {capabilities.CapLSP, capabilities.CapFileIO},
	"format_file":       {capabilities.CapLSP, capabilities.CapFileIO},
	"code_actions":      {capabilities.CapLSP, capabilities.CapFileIO},
	"apply_code_action": {capabilities.CapLSP, capabilities.CapFileIO},
	// skill: the files its instructions name are read with get_file; it
	// is offered only where there are skills (skillTool.OfferedIn).
	"skill": {capabilities.CapFileIO},
	// yield_to_parent needs nothing: only sub-agents' registries hold it.
	"spawn_subagents":    {capabilities.CapThreads},
	"wait_for_subagents": {capabilities.CapThreads},
}

// Needs returns what the named tool needs from the environment.
func (r *Registry) Needs(name string) []capabilities.Capability {
	if t, ok := r.Tool(name); ok {
		if n, ok := t.(Needer); ok {
			return n.Needs()
		}
	}
	return builtinNeeds[name]
}

// OfferedIn lists, sorted by name, the specs of the tools whose needs env
// meets now. It is computed for every request, so tools appear and
// disappear as the environment changes (a language server starting).
func (r *Registry) OfferedIn(env *capabilities.Environment) []Spec {
	specs := make([]Spec, 0, len(r.tools))
	for name, t := range r.tools {
		if env != nil && !meets(env, r.Needs(name)) {
			continue
		}
		if o, ok := t.(Offerer); ok && env != nil && !o.OfferedIn(env) {
			continue
		}
		specs = append(specs, specIn(t, env))
	}
	for _, t := range r.provided() {
		if n, ok := t.(Needer); ok && env != nil && !meets(env, n.Needs()) {
			continue
		}
		specs = append(specs, t.Spec())
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs
}

func meets(env *capabilities.Environment, needs []capabilities.Capability) bool {
	for _, c := range needs {
		if !env.Has(c) {
			return false
		}
	}
	return true
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
	t, ok := r.Tool(name)
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
	for n := range r.provided() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
