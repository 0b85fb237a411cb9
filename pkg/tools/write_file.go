package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

//go:embed write_file.md
var writeFileDescription string

// WriteFileParams is the input of write_file.
type WriteFileParams struct {
	Path    string `json:"path" jsonschema:"the file to write, relative to the workspace root"`
	Content string `json:"content" jsonschema:"the whole new content of the file"`
}

// WriteFile returns the write_file tool.
func WriteFile() Tool {
	return &fileTool{MustTyped("write_file", writeFileDescription, fileChangeTemplate, runWriteFile)}
}

// runWriteFile replaces an existing file in one Update (so the diff shows
// what it replaced, not what some other call left) and creates a missing
// one with its directories.
func runWriteFile(ctx context.Context, call Call, p WriteFileParams) Result {
	if call.Env == nil || call.Env.Files == nil {
		return Errorf("this environment cannot write files")
	}
	path := resolveToolPath(call.Env, p.Path)
	var before string
	existed := true
	err := call.Env.Files.Update(ctx, path, FileChangeMaxBytes, func(old []byte) ([]byte, error) {
		before = string(old)
		return []byte(p.Content), nil
	})
	if errors.Is(err, capabilities.ErrNotExist) {
		existed = false
		if err := call.Env.Files.MkdirAll(ctx, filepath.Dir(path)); err != nil {
			return fileOpError(opWrite, filepath.Dir(path), err)
		}
		err = call.Env.Files.WriteFile(ctx, path, []byte(p.Content))
	}
	if err != nil {
		return fileOpError(opWrite, path, err)
	}
	verb := "Created"
	if existed {
		verb = "Wrote"
	}
	n := strings.Count(p.Content, "\n")
	return changeResult(call, path, before, p.Content, fmt.Sprintf("%s %s (%d line%s).", verb, path, n, plural(n)))
}
