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

//go:embed edit_file.md
var editFileDescription string

//go:embed write_file.md
var writeFileDescription string

// EditFileParams is the input of edit_file.
type EditFileParams struct {
	Path       string `json:"path" jsonschema:"the file to edit, relative to the workspace root"`
	OldString  string `json:"old_string" jsonschema:"the exact text to replace"`
	NewString  string `json:"new_string" jsonschema:"the text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of requiring exactly one"`
}

// WriteFileParams is the input of write_file.
type WriteFileParams struct {
	Path    string `json:"path" jsonschema:"the file to write, relative to the workspace root"`
	Content string `json:"content" jsonschema:"the whole new content of the file"`
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
	return &fileTool{MustTyped("edit_file", editFileDescription, nil, runEditFile)}
}

// WriteFile returns the write_file tool.
func WriteFile() Tool {
	return &fileTool{MustTyped("write_file", writeFileDescription, nil, runWriteFile)}
}

func runEditFile(ctx context.Context, call Call, p EditFileParams) Result {
	if call.Env == nil || call.Env.Files == nil {
		return Errorf("this environment cannot edit files")
	}
	path := resolveToolPath(call.Env, p.Path)
	before, err := call.Env.Files.ReadFile(ctx, path)
	if errors.Is(err, capabilities.ErrNotExist) {
		return Errorf(fmt.Sprintf("%s does not exist; create it with write_file", path))
	}
	if err != nil {
		return fileError(path, err)
	}
	after, count, err := edit.Apply(string(before), p.OldString, p.NewString, p.ReplaceAll)
	if err != nil {
		return Errorf(fmt.Sprintf("%s was not changed: %v", path, err))
	}
	if err := call.Env.Files.WriteFile(ctx, path, []byte(after)); err != nil {
		return fileError(path, err)
	}
	return changeResult(call, path, string(before), after, fmt.Sprintf("Edited %s (%d replacement%s).", path, count, plural(count)))
}

func runWriteFile(ctx context.Context, call Call, p WriteFileParams) Result {
	if call.Env == nil || call.Env.Files == nil {
		return Errorf("this environment cannot write files")
	}
	path := resolveToolPath(call.Env, p.Path)
	var before []byte
	existed, err := call.Env.Files.Exists(ctx, path)
	if err != nil {
		return fileError(path, err)
	}
	if existed {
		if before, err = call.Env.Files.ReadFile(ctx, path); err != nil {
			return fileError(path, err)
		}
	} else if err := call.Env.Files.MkdirAll(ctx, filepath.Dir(path)); err != nil {
		return fileError(filepath.Dir(path), err)
	}
	if err := call.Env.Files.WriteFile(ctx, path, []byte(p.Content)); err != nil {
		return fileError(path, err)
	}
	verb := "Created"
	if existed {
		verb = "Wrote"
	}
	n := strings.Count(p.Content, "\n")
	return changeResult(call, path, string(before), p.Content, fmt.Sprintf("%s %s (%d line%s).", verb, path, n, plural(n)))
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
