package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/edit"
)

// EditDiffContext is how many unchanged lines the chat's diff shows
// around a change.
const EditDiffContext = 2

// FileChangeMaxBytes caps the file edit_file changes and write_file
// replaces: the file is held in memory a few times over (old, new, the
// diff), so a larger one is refused after a stat, before it is read.
const FileChangeMaxBytes = 10 << 20

// fileChangeTemplate is the data of the edit_file and write_file
// descriptions: the size cap, and the bounds of the diagnostics check
// pkg/lspverify adds to their results.
var fileChangeTemplate = map[string]any{
	"MaxMB":       FileChangeMaxBytes >> 20,
	"VerifyWait":  capabilities.LSPVerifyWait.String(),
	"VerifyLines": capabilities.LSPVerifyMaxLines,
}

//go:embed edit_file.md
var editFileDescription string

// EditFileParams is the input of edit_file.
type EditFileParams struct {
	Path       string `json:"path" jsonschema:"the file to edit, relative to the workspace root"`
	OldString  string `json:"old_string" jsonschema:"the exact text to replace"`
	NewString  string `json:"new_string" jsonschema:"the text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of requiring exactly one"`
}

type fileTool struct{ Tool }

// Describe implements Describer: the path.
func (*fileTool) Describe(input []byte) (string, string) {
	var p struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(input, &p) != nil {
		return "", ""
	}
	return p.Path, ""
}

// EditFile returns the edit_file tool.
func EditFile() Tool {
	return &fileTool{MustTyped("edit_file", editFileDescription, fileChangeTemplate, runEditFile)}
}

// editError is edit.Apply's refusal, told apart from the FileIO's errors.
type editError struct{ err error }

func (e editError) Error() string { return e.err.Error() }

// runEditFile reads, edits and writes the file as one Update, so edits of
// one file running at once (all tool calls of a reply start together)
// apply one after the other instead of overwriting each other.
func runEditFile(ctx context.Context, call Call, p EditFileParams) Result {
	if call.Env == nil || call.Env.Files == nil {
		return Errorf("this environment cannot edit files")
	}
	path := resolveToolPath(call.Env, p.Path)
	var before, after string
	var count int
	err := call.Env.Files.Update(ctx, path, FileChangeMaxBytes, func(old []byte) ([]byte, error) {
		before = string(old)
		var err error
		if after, count, err = edit.Apply(before, p.OldString, p.NewString, p.ReplaceAll); err != nil {
			return nil, editError{err}
		}
		return []byte(after), nil
	})
	var refused editError
	switch {
	case errors.Is(err, capabilities.ErrNotExist):
		return Errorf(fmt.Sprintf("%s does not exist; create it with write_file", path))
	case errors.As(err, &refused):
		return Errorf(fmt.Sprintf("%s was not changed: %v", path, refused.err))
	case err != nil:
		return fileOpError(opEdit, path, err)
	}
	return changeResult(call, path, before, after, fmt.Sprintf("Edited %s (%d replacement%s).", path, count, plural(count)))
}

// changeResult tells the model what changed and gives the chat a diff and
// the first changed line to jump to.
func changeResult(call Call, path, before, after, text string) Result {
	rel := path
	if r, err := filepath.Rel(call.Env.Cwd, path); err == nil && !strings.HasPrefix(r, "..") {
		rel = r
	}
	diff := edit.Diff(rel, before, after, EditDiffContext)
	added, removed := diffStats(diff)
	return Result{
		Text:    text,
		Summary: fmt.Sprintf("%s +%d -%d", rel, added, removed),
		Diff:    diff,
		Location: &Location{
			Path: path, Line: firstChangedLine(before, after),
		},
	}
}

func diffStats(diff string) (added, removed int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// firstChangedLine is the 1-based line where before and after first
// differ.
func firstChangedLine(before, after string) int {
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	for i := 0; i < len(b) && i < len(a); i++ {
		if b[i] != a[i] {
			return i + 1
		}
	}
	return min(len(b), len(a)) + 1
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
