package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MaxPreview bounds Plan.Preview; a longer diff is cut with a note.
const MaxPreview = 1 << 20

// FileRestore is what restoring a checkpoint does to one path.
type FileRestore struct {
	Path   string // workspace-relative, slash-separated
	Delete bool   // created since the checkpoint: remove it
	// Content and Mode (0644 or 0755) are the file to put back; for a
	// symbolic link, Symlink is its target and Mode is os.ModeSymlink|0777.
	Content []byte
	Mode    os.FileMode
	Symlink string
}

// Plan is what restoring a checkpoint would do, for the user to review
// before ApplyToDisk does it.
type Plan struct {
	Files   []FileRestore // sorted by path
	Preview string        // unified diff from now to the restored state
}

// Plan says what restoring checkpoint id would change in the workspace
// as it is now (disk, with overlay winning). Paths the checkpoint skipped
// are left alone, so a file too large to capture is never deleted. The
// caller applies the plan with ApplyToDisk and deals with editor buffers
// of the paths it names. The contents to restore are held in memory.
func (s *Store) Plan(ctx context.Context, id string, overlay map[string][]byte) (Plan, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return Plan{}, err
	}
	defer unlock()
	d, err := s.compare(ctx, id, overlay)
	if err != nil {
		return Plan{}, err
	}
	var oids []string
	for _, e := range d.entries {
		if e.status != 'A' {
			oids = append(oids, e.oldOID)
		}
	}
	blobs, err := s.blobs(ctx, oids)
	if err != nil {
		return Plan{}, err
	}
	var p Plan
	paths := make([]string, 0, len(d.entries))
	for _, e := range d.entries {
		paths = append(paths, e.path)
		if e.status == 'A' {
			p.Files = append(p.Files, FileRestore{Path: e.path, Delete: true})
			continue
		}
		p.Files = append(p.Files, restoreOf(e.path, e.oldMode, blobs[e.oldOID]))
	}
	if p.Preview, err = s.preview(ctx, d.nowTree, d.cpTree, paths); err != nil {
		return Plan{}, err
	}
	return p, nil
}

func restoreOf(p, mode string, content []byte) FileRestore {
	switch mode {
	case "120000":
		return FileRestore{Path: p, Symlink: string(content), Mode: os.ModeSymlink | 0o777}
	case "100755":
		return FileRestore{Path: p, Content: content, Mode: 0o755}
	}
	return FileRestore{Path: p, Content: content, Mode: 0o644}
}

// dropUnchanged removes entries "deleted" since the checkpoint that are
// in fact on disk as they were (the exclude rules changed, so they are
// no longer captured): restoring them would change nothing.
func (s *Store) dropUnchanged(ctx context.Context, es []diffEntry) ([]diffEntry, error) {
	var oids []string
	for _, e := range es {
		if e.status == 'D' && !e.skippedNow {
			if _, err := os.Lstat(filepath.Join(s.ws, e.path)); err == nil {
				oids = append(oids, e.oldOID)
			}
		}
	}
	if len(oids) == 0 {
		return es, nil
	}
	blobs, err := s.blobs(ctx, oids)
	if err != nil {
		return nil, err
	}
	kept := es[:0]
	for _, e := range es {
		if b, ok := blobs[e.oldOID]; ok && e.status == 'D' && !e.skippedNow && s.onDisk(e.path, e.oldMode, b) {
			continue
		}
		kept = append(kept, e)
	}
	return kept, nil
}

// onDisk reports whether path holds exactly content with mode.
func (s *Store) onDisk(p, mode string, content []byte) bool {
	name := filepath.Join(s.ws, p)
	fi, err := os.Lstat(name)
	if err != nil {
		return false
	}
	if mode == "120000" {
		t, err := os.Readlink(name)
		return err == nil && fi.Mode()&os.ModeSymlink != 0 && t == string(content)
	}
	exec := fi.Mode()&0o100 != 0
	if !fi.Mode().IsRegular() || fi.Size() != int64(len(content)) || exec != (mode == "100755") {
		return false
	}
	b, err := os.ReadFile(name)
	return err == nil && bytes.Equal(b, content)
}

// blobs reads objects' contents with one `git cat-file --batch`; the
// contents share the one buffer git's output was read into.
func (s *Store) blobs(ctx context.Context, oids []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(oids) == 0 {
		return out, nil
	}
	raw, err := s.git(ctx, gitCall{args: []string{"cat-file", "--batch"},
		stdin: strings.NewReader(strings.Join(oids, "\n") + "\n")})
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	for range oids {
		h, rest, ok := bytes.Cut(raw, []byte("\n"))
		f := strings.Fields(string(h))
		if !ok || len(f) != 3 || f[1] != "blob" {
			return nil, fmt.Errorf("checkpoint: git cat-file: %q", h)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || n >= len(rest) {
			return nil, fmt.Errorf("checkpoint: git cat-file: %q", h)
		}
		out[f[0]] = rest[:n:n]
		raw = rest[n+1:]
	}
	return out, nil
}

// preview is the unified diff from now to the checkpoint for paths,
// cut at MaxPreview bytes.
func (s *Store) preview(ctx context.Context, nowTree, cpTree string, paths []string) (string, error) {
	var buf bytes.Buffer
	for len(paths) > 0 && buf.Len() <= MaxPreview {
		batch := paths[:min(len(paths), 500)]
		paths = paths[len(batch):]
		args := append([]string{"diff-tree", "-r", "-p", "--no-renames", "--no-ext-diff", "--no-textconv",
			nowTree, cpTree, "--"}, batch...)
		if _, err := s.git(ctx, gitCall{args: args, stdout: &buf}); err != nil {
			return "", fmt.Errorf("checkpoint: %w", err)
		}
	}
	if buf.Len() > MaxPreview {
		cut := bytes.LastIndexByte(buf.Bytes()[:MaxPreview], '\n') + 1
		buf.Truncate(cut)
		buf.WriteString("[preview cut: more than 1 MiB of changes]\n")
	}
	return buf.String(), nil
}
