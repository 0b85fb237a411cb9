package hooks

import "strings"

// Listed is one hook as :Magenta hooks shows it.
type Listed struct {
	Event   string  `msgpack:"event"`
	Matcher string  `msgpack:"matcher"`
	Command string  `msgpack:"command"`
	Timeout float64 `msgpack:"timeout"` // seconds
	Source  string  `msgpack:"source"`
	// Active: it runs on its event now (setup()'s always; the
	// workspace's while trusted).
	Active bool `msgpack:"active"`
	// Note says what else to know ("Claude Code's Bash is bash_command
	// here").
	Note string `msgpack:"note"`
}

// Listing is what :Magenta hooks shows: every hook and its source,
// where the workspace's files stand, and what magenta does not run.
type Listing struct {
	Hooks   []Listed `msgpack:"hooks"`
	Project Status   `msgpack:"project"`
	Ignored []string `msgpack:"ignored"`
}

// claudeTools are Claude Code's tool names that have a magenta
// counterpart under another name: a matcher written for Claude Code
// matches nothing here, which the listing says.
var claudeTools = map[string]string{
	"Bash": "bash_command", "Edit": "edit_file", "MultiEdit": "edit_file", "Write": "write_file",
	"Read": "get_file", "Grep": "grep", "Glob": "grep", "WebFetch": "web_fetch", "Task": "spawn_subagents",
}

// List says what runs, from where.
func (e *Engine) List() Listing {
	out := Listing{Hooks: []Listed{}, Ignored: []string{}, Project: Status{State: StateOff, Files: []string{}}}
	s := e.setup.Load()
	for _, h := range s.hooks {
		out.Hooks = append(out.Hooks, listed(h, true))
	}
	out.Ignored = append(out.Ignored, s.ignored...)
	if g := e.opts.Gate; g != nil {
		out.Project = g.Status()
		hooks, ignored := g.Read()
		trusted := out.Project.State == StateTrusted
		for _, h := range hooks {
			out.Hooks = append(out.Hooks, listed(h, trusted))
		}
		out.Ignored = append(out.Ignored, ignored...)
	}
	return out
}

func listed(h Hook, active bool) Listed {
	l := Listed{Event: string(h.Event), Matcher: h.Matcher, Command: h.Command, Timeout: h.Timeout.Seconds(), Source: h.Source, Active: active}
	if h.Event == PreToolUse || h.Event == PostToolUse {
		var named []string
		for _, name := range strings.Split(h.Matcher, "|") {
			if ours, ok := claudeTools[name]; ok && h.match.names != nil {
				named = append(named, "Claude Code's "+name+" is "+ours+" here")
			}
		}
		if len(named) > 0 {
			l.Note = "matches no magenta tool by that name: " + strings.Join(named, ", ")
		}
	}
	return l
}
