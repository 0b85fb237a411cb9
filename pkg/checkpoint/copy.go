package checkpoint

import "context"

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
	return s.record(ctx, tree, m)
}
