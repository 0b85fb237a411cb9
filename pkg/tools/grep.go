package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// What grep returns.
const (
	GrepMaxMatches = 100
	GrepLineChars  = 2000
	GrepMaxContext = 10
	GrepTimeout    = 30 * time.Second
)

// grepSecretsNote tells the model why files are missing and how the user
// can let it see one (get_file asks the user for secrets).
const (
	grepSecretsHint = "To look at one, read it with get_file: the user is asked to approve it."
	grepSecretsNote = "%d files that may hold secrets (.env*, *.pem, *.key, id_rsa*, credentials, .ssh/ …) were not searched. " + grepSecretsHint
)

// secretInWorkspace names the secret component of path below the
// workspace cwd ("" when none, or when path is outside it: that search
// asks the user anyway), as the file guard judges reads.
func secretInWorkspace(cwd, path string) string {
	rel, err := filepath.Rel(cwd, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return secrets.InPath(rel)
}

//go:embed grep.md
var grepDescription string

// GrepParams is the input of grep.
type GrepParams struct {
	Pattern      string `json:"pattern" jsonschema:"the regular expression to search for"`
	Path         string `json:"path,omitempty" jsonschema:"file or directory to search (default: the workspace root)"`
	Include      string `json:"include,omitempty" jsonschema:"only search files matching this glob, e.g. *.go"`
	IgnoreCase   bool   `json:"ignoreCase,omitempty" jsonschema:"match case-insensitively"`
	FixedStrings bool   `json:"fixedStrings,omitempty" jsonschema:"treat the pattern as a literal string"`
	Context      int    `json:"context,omitempty" jsonschema:"lines of context around each match"`
}

type grepTool struct{ Tool }

// Grep returns the grep tool.
func Grep() Tool {
	data := map[string]any{"MaxMatches": GrepMaxMatches, "LineChars": GrepLineChars, "MaxContext": GrepMaxContext, "Timeout": GrepTimeout.String()}
	return &grepTool{Tool: MustTyped("grep", grepDescription, data, runGrep)}
}

// Describe implements Describer.
func (*grepTool) Describe(input []byte) (string, string) {
	var p GrepParams
	if json.Unmarshal(input, &p) != nil {
		return "", ""
	}
	where := p.Path
	if where == "" {
		where = "."
	}
	return fmt.Sprintf("%q in %s", p.Pattern, where), ""
}

func runGrep(ctx context.Context, call Call, p GrepParams) Result {
	if p.Pattern == "" {
		return Errorf("pattern must not be empty")
	}
	if p.Context < 0 || p.Context > GrepMaxContext {
		return Errorf(fmt.Sprintf("context must be between 0 and %d", GrepMaxContext))
	}
	if call.Env == nil || call.Env.Searcher == nil {
		return Errorf("this environment cannot search files")
	}
	path := resolveToolPath(call.Env, p.Path)
	if name := secretInWorkspace(call.Env.Cwd, path); name != "" {
		return Result{Text: fmt.Sprintf("%s was not searched: it may hold secrets (%s). %s", p.Path, name, grepSecretsHint), Summary: "not searched: may hold secrets"}
	}
	res, err := call.Env.Searcher.Search(ctx, capabilities.SearchRequest{
		ThreadID: call.ThreadID, RequestID: call.ID,
		Pattern: p.Pattern, Path: path, Include: p.Include,
		IgnoreCase: p.IgnoreCase, FixedStrings: p.FixedStrings, Context: p.Context,
		MaxMatches: GrepMaxMatches, Timeout: GrepTimeout,
	})
	var denied *capabilities.DeniedError
	if errors.As(err, &denied) {
		return Result{Text: "The search was not run: " + denied.Reason + ".", IsError: true, Summary: "not run: " + denied.Reason}
	}
	if err != nil {
		return Errorf("grep could not run: " + err.Error())
	}
	text, summary := FormatGrep(res, p.Pattern, path)
	return Result{Text: text, Summary: summary, IsError: res.Matches == 0 && len(res.Errors) > 0}
}

// FormatGrep renders a search result for the model, and a one-line
// summary for the chat.
func FormatGrep(res *capabilities.SearchResult, pattern, path string) (text, summary string) {
	var b strings.Builder
	for _, f := range res.Files {
		b.WriteString(f.Path + "\n")
		for _, l := range f.Lines {
			sep := ":"
			if !l.Match {
				sep = "-"
			}
			fmt.Fprintf(&b, "%d%s %s\n", l.Number, sep, cutMiddle(l.Text, GrepLineChars))
		}
	}
	switch {
	case res.Matches == 0 && len(res.Errors) == 0 && !res.TimedOut:
		fmt.Fprintf(&b, "No matches for %q in %s.\n", pattern, path)
	case res.Truncated:
		fmt.Fprintf(&b, "(showing the first %d matches; there are more: narrow the pattern, the path or include)\n", res.Matches)
	}
	if res.TimedOut {
		fmt.Fprintf(&b, "The search timed out after %s; the results are incomplete.\n", GrepTimeout)
	}
	if res.SecretsSkipped > 0 {
		fmt.Fprintf(&b, grepSecretsNote+"\n", res.SecretsSkipped)
	}
	if len(res.Errors) > 0 {
		b.WriteString("Errors:\n")
		for _, e := range res.Errors {
			b.WriteString("  " + e + "\n")
		}
	}
	matches := "matches"
	if res.Matches == 1 {
		matches = "match"
	}
	summary = fmt.Sprintf("%d %s in %d file%s", res.Matches, matches, len(res.Files), plural(len(res.Files)))
	if res.Truncated {
		summary = fmt.Sprintf("%d+ matches (first %d shown)", res.Matches, res.Matches)
	}
	if res.Matches == 0 {
		summary = "no matches"
	}
	if res.SecretsSkipped > 0 {
		summary += fmt.Sprintf(" (%d secret file%s not searched)", res.SecretsSkipped, plural(res.SecretsSkipped))
	}
	return strings.TrimRight(b.String(), "\n"), summary
}

// resolveToolPath makes a tool's path argument absolute: relative to the
// environment's cwd, with a leading ~ expanded to the home directory.
func resolveToolPath(env *capabilities.Environment, p string) string {
	switch {
	case p == "":
		return env.Cwd
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home, err := userHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(env.Cwd, p)
}
