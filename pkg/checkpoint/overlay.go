package checkpoint

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// relPath turns an overlay key (absolute, or relative to the workspace)
// into a clean workspace-relative slash path; ok is false for a path
// outside the workspace or inside a .git directory.
func (s *Store) relPath(key string) (string, bool) {
	p := key
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(s.ws, p)
		if err != nil || !filepath.IsLocal(rel) {
			real, err := filepath.EvalSymlinks(s.ws)
			if err != nil {
				return "", false
			}
			if rel, err = filepath.Rel(real, p); err != nil || !filepath.IsLocal(rel) {
				return "", false
			}
		}
		p = rel
	}
	if !filepath.IsLocal(p) {
		return "", false
	}
	p = filepath.ToSlash(filepath.Clean(p))
	return p, validRel(p) == nil
}

// applyOverlay writes the overlay's contents as blobs and stages them in
// a copy of the index, whose name it returns. Entries outside the
// workspace, on a symlink, ignored, inside a skipped (nested) directory,
// or over MaxFileSize (skipped, named) are left out: the disk's state
// stands for them.
func (s *Store) applyOverlay(ctx context.Context, overlay map[string][]byte, sk *skips) (string, error) {
	type item struct {
		path, mode string
		data       []byte
	}
	var items []item
	var paths []string
	for _, key := range sortedKeys(overlay) {
		data := overlay[key]
		p, ok := s.relPath(key)
		if !ok || underSkipped(sk.m, p) {
			continue
		}
		if int64(len(data)) > s.opts.MaxFileSize {
			sk.add(p, fmt.Sprintf("buffer larger than %s, not captured", sizeString(s.opts.MaxFileSize)))
			continue
		}
		mode := "100644"
		if fi, err := os.Lstat(filepath.Join(s.ws, p)); err == nil {
			if !fi.Mode().IsRegular() {
				continue // a link, a directory, a pipe: the buffer is not this path's content
			}
			if fi.Mode()&0o100 != 0 {
				mode = "100755"
			}
		}
		items = append(items, item{p, mode, data})
		paths = append(paths, p)
	}
	if len(items) == 0 {
		return s.copyIndex()
	}
	ign, err := s.ignored(ctx, paths)
	if err != nil {
		return "", err
	}
	tmpDir, err := os.MkdirTemp(s.dir, "overlay-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmpDir)
	var names strings.Builder
	kept := items[:0]
	for i, it := range items {
		if ign[it.path] {
			continue
		}
		name := filepath.Join(tmpDir, fmt.Sprint(i))
		if err := os.WriteFile(name, it.data, 0o600); err != nil {
			return "", err
		}
		names.WriteString(name + "\n")
		kept = append(kept, it)
	}
	if len(kept) == 0 {
		return s.copyIndex()
	}
	out, err := s.git(ctx, gitCall{args: []string{"hash-object", "-w", "--no-filters", "--stdin-paths"},
		stdin: strings.NewReader(names.String())})
	if err != nil {
		return "", err
	}
	oids := strings.Fields(string(out))
	if len(oids) != len(kept) {
		return "", fmt.Errorf("git hash-object: %d ids for %d files", len(oids), len(kept))
	}
	var info strings.Builder
	for i, it := range kept {
		fmt.Fprintf(&info, "%s %s\t%s\x00", it.mode, oids[i], it.path)
	}
	index, err := s.copyIndex()
	if err != nil {
		return "", err
	}
	if _, err := s.git(ctx, gitCall{args: []string{"update-index", "--add", "--replace", "-z", "--index-info"},
		stdin: strings.NewReader(info.String()), index: index}); err != nil {
		os.Remove(index)
		return "", err
	}
	return index, nil
}

// copyIndex copies the store's index (if any) to the overlay index.
func (s *Store) copyIndex() (string, error) {
	dst := s.overlayIndex()
	os.Remove(dst)
	src, err := os.Open(s.index)
	if os.IsNotExist(err) {
		return dst, nil
	}
	if err != nil {
		return "", err
	}
	defer src.Close()
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, src); err != nil {
		f.Close()
		return "", err
	}
	return dst, f.Close()
}

// underSkipped reports whether p or a directory above it was skipped; a
// skipped directory (a nested repository) is recorded with a trailing /.
func underSkipped(m map[string]string, p string) bool {
	if _, ok := m[p]; ok {
		return true
	}
	for i := strings.IndexByte(p, '/'); i >= 0; i = next(p, i) {
		if _, ok := m[p[:i+1]]; ok {
			return true
		}
	}
	return false
}

func next(p string, i int) int {
	j := strings.IndexByte(p[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// skipMap indexes a checkpoint's skipped paths.
func skipMap(sk []Skip) map[string]string {
	m := make(map[string]string, len(sk))
	for _, k := range sk {
		m[k.Path] = k.Reason
	}
	return m
}

// sortedKeys is the overlay's keys in order: a later key for the same
// path (absolute and relative spellings) wins, the same way every time.
func sortedKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// validRel accepts a clean, relative, slash-separated path with no ".."
// and no .git component.
func validRel(p string) error {
	if p == "" || p == "." || strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.ContainsRune(p, 0) {
		return fmt.Errorf("invalid path %q", p)
	}
	for _, c := range strings.Split(p, "/") {
		if c == ".." || strings.EqualFold(c, ".git") {
			return fmt.Errorf("invalid path %q", p)
		}
	}
	return nil
}
