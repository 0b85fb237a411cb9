package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Checkpoint is one recorded state of the workspace.
type Checkpoint struct {
	ID    string // the commit's hash in the store
	Group string // as given to Snapshot (a thread id)
	Label string
	Time  time.Time
	// Skipped names what exists but was not captured, and why. Plan and
	// Changes leave these paths (and everything under a skipped
	// directory, which ends in /) alone.
	Skipped []Skip
	// Incomplete, when not empty, says why some changed files could not
	// be written (a full disk); they are in Skipped.
	Incomplete string
}

// Skip is a path a checkpoint does not hold.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// meta is a checkpoint's metadata, kept as the commit message (one line
// of JSON), so it survives restarts with the refs that keep it alive.
type meta struct {
	V          int       `json:"v"`
	Group      string    `json:"group"`
	Label      string    `json:"label"`
	Time       time.Time `json:"time"`
	Skipped    []Skip    `json:"skipped,omitempty"`
	Incomplete string    `json:"incomplete,omitempty"`
}

const refPrefix = "refs/magenta/"

// validGroup accepts names safe as one ref component: letters, digits,
// '-', '_' and '.', not starting with '.', not ending in ".lock".
func validGroup(g string) error {
	ok := g != "" && len(g) <= 200 && g[0] != '.' && !strings.HasSuffix(g, ".lock") && !strings.Contains(g, "..")
	for _, r := range g {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("checkpoint: invalid group %q", g)
	}
	return nil
}

// Snapshot records the workspace as it is now — the files on disk, with
// overlay (path → content, paths absolute or workspace-relative) winning
// over the disk — as a new checkpoint in group, under label. The
// checkpoint is kept by the ref refs/magenta/<group>/<seq> until
// DeleteGroup or Prune removes it.
//
// Every call makes a new checkpoint with its own ID; for an unchanged
// workspace it costs a few git processes, a stat per file, and a commit
// object and a ref on disk: the tree is the previous one. A workspace
// over the store's limits fails with *TooLargeError. A write error
// after the tree could still be written (a full disk while hashing)
// returns a checkpoint marked Incomplete, not an error.
func (s *Store) Snapshot(ctx context.Context, group, label string, overlay map[string][]byte) (Checkpoint, error) {
	if err := validGroup(group); err != nil {
		return Checkpoint{}, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return Checkpoint{}, err
	}
	defer unlock()
	c, err := s.capture(ctx, overlay)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	m := meta{V: 1, Group: group, Label: label, Time: time.Now().Round(0), Skipped: c.skipped, Incomplete: c.incomplete}
	return s.record(ctx, c.tree, m)
}

// record makes the commit of tree with m as its message and the ref
// refs/magenta/<group>/<seq> that keeps it (the caller holds the lock).
func (s *Store) record(ctx context.Context, tree string, m meta) (Checkpoint, error) {
	msg, err := json.Marshal(m)
	if err != nil {
		return Checkpoint{}, err
	}
	date := fmt.Sprintf("@%d +0000", m.Time.Unix())
	out, err := s.git(ctx, gitCall{args: []string{"commit-tree", tree, "-F", "-"}, stdin: bytes.NewReader(append(msg, '\n')),
		env: []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}})
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	id := strings.TrimSpace(string(out))
	seq, err := s.nextSeq()
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	ref := fmt.Sprintf("%s%s/%010d", refPrefix, m.Group, seq)
	if _, err := s.git(ctx, gitCall{args: []string{"update-ref", ref, id, ""}}); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	return m.checkpoint(id), nil
}

func (m meta) checkpoint(id string) Checkpoint {
	return Checkpoint{ID: id, Group: m.Group, Label: m.Label, Time: m.Time, Skipped: m.Skipped, Incomplete: m.Incomplete}
}

// nextSeq numbers checkpoints in the order they were taken, across
// processes (the caller holds the file lock).
func (s *Store) nextSeq() (int64, error) {
	name := filepath.Join(s.dir, "seq")
	var n int64
	if b, err := os.ReadFile(name); err == nil {
		n, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	} else if !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	n++
	return n, writeFile600(name, []byte(strconv.FormatInt(n, 10)+"\n"))
}

// List returns the group's checkpoints, oldest first; group "" lists
// every group's. It reads only the store, so it sees what earlier
// processes recorded.
func (s *Store) List(ctx context.Context, group string) ([]Checkpoint, error) {
	if group != "" {
		if err := validGroup(group); err != nil {
			return nil, err
		}
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	refs, err := s.refs(ctx, group)
	if err != nil {
		return nil, err
	}
	out := make([]Checkpoint, 0, len(refs))
	for _, r := range refs {
		out = append(out, r.cp)
	}
	return out, nil
}

type refInfo struct {
	name string
	seq  int64
	cp   Checkpoint
}

// refs lists the checkpoints' refs of group ("" for all), by sequence.
func (s *Store) refs(ctx context.Context, group string) ([]refInfo, error) {
	pattern := refPrefix
	if group != "" {
		pattern += group + "/"
	}
	out, err := s.git(ctx, gitCall{args: []string{"for-each-ref", "--format=%(refname)%00%(objectname)%00%(contents)%00", pattern}})
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	f := splitZ(out)
	var refs []refInfo
	for i := 0; i+2 < len(f); i += 3 {
		name := strings.TrimPrefix(f[i], "\n")
		var m meta
		if err := json.Unmarshal([]byte(strings.TrimSpace(f[i+2])), &m); err != nil {
			continue // not one of ours
		}
		seq, _ := strconv.ParseInt(name[strings.LastIndexByte(name, '/')+1:], 10, 64)
		refs = append(refs, refInfo{name: name, seq: seq, cp: m.checkpoint(f[i+1])})
	}
	sortRefs(refs)
	return refs, nil
}

// load reads a checkpoint's tree and metadata by ID.
func (s *Store) load(ctx context.Context, id string) (string, meta, error) {
	if len(id) != 40 && len(id) != 64 || strings.Trim(id, "0123456789abcdef") != "" {
		return "", meta{}, fmt.Errorf("checkpoint: invalid id %q", id)
	}
	out, err := s.git(ctx, gitCall{args: []string{"cat-file", "commit", id}})
	if err != nil {
		return "", meta{}, fmt.Errorf("checkpoint %s: %w", id, err)
	}
	head, body, _ := strings.Cut(string(out), "\n\n")
	tree, _, _ := strings.Cut(strings.TrimPrefix(head, "tree "), "\n")
	var m meta
	if err := json.Unmarshal([]byte(strings.TrimSpace(body)), &m); err != nil || !strings.HasPrefix(head, "tree ") {
		return "", meta{}, fmt.Errorf("checkpoint %s: not a checkpoint", id)
	}
	return tree, m, nil
}
