package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Copy records checkpoint id again in group under label, holding the
// same files (its tree; no file is read): a thread made from another (a
// rewound conversation) gets the checkpoints of the messages it kept.
func (s *Store) Copy(ctx context.Context, id, group, label string) (Checkpoint, error) {
	if err := validGroup(group); err != nil {
		return Checkpoint{}, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return Checkpoint{}, err
	}
	defer unlock()
	tree, m, err := s.load(ctx, id)
	if err != nil {
		return Checkpoint{}, err
	}
	m.Group, m.Label = group, label
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
	newID := strings.TrimSpace(string(out))
	seq, err := s.nextSeq()
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	ref := fmt.Sprintf("%s%s/%010d", refPrefix, group, seq)
	if _, err := s.git(ctx, gitCall{args: []string{"update-ref", ref, newID, ""}}); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	return m.checkpoint(newID), nil
}
