package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ChangeKind is how a path differs from a checkpoint to now.
type ChangeKind int

// The kinds of change, from the checkpoint to the workspace now.
const (
	Added    ChangeKind = iota + 1 // exists now, did not then
	Modified                       // content, mode or type differ
	Deleted                        // existed then, does not now
)

func (k ChangeKind) String() string {
	switch k {
	case Added:
		return "added"
	case Modified:
		return "modified"
	case Deleted:
		return "deleted"
	}
	return "ChangeKind(" + strconv.Itoa(int(k)) + ")"
}

// Change is one path that differs between a checkpoint and now.
type Change struct {
	Path string
	Kind ChangeKind
	// Added and Removed count lines from the checkpoint to now; both are
	// -1 for a binary file, or one whose content now is unknown (skipped).
	Added, Removed int
}

// Changes lists what differs between checkpoint id and the workspace now
// (disk, with overlay winning), sorted by path: the files changed since
// that checkpoint, with line counts. Paths the checkpoint skipped are not
// listed; a path it holds that is skipped now (grown over MaxFileSize,
// say) is Modified with unknown counts.
func (s *Store) Changes(ctx context.Context, id string, overlay map[string][]byte) ([]Change, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	d, err := s.compare(ctx, id, overlay)
	if err != nil {
		return nil, err
	}
	out := make([]Change, 0, len(d.entries))
	for _, e := range d.entries {
		c := Change{Path: e.path, Kind: Modified, Added: e.added, Removed: e.removed}
		switch {
		case e.status == 'A':
			c.Kind = Added
		case e.status == 'D' && e.skippedNow:
			c.Added, c.Removed = -1, -1
		case e.status == 'D':
			c.Kind = Deleted
		}
		out = append(out, c)
	}
	return out, nil
}

// diffEntry is one path of `git diff-tree -r --raw --numstat` between the
// checkpoint's tree (old) and now (new).
type diffEntry struct {
	path             string
	oldMode, newMode string
	oldOID, newOID   string
	status           byte
	added, removed   int  // -1: binary
	skippedNow       bool // absent now because skipped, not deleted
}

// comparison is a checkpoint set against the workspace now.
type comparison struct {
	cpTree, nowTree string
	entries         []diffEntry
}

// compare captures now and diffs the checkpoint's tree against it,
// leaving out what the checkpoint skipped and what is ignored now but
// unchanged on disk. The caller holds the lock.
func (s *Store) compare(ctx context.Context, id string, overlay map[string][]byte) (comparison, error) {
	tree, m, err := s.load(ctx, id)
	if err != nil {
		return comparison{}, err
	}
	now, err := s.capture(ctx, overlay)
	if err != nil {
		return comparison{}, fmt.Errorf("checkpoint: %w", err)
	}
	out, err := s.git(ctx, gitCall{args: []string{"diff-tree", "-r", "-z", "--raw", "--numstat", "--no-renames",
		"--no-ext-diff", "--no-textconv", tree, now.tree}})
	if err != nil {
		return comparison{}, fmt.Errorf("checkpoint: %w", err)
	}
	all, err := parseDiff(out)
	if err != nil {
		return comparison{}, fmt.Errorf("checkpoint: %w", err)
	}
	cpSkip, nowSkip := skipMap(m.Skipped), skipMap(now.skipped)
	kept := all[:0]
	for _, e := range all {
		if underSkipped(cpSkip, e.path) || e.oldMode == "160000" || e.newMode == "160000" {
			continue
		}
		e.skippedNow = e.status == 'D' && underSkipped(nowSkip, e.path)
		kept = append(kept, e)
	}
	kept, err = s.dropUnchanged(ctx, kept)
	if err != nil {
		return comparison{}, err
	}
	return comparison{cpTree: tree, nowTree: now.tree, entries: kept}, nil
}

var errDiffFormat = errors.New("unexpected git diff-tree output")

// parseDiff reads `diff-tree -r -z --raw --numstat --no-renames` output:
// raw records (":<mode> <mode> <oid> <oid> <status>" NUL path NUL), then
// numstat records ("<added>\t<removed>\t<path>" NUL, "-" for binary).
// Paths come from the workspace, so any byte but NUL may be in them.
func parseDiff(b []byte) ([]diffEntry, error) {
	f := splitZ(b)
	var out []diffEntry
	byPath := map[string]int{}
	for i := 0; i < len(f); i++ {
		if strings.HasPrefix(f[i], ":") {
			h := strings.Fields(f[i][1:])
			if len(h) != 5 || len(h[4]) == 0 || i+1 >= len(f) {
				return nil, errDiffFormat
			}
			i++
			byPath[f[i]] = len(out)
			out = append(out, diffEntry{path: f[i], oldMode: h[0], newMode: h[1], oldOID: h[2], newOID: h[3],
				status: h[4][0]})
			continue
		}
		a, rest, ok1 := strings.Cut(f[i], "\t")
		r, p, ok2 := strings.Cut(rest, "\t")
		j, known := byPath[p]
		if !ok1 || !ok2 || !known {
			return nil, errDiffFormat
		}
		out[j].added, out[j].removed = count(a), count(r)
	}
	return out, nil
}

// count reads a numstat count; "-" (binary) and anything odd are -1.
func count(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return -1
	}
	return n
}
