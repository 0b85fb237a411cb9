package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// script is a workspace file a hook's command names, and its state when
// read: "sha256:…", "missing", or "size … modified …" for one too big to
// hash. The trust covers these: the agent may write workspace files, so
// a script it rewrote is not what the user trusted.
type script struct {
	Path  string // relative to the workspace
	State string
}

// maxHashed bounds the files hashed whole; a bigger one is known by its
// size and time.
const maxHashed = 1 << 20

// scripts finds the workspace files command runs: in every simple
// command (after $CLAUDE_PROJECT_DIR, the one variable expanded), the
// program when it is a path — `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`,
// `./lint.sh` — and the script an interpreter (bash, sh, python…, node,
// …) or `source` is given — `python3 tools/x.py` —, when inside ws. One
// that does not exist is recorded as missing, so one planted later is a
// change. Arguments that are data (`touch $CLAUDE_PROJECT_DIR/log`) are
// not scripts, and programs found on PATH outside the workspace are not
// covered (see doc.go). Sorted by path.
func scripts(command, ws string) []script {
	seen := map[string]bool{}
	var out []script
	for _, w := range runWords(command, ws) {
		if w == "" || strings.ContainsRune(w, 0) {
			continue
		}
		abs := w
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(ws, w)
		}
		abs = filepath.Clean(abs)
		rel, err := filepath.Rel(ws, abs)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || seen[rel] {
			continue
		}
		state, _ := fileState(abs)
		if state == "" {
			continue // a directory
		}
		seen[rel] = true
		out = append(out, script{Path: rel, State: state})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// runWords are the words of command that name what runs (see scripts),
// with $CLAUDE_PROJECT_DIR expanded to ws; a word that needs anything
// else to expand (another variable, a command substitution) is skipped.
// A command that does not parse gives nothing.
func runWords(command, ws string) (words []string) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil || f == nil {
		return nil
	}
	cfg := &expand.Config{
		Env:       expand.ListEnviron("CLAUDE_PROJECT_DIR=" + ws),
		NoUnset:   true,
		ProcSubst: func(*syntax.ProcSubst) (string, error) { return "", errors.New("no process substitution") },
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			words = append(words, callScripts(cfg, call.Args)...)
		}
		return true
	})
	return words
}

// callScripts is what one simple command runs from a path: its program
// (after env, exec, command, nohup and env's VAR=value) when that is a
// path, and an interpreter's script.
func callScripts(cfg *expand.Config, args []*syntax.Word) []string {
	i := 0
	for ; i < len(args); i++ {
		w, ok := literal(cfg, args[i])
		if !ok {
			return nil
		}
		if !wrapper(w) && !strings.Contains(w, "=") {
			break
		}
	}
	if i >= len(args) {
		return nil
	}
	prog, _ := literal(cfg, args[i])
	var out []string
	if strings.Contains(prog, "/") {
		out = append(out, prog)
	}
	if base := filepath.Base(prog); !interpreter(base) && base != "source" && base != "." {
		return out
	}
	for _, a := range args[i+1:] {
		w, ok := literal(cfg, a)
		if !ok || w == "-c" || w == "-m" || w == "-e" {
			break // inline code: no script
		}
		if !strings.HasPrefix(w, "-") {
			return append(out, w)
		}
	}
	return out
}

// wrapper is a program that runs the next word as the program.
func wrapper(w string) bool {
	switch w {
	case "env", "exec", "command", "nohup", "time", "nice":
		return true
	}
	return false
}

// interpreter reports whether the named program runs a script it is
// given as an argument.
func interpreter(name string) bool {
	switch name {
	case "bash", "sh", "dash", "zsh", "ksh", "fish", "node", "nodejs", "deno", "bun", "tsx", "ts-node",
		"ruby", "perl", "php", "lua", "Rscript", "pwsh":
		return true
	}
	return strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy")
}

// literal expands one word, never panicking.
func literal(cfg *expand.Config, w *syntax.Word) (s string, ok bool) {
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	s, err := expand.Literal(cfg, w)
	return s, err == nil
}

// fileState is the state recorded for path: ok false when it does not
// exist; "" for a directory or anything that is not a regular file.
func fileState(path string) (state string, ok bool) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return "missing", false
	}
	if err != nil {
		return "unreadable: " + err.Error(), true
	}
	if !fi.Mode().IsRegular() {
		return "", true
	}
	if fi.Size() > maxHashed {
		return fmt.Sprintf("size %d modified %s", fi.Size(), fi.ModTime().UTC().Format("2006-01-02T15:04:05.000000000Z")), true
	}
	f, err := os.Open(path)
	if err != nil {
		return "unreadable: " + err.Error(), true
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxHashed+1)); err != nil {
		return "unreadable: " + err.Error(), true
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), true
}
