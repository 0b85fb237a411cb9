package lspverify

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Delta is what an edit changed in a file's diagnostics.
type Delta struct {
	// Introduced are in the text after the edit and were not before it;
	// Fixed were before it and are not after. Fixed keep their position
	// in the text before the edit.
	Introduced, Fixed []capabilities.Diagnostic
}

// Empty reports whether the edit changed no diagnostic.
func (d Delta) Empty() bool { return len(d.Introduced) == 0 && len(d.Fixed) == 0 }

// key is what makes two reports the same diagnostic, wherever it is.
type key struct{ severity, message, source, server string }

func keyOf(d capabilities.Diagnostic) key {
	return key{d.Severity, d.Message, d.Source, d.Server}
}

// Compare matches the diagnostics before an edit with those after it: one
// before and one after are the same diagnostic when severity, message,
// source and server agree and the edit moved the first's line to the
// second's (lines maps them; a diagnostic on a line the edit changed may
// be anywhere in what that change became). Matching counts: two equal
// diagnostics before and one after leave one fixed. A diagnostic whose
// message is repeated elsewhere is not matched to that elsewhere: an
// error fixed on one line and made on another is both.
func Compare(before, after []capabilities.Diagnostic, lines LineMap) Delta {
	groups := map[key][]int{} // after's indices by key
	for i, d := range after {
		k := keyOf(d)
		groups[k] = append(groups[k], i)
	}
	used := make([]bool, len(after))
	matched := make([]bool, len(before))
	// Exact positions first (an unchanged line, the same column when
	// there is a choice), so a changed region's wider span cannot take a
	// diagnostic that has an exact partner.
	for pass := 0; pass < 2; pass++ {
		for i, b := range before {
			if matched[i] {
				continue
			}
			lo, hi := lines.Map(b.Line)
			if pass == 0 && lo != hi {
				continue
			}
			best := -1
			for _, j := range groups[keyOf(b)] {
				a := after[j]
				if used[j] || a.Line < lo || a.Line > hi {
					continue
				}
				if best < 0 || (a.Col == b.Col && after[best].Col != b.Col) {
					best = j
				}
			}
			if best >= 0 {
				used[best], matched[i] = true, true
			}
		}
	}
	var d Delta
	for i, b := range before {
		if !matched[i] {
			d.Fixed = append(d.Fixed, b)
		}
	}
	for j, a := range after {
		if !used[j] {
			d.Introduced = append(d.Introduced, a)
		}
	}
	sortDiagnostics(d.Introduced)
	sortDiagnostics(d.Fixed)
	return d
}

// severityRank orders errors first.
func severityRank(s string) int {
	switch s {
	case "error":
		return 0
	case "warning":
		return 1
	case "info":
		return 2
	}
	return 3
}

func sortDiagnostics(ds []capabilities.Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if ra, rb := severityRank(a.Severity), severityRank(b.Severity); ra != rb {
			return ra < rb
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// maxMessage caps one diagnostic's message: the list is read in a tool
// result, and a compiler's note can run to pages.
const maxMessage = 300

// Lines formats the delta for the model and the user, introduced then
// fixed, errors first within each, at most maxLines diagnostics (the rest
// counted on a last line). Each is "path:line:col severity message
// (source)", 1-based, the path relative to cwd when below it. Nil when
// the delta is empty.
func (d Delta) Lines(cwd string, maxLines int) []string {
	if d.Empty() {
		return nil
	}
	out := []string{header(len(d.Introduced), len(d.Fixed))}
	shown := 0
	for _, part := range []struct {
		label string
		list  []capabilities.Diagnostic
	}{{"introduced", d.Introduced}, {"fixed", d.Fixed}} {
		for _, diag := range part.list {
			if shown == maxLines {
				break
			}
			out = append(out, part.label+": "+Format(cwd, diag))
			shown++
		}
	}
	if rest := len(d.Introduced) + len(d.Fixed) - shown; rest > 0 {
		moreIntroduced := max(len(d.Introduced)-shown, 0)
		out = append(out, fmt.Sprintf("… and %d more (%d introduced, %d fixed)", rest, moreIntroduced, rest-moreIntroduced))
	}
	return out
}

func header(introduced, fixed int) string {
	var parts []string
	if introduced > 0 {
		parts = append(parts, fmt.Sprintf("%d introduced", introduced))
	}
	if fixed > 0 {
		parts = append(parts, fmt.Sprintf("%d fixed", fixed))
	}
	return "Diagnostics after this edit: " + strings.Join(parts, ", ")
}

// Format is one diagnostic as "path:line:col severity message (source)".
func Format(cwd string, d capabilities.Diagnostic) string {
	msg := strings.Join(strings.Fields(d.Message), " ") // one line
	if r := []rune(msg); len(r) > maxMessage {
		msg = string(r[:maxMessage]) + "…"
	}
	s := fmt.Sprintf("%s:%d:%d %s %s", relPath(cwd, d.Path), d.Line+1, d.Col+1, d.Severity, msg)
	if d.Source != "" {
		s += " (" + d.Source + ")"
	}
	return s
}

func relPath(cwd, p string) string {
	if r, err := filepath.Rel(cwd, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		return r
	}
	return p
}
