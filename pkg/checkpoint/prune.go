package checkpoint

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

func sortRefs(refs []refInfo) {
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].seq != refs[j].seq {
			return refs[i].seq < refs[j].seq
		}
		return refs[i].name < refs[j].name
	})
}

// DeleteGroup removes every checkpoint of group (a deleted thread's),
// then deletes the loose objects nothing refers to any more (`git prune`;
// objects in a pack wait for Prune).
func (s *Store) DeleteGroup(ctx context.Context, group string) error {
	if err := validGroup(group); err != nil {
		return err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	refs, err := s.refs(ctx, group)
	if err != nil {
		return err
	}
	return s.deleteRefs(ctx, refs)
}

// Prune removes the checkpoints, of every group, taken more than
// olderThan ago; if there were any, it deletes the objects nothing refers
// to any more and repacks the rest into one pack (seconds for a large
// workspace, holding the store: call it at start-up or when idle).
// Objects still used by the store's index (the files as they were at the
// last snapshot) are kept.
func (s *Store) Prune(ctx context.Context, olderThan time.Duration) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	refs, err := s.refs(ctx, "")
	if err != nil {
		return err
	}
	cut := time.Now().Add(-olderThan)
	old := refs[:0]
	for _, r := range refs {
		if r.cp.Time.Before(cut) {
			old = append(old, r)
		}
	}
	if len(old) == 0 {
		return nil
	}
	if err := s.deleteRefs(ctx, old); err != nil {
		return err
	}
	// Pack what is left into one pack: loose objects and packs holding
	// only pruned objects go. No delta search: it costs time, saves little
	// on source files already deduplicated by content.
	if _, err := s.git(ctx, gitCall{args: []string{"-c", "pack.compression=1", "repack", "-a", "-d", "-q", "--window=0"}}); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// deleteRefs deletes refs in one transaction, then prunes. The caller
// holds the lock, so no snapshot is between writing objects and its ref.
func (s *Store) deleteRefs(ctx context.Context, refs []refInfo) error {
	if len(refs) == 0 {
		return nil
	}
	var in strings.Builder
	for _, r := range refs {
		in.WriteString("delete " + r.name + "\x00\x00")
	}
	if _, err := s.git(ctx, gitCall{args: []string{"update-ref", "-z", "--stdin"}, stdin: strings.NewReader(in.String())}); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if _, err := s.git(ctx, gitCall{args: []string{"prune", "--expire=now"}}); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}
