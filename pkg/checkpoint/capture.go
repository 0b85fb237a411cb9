package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// TooLargeError is returned by Snapshot (and Changes, Plan) when the
// workspace holds more files or bytes than the store's limits. Files and
// Bytes are what had been counted when a limit was passed: the count stops
// there.
type TooLargeError struct {
	Files, MaxFiles int
	Bytes, MaxBytes int64
}

func (e *TooLargeError) Error() string {
	if e.Files > e.MaxFiles {
		return fmt.Sprintf("workspace too large to checkpoint: more than %d files", e.MaxFiles)
	}
	return fmt.Sprintf("workspace too large to checkpoint: more than %d MiB", e.MaxBytes>>20)
}

// Reasons a path is skipped.
const (
	reasonNested     = "nested repository, not captured"
	reasonUnreadable = "unreadable, not captured"
	reasonPipe       = "named pipe, not captured"
	reasonSocket     = "socket, not captured"
	reasonDevice     = "device, not captured"
	reasonOther      = "not a regular file, not captured"
)

// captured is the workspace as one tree object.
type captured struct {
	tree       string
	skipped    []Skip
	incomplete string
}

// bulkFiles is the number of files to stage from which they are written
// to a pack rather than as loose objects.
const bulkFiles = 256

// testHookUpdateIndex, when set, runs before the index is updated; an
// error it returns is handled as if git had failed (a full disk).
var testHookUpdateIndex func() error

// capture brings the store's index up to date with the disk, applies the
// overlay on a copy of it, and writes the tree. Only files git reports as
// changed or untracked are looked at (the index's stat cache says which),
// so an unchanged workspace costs git a directory walk and a stat per
// file, and us a read of the directories holding captured files (for
// FIFOs and the like), all three at once.
func (s *Store) capture(ctx context.Context, overlay map[string][]byte) (captured, error) {
	ix, err := readIndex(s.index)
	if errors.Is(err, errIndexFormat) {
		// The index is only a cache: a damaged one (a crash mid-write) is
		// dropped, and this snapshot re-reads every file.
		if err = os.Remove(s.index); err == nil {
			ix = nil
		}
	}
	if err != nil {
		return captured{}, fmt.Errorf("read index: %w", err)
	}
	var (
		others, changed []byte
		errO, errM      error
		wg              sync.WaitGroup
	)
	wg.Go(func() {
		others, errO = s.git(ctx, gitCall{args: []string{"ls-files", "-z", "-o", "--exclude-standard"}})
	})
	// diff-files, unlike ls-files -m, lists a file whose stat changed but
	// not its content (touched): staging it refreshes the stat cache, so
	// it is read once, not at every snapshot.
	wg.Go(func() {
		changed, errM = s.git(ctx, gitCall{args: []string{"diff-files", "--name-only", "-z", "--ignore-submodules=all"}})
	})
	scanned := map[string]bool{}
	ix.dirs(scanned)
	special := scanDirs(s.ws, scanned, nil)
	wg.Wait()
	if err := errors.Join(errO, errM); err != nil {
		return captured{}, err
	}
	t := &tally{s: s, ix: ix, files: len(ix), bytes: ix.totalSize()}
	for _, p := range splitZ(changed) {
		if err := t.take(p, true); err != nil {
			return captured{}, err
		}
	}
	for _, p := range splitZ(others) {
		if err := t.take(p, false); err != nil {
			return captured{}, err
		}
	}
	if o := s.opts; t.files > o.MaxFiles || t.bytes > o.MaxBytes {
		return captured{}, &TooLargeError{Files: t.files, MaxFiles: o.MaxFiles, Bytes: t.bytes, MaxBytes: o.MaxBytes}
	}
	fresh := map[string]bool{}
	for _, p := range t.update {
		addParents(fresh, p)
	}
	for p, reason := range scanDirs(s.ws, fresh, scanned) {
		special[p] = reason
	}
	if err := s.nameSpecial(ctx, special, &t.sk); err != nil {
		return captured{}, err
	}
	if t.ignoreDirty {
		out, err := s.git(ctx, gitCall{args: []string{"ls-files", "-z", "-c", "-i", "--exclude-standard"}})
		if err != nil {
			return captured{}, err
		}
		t.rm = append(t.rm, splitZ(out)...)
	}
	var c captured
	if err := s.updateIndex(ctx, t.update, t.rm); err != nil {
		var be *blockedError
		if ctx.Err() != nil || errors.As(err, &be) {
			return captured{}, err
		}
		c.incomplete = err.Error()
		for _, p := range append(t.update, t.rm...) {
			t.sk.add(p, "not captured: "+err.Error())
		}
	}
	index := s.index
	if len(overlay) > 0 {
		if index, err = s.applyOverlay(ctx, overlay, &t.sk); err != nil {
			return captured{}, err
		}
		defer os.Remove(index)
	}
	tree, err := s.git(ctx, gitCall{args: []string{"write-tree"}, index: index})
	if err != nil {
		return captured{}, err
	}
	c.tree = string(bytes.TrimSpace(tree))
	c.skipped = t.sk.sorted()
	return c, nil
}

// tally sorts the paths git reports into what to stage, what to drop
// from the index and what to skip, counting files and bytes against the
// limits as it goes.
type tally struct {
	s           *Store
	ix          indexEntries
	sk          skips
	update, rm  []string
	files       int
	bytes       int64
	ignoreDirty bool // a .gitignore changed: ignored files may be tracked
}

// take handles one path from `diff-files` (tracked) or `ls-files -o`.
func (t *tally) take(p string, tracked bool) error {
	if strings.HasSuffix(p, "/") {
		t.sk.add(p, reasonNested)
		return nil
	}
	if path.Base(p) == ".gitignore" {
		t.ignoreDirty = true
	}
	if tracked {
		old, ok := t.ix.find(p)
		tracked = ok
		t.files--
		t.bytes -= int64(old.size)
	}
	fi, err := os.Lstat(filepath.Join(t.s.ws, p))
	switch {
	case err != nil:
		if tracked {
			t.update = append(t.update, p) // deleted: --remove
		}
		return nil
	case fi.IsDir(): // was a file; what is inside is listed on its own
		t.rm = append(t.rm, p)
		return nil
	}
	if reason := t.s.unfit(p, fi); reason != "" {
		t.sk.add(p, reason)
		if tracked {
			t.rm = append(t.rm, p)
		}
		return nil
	}
	t.files++
	t.bytes += fi.Size()
	// Checked as untracked files come (after every tracked one is
	// counted, so a shrinking file cannot make this a false alarm).
	if o := t.s.opts; !tracked && (t.files > o.MaxFiles || t.bytes > o.MaxBytes) {
		return &TooLargeError{Files: t.files, MaxFiles: o.MaxFiles, Bytes: t.bytes, MaxBytes: o.MaxBytes}
	}
	t.update = append(t.update, p)
	return nil
}

// unfit says why the file p (described by fi) is not captured, or "".
// FIFOs and devices are recognised from the mode and never opened.
func (s *Store) unfit(p string, fi fs.FileInfo) string {
	switch m := fi.Mode(); {
	case m.IsRegular():
		if fi.Size() > s.opts.MaxFileSize {
			return fmt.Sprintf("larger than %s, not captured", sizeString(s.opts.MaxFileSize))
		}
		if unix.Access(filepath.Join(s.ws, p), unix.R_OK) != nil {
			return reasonUnreadable
		}
		return ""
	case m&fs.ModeSymlink != 0:
		return ""
	case m&fs.ModeNamedPipe != 0:
		return reasonPipe
	case m&fs.ModeSocket != 0:
		return reasonSocket
	case m&fs.ModeDevice != 0:
		return reasonDevice
	}
	return reasonOther
}

// updateIndex stages what changed: update holds paths to add, refresh or
// (when gone from disk) remove; rm holds paths to drop from the index
// although they exist (skipped or ignored now).
func (s *Store) updateIndex(ctx context.Context, update, rm []string) error {
	if testHookUpdateIndex != nil {
		if err := testHookUpdateIndex(); err != nil {
			return err
		}
	}
	if len(update) > 0 {
		args := []string{"update-index", "--add", "--remove", "--replace", "-z", "--stdin"}
		if len(update) >= bulkFiles {
			// Stream every blob into one pack instead of a file per
			// object: a first snapshot of 10 000 files takes half the
			// time and half the disk.
			args = append([]string{"-c", "core.bigFileThreshold=1", "-c", "pack.compression=1"}, args...)
		}
		in := strings.Join(update, "\x00") + "\x00"
		if _, err := s.git(ctx, gitCall{args: args, stdin: strings.NewReader(in)}); err != nil {
			return err
		}
	}
	if len(rm) > 0 {
		in := strings.Join(rm, "\x00") + "\x00"
		if _, err := s.git(ctx, gitCall{args: []string{"update-index", "--force-remove", "-z", "--stdin"},
			stdin: strings.NewReader(in)}); err != nil {
			return err
		}
	}
	return nil
}

func sizeString(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
