package hooks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/mcp/project"
)

// Question is the subject of the trust question: the files, what changed
// since the last trust, then every hook verbatim — event, matcher,
// command (escaped so nothing is hidden: project.Visible), timeout,
// file — with the workspace scripts it runs, and what magenta leaves
// out.
func Question(files []string, hooks []Hook, ignored []string, fp project.Fingerprint, changed []string) string {
	lines := []string{strings.Join(visibleAll(files), ", ")}
	if len(changed) > 0 {
		lines = append(lines, "changed since you trusted them:")
		for _, c := range changed {
			lines = append(lines, "  ! "+c)
		}
	}
	for _, h := range hooks {
		lines = append(lines, Describe(h))
	}
	var runs []string
	for k, state := range fp.Runs {
		runs = append(runs, fmt.Sprintf("  runs %s (%s)", project.Visible(strings.TrimPrefix(k, "script ")), shortState(state)))
	}
	sort.Strings(runs)
	lines = append(lines, runs...)
	for _, n := range ignored {
		lines = append(lines, "  not run by magenta: "+n)
	}
	return strings.Join(lines, "\n")
}

// Describe is one hook as the question and :Magenta hooks show it:
// "PreToolUse bash_command|edit_file: <command> (timeout 60s,
// .claude/settings.json)".
func Describe(h Hook) string {
	head := string(h.Event)
	switch {
	case h.Event == UserPromptSubmit || h.Event == Stop:
	case h.Matcher == "" || h.Matcher == "*":
		if h.Event == SessionStart {
			head += " (every start)"
		} else {
			head += " (every tool)"
		}
	default:
		head += " " + project.Visible(h.Matcher)
	}
	return fmt.Sprintf("%s: %s (timeout %s, %s)", head, project.Visible(h.Command), h.Timeout, h.Source)
}

func visibleAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = project.Visible(s)
	}
	return out
}

// shortState is a script's state with its hash shortened.
func shortState(state string) string {
	if rest, ok := strings.CutPrefix(state, "sha256:"); ok && len(rest) > 12 {
		return "sha256 " + rest[:12] + "…"
	}
	return state
}

// reason is the question's reason, below the hooks: what YES lets run,
// how, and how long an answer holds.
func reason(how string, changed bool) string {
	what := "this workspace's Claude Code settings run these commands"
	if changed {
		what = "what this workspace's Claude Code settings run changed since you trusted them (above); they run these commands"
	}
	if how != "" {
		how = " — " + how
	}
	return what + " on the events of every local thread (your messages, tool calls, the agent stopping)" + how +
		"; run them? (YES is remembered for this workspace until the hooks or the scripts they name change, NO until Neovim exits; :Magenta hooks-trust / hooks-untrust change it)"
}
