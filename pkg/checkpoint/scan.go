package checkpoint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// scanDirs finds the FIFOs, sockets and devices that git's walk passes
// over in silence, in the directories dirs (minus those in done), by
// directory entry type alone: nothing is opened or even stat'ed.
func scanDirs(ws string, dirs, done map[string]bool) map[string]string {
	found := map[string]string{}
	for d := range dirs {
		if done[d] {
			continue
		}
		ents, err := os.ReadDir(filepath.Join(ws, filepath.FromSlash(d)))
		if err != nil {
			continue
		}
		for _, e := range ents {
			t := e.Type()
			if t&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice|fs.ModeIrregular) == 0 {
				continue
			}
			p := path.Join(d, e.Name())
			switch {
			case t&fs.ModeNamedPipe != 0:
				found[p] = reasonPipe
			case t&fs.ModeSocket != 0:
				found[p] = reasonSocket
			case t&fs.ModeDevice != 0:
				found[p] = reasonDevice
			default:
				found[p] = reasonOther
			}
		}
	}
	return found
}

// findBlocker looks, breadth first, for a .gitignore or .gitattributes
// that is a FIFO or a device: git would block opening it. It skips .git
// and the DefaultExcludes directories (git does not enter them either)
// and gives up after maxBlockerScan entries.
func findBlocker(ws string) (string, string) {
	skip := map[string]bool{".git": true}
	for _, p := range DefaultExcludes {
		if n, ok := strings.CutSuffix(p, "/"); ok && !strings.ContainsAny(n, "*?[/") {
			skip[n] = true
		}
	}
	queue, seen := []string{""}, 0
	for len(queue) > 0 && seen < maxBlockerScan {
		d := queue[0]
		queue = queue[1:]
		ents, _ := os.ReadDir(filepath.Join(ws, filepath.FromSlash(d)))
		for _, e := range ents {
			seen++
			t, p := e.Type(), path.Join(d, e.Name())
			switch {
			case t.IsDir() && !skip[e.Name()]:
				queue = append(queue, p)
			case e.Name() != ".gitignore" && e.Name() != ".gitattributes":
			case t&fs.ModeNamedPipe != 0:
				return p, "named pipe"
			case t&(fs.ModeDevice|fs.ModeCharDevice) != 0:
				return p, "device"
			}
		}
	}
	return "", ""
}

const maxBlockerScan = 500_000

// nameSpecial adds the special files found to the skipped paths, but for
// those ignored (by .gitignore or the store's excludes).
func (s *Store) nameSpecial(ctx context.Context, found map[string]string, sk *skips) error {
	for p := range found {
		if sk.has(p) {
			delete(found, p)
		}
	}
	if len(found) == 0 {
		return nil
	}
	ignored, err := s.ignored(ctx, keys(found))
	if err != nil {
		return err
	}
	for p, reason := range found {
		if !ignored[p] {
			sk.add(p, reason)
		}
	}
	return nil
}

// ignored reports which of paths the exclude rules (.gitignore files,
// DefaultExcludes, Options.Exclude) match.
func (s *Store) ignored(ctx context.Context, paths []string) (map[string]bool, error) {
	// check-ignore refuses literal pathspecs; "./" keeps a leading ':'
	// from being read as pathspec magic, and it matches paths, not globs.
	var in strings.Builder
	for _, p := range paths {
		in.WriteString("./" + p + "\x00")
	}
	out, err := s.git(ctx, gitCall{args: []string{"check-ignore", "-z", "--stdin", "--no-index"},
		stdin: strings.NewReader(in.String()), env: []string{"GIT_LITERAL_PATHSPECS=0"}})
	var ge *gitError
	if err != nil && !(errors.As(err, &ge) && ge.code == 1 && len(out) == 0) {
		return nil, err // exit status 1 is "none ignored"
	}
	m := map[string]bool{}
	for _, p := range splitZ(out) {
		m[p] = true
	}
	return m, nil
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// skips collects skipped paths; the first reason given for a path wins.
type skips struct{ m map[string]string }

func (k *skips) add(p, reason string) {
	if k.m == nil {
		k.m = map[string]string{}
	}
	if _, ok := k.m[p]; !ok {
		k.m[p] = reason
	}
}

func (k *skips) has(p string) bool { _, ok := k.m[p]; return ok }

// sorted lists the skipped paths in order; nil if there are none (as a
// checkpoint read back from the store has).
func (k *skips) sorted() []Skip {
	if len(k.m) == 0 {
		return nil
	}
	out := make([]Skip, 0, len(k.m))
	for _, p := range keys(k.m) {
		out = append(out, Skip{Path: p, Reason: k.m[p]})
	}
	return out
}
