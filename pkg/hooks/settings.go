package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Event is a hook event magenta runs.
type Event string

// The events magenta runs, with Claude Code's names and meaning.
const (
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	UserPromptSubmit Event = "UserPromptSubmit"
	Stop             Event = "Stop"
	SessionStart     Event = "SessionStart"
)

// Events are the events magenta runs, in the order they are listed.
var Events = []Event{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop}

// known reports whether name is an event magenta runs.
func known(name string) (Event, bool) {
	for _, e := range Events {
		if string(e) == name {
			return e, true
		}
	}
	return "", false
}

// DefaultTimeout is a hook's timeout when it names none (Claude Code's).
const DefaultTimeout = 60 * time.Second

// MaxTimeout bounds a hook's timeout: a longer one is cut to it (a
// hook that may hold a tool call for hours is a mistake, and a huge
// number of seconds would overflow a time.Duration).
const MaxTimeout = time.Hour

// SourceSetup is the source of the hooks given to setup(); a workspace
// file's hooks have the file's path relative to the workspace.
const SourceSetup = "setup"

// The workspace files whose "hooks" magenta reads, as Claude Code does,
// relative to the workspace.
const (
	SettingsFile      = ".claude/settings.json"
	LocalSettingsFile = ".claude/settings.local.json"
)

// Handler is one entry of a group's "hooks" list as written. Only
// "command" handlers run; fields magenta does not use are ignored.
type Handler struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Timeout float64 `json:"timeout,omitempty"`
}

// Group is one entry of an event's list: a matcher and its handlers.
type Group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []Handler `json:"hooks"`
}

// Settings is the "hooks" object of Claude Code's settings files, event
// name → groups; setup()'s hooks option has the same shape. It is the
// schema the option checks agree on (pkg/host/options_schema_test.go);
// Parse reads it with better errors than decoding into it would give.
type Settings map[string][]Group

// Hook is one command to run on an event.
type Hook struct {
	Event Event
	// Matcher is as written ("" for every tool); for SessionStart it is
	// matched against the source ("startup", "resume"), and
	// UserPromptSubmit and Stop ignore it, as Claude Code does.
	Matcher string
	Command string
	Timeout time.Duration
	// Source is SourceSetup or the file the hook comes from.
	Source string
	match  matcher
}

// Matches reports whether h runs for subject (a tool name, or a
// SessionStart source).
func (h Hook) Matches(subject string) bool {
	if h.Event == UserPromptSubmit || h.Event == Stop {
		return true
	}
	return h.match.matches(subject)
}

// ParseOption reads setup()'s hooks option (an object of events). An
// event magenta does not run is left out and named in ignored; any
// other problem is an error naming the option.
func ParseOption(raw json.RawMessage) (hooks []Hook, ignored []string, err error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil, nil
	}
	return parseEvents(raw, "hooks", SourceSetup, true)
}

// ParseFile reads the hooks of a Claude Code settings file (source is
// its name): its "hooks" object, every other key ignored. Events and
// handler types magenta does not run are left out and named in ignored,
// so a file written for Claude Code still runs what magenta can.
func ParseFile(data []byte, source string) (hooks []Hook, ignored []string, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fmt.Errorf("not a JSON object: %s", describe(err))
	}
	if top == nil {
		return nil, nil, errors.New("not a JSON object")
	}
	raw, ok := top["hooks"]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil, nil
	}
	return parseEvents(raw, "hooks", source, false)
}

// parseEvents reads an object of events. strict: a handler type other
// than "command" is an error (setup()), not a note (a file written for
// Claude Code may hold prompt or HTTP hooks).
func parseEvents(raw json.RawMessage, where, source string, strict bool) ([]Hook, []string, error) {
	var events map[string]json.RawMessage
	if err := json.Unmarshal(raw, &events); err != nil || events == nil {
		return nil, nil, fmt.Errorf("%s: must be an object of events (PreToolUse, …), each a list of {matcher, hooks}", where)
	}
	names := make([]string, 0, len(events))
	for name := range events {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		return eventRank(names[i]) < eventRank(names[j]) || eventRank(names[i]) == eventRank(names[j]) && names[i] < names[j]
	})
	var out []Hook
	var ignored []string
	for _, name := range names {
		ev, ok := known(name)
		if !ok {
			ignored = append(ignored, fmt.Sprintf("%s.%s: magenta does not run %s hooks (it runs %s)", where, name, name, eventList()))
			continue
		}
		hs, ig, err := parseGroups(events[name], where+"."+name, ev, source, strict)
		if err != nil {
			return nil, nil, err
		}
		out, ignored = append(out, hs...), append(ignored, ig...)
	}
	return out, ignored, nil
}

func eventRank(name string) int {
	for i, e := range Events {
		if string(e) == name {
			return i
		}
	}
	return len(Events)
}

func eventList() string {
	names := make([]string, len(Events))
	for i, e := range Events {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

func parseGroups(raw json.RawMessage, where string, ev Event, source string, strict bool) ([]Hook, []string, error) {
	var groups []json.RawMessage
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, nil, fmt.Errorf("%s: must be a list of {matcher, hooks}", where)
	}
	var out []Hook
	var ignored []string
	for i, g := range groups {
		at := fmt.Sprintf("%s[%d]", where, i+1)
		var group struct {
			Matcher  *string           `json:"matcher"`
			Handlers []json.RawMessage `json:"hooks"`
		}
		if err := json.Unmarshal(g, &group); err != nil {
			return nil, nil, fmt.Errorf("%s: %s", at, describe(err))
		}
		if group.Handlers == nil {
			return nil, nil, fmt.Errorf("%s.hooks: is required (a list of {type = \"command\", command})", at)
		}
		matcher := ""
		if group.Matcher != nil {
			matcher = *group.Matcher
		}
		m, err := compileMatcher(matcher)
		if err != nil {
			return nil, nil, fmt.Errorf("%s.matcher: %v", at, err)
		}
		for j, h := range group.Handlers {
			hat := fmt.Sprintf("%s.hooks[%d]", at, j+1)
			hook, note, err := parseHandler(h, hat, strict)
			if err != nil {
				return nil, nil, err
			}
			if note != "" {
				ignored = append(ignored, note)
				continue
			}
			hook.Event, hook.Matcher, hook.Source, hook.match = ev, matcher, source, m
			out = append(out, hook)
		}
	}
	return out, ignored, nil
}

func parseHandler(raw json.RawMessage, where string, strict bool) (Hook, string, error) {
	var h struct {
		Type    *string  `json:"type"`
		Command *string  `json:"command"`
		Timeout *float64 `json:"timeout"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return Hook{}, "", fmt.Errorf("%s: %s", where, describe(err))
	}
	if h.Type != nil && *h.Type != "command" {
		if strict {
			return Hook{}, "", fmt.Errorf("%s.type: %q is not \"command\", the one type magenta runs", where, *h.Type)
		}
		return Hook{}, fmt.Sprintf("%s: magenta runs only \"command\" hooks, not %q", where, *h.Type), nil
	}
	if h.Command == nil || strings.TrimSpace(*h.Command) == "" {
		return Hook{}, "", fmt.Errorf("%s.command: must be a non-empty string", where)
	}
	timeout := DefaultTimeout
	if h.Timeout != nil {
		secs := *h.Timeout
		if secs <= 0 || math.IsNaN(secs) {
			return Hook{}, "", fmt.Errorf("%s.timeout: must be a positive number of seconds", where)
		}
		timeout = MaxTimeout
		if secs < MaxTimeout.Seconds() {
			timeout = max(time.Duration(secs*float64(time.Second)), time.Millisecond)
		}
	}
	return Hook{Command: *h.Command, Timeout: timeout}, "", nil
}

// describe is a JSON decoding error without Go's type names.
func describe(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := map[string]string{"string": "a string", "float64": "a number", "[]json.RawMessage": "a list"}[te.Type.String()]
		if want == "" {
			want = "an object"
		}
		if te.Field != "" {
			return fmt.Sprintf("%s: must be %s, not a JSON %s", te.Field, want, te.Value)
		}
		return fmt.Sprintf("must be %s, not a JSON %s", want, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	return err.Error()
}
