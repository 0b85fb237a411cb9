package threadstore

import (
	"fmt"
	"os"
	"time"
)

// Fork saves a new thread newID made of the first keep messages of the
// saved thread src, with the compactions and turn usage lines that came
// among them, titled title. src is left as it is: rewinding a thread's
// conversation continues in the fork, and the whole conversation stays
// saved and can be reopened. Written under newID's own lock; a failure
// leaves no file behind.
func (s *Store) Fork(src string, keep int, newID, title string) (err error) {
	saved, err := s.Load(src)
	if err != nil {
		return err
	}
	if keep < 0 || keep > len(saved.Messages) {
		return fmt.Errorf("thread store: fork of %s keeps %d of its %d messages", src, keep, len(saved.Messages))
	}
	h := saved.Header
	h.ID, h.ParentID, h.Title, h.Created = newID, "", title, time.Now()
	w, err := s.Create(h)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(s.logPath(newID))
			_ = os.Remove(s.summaryPath(newID))
		}
	}()
	compactions, usages := saved.Compactions, saved.TurnUsages
	compacted := 0
	// until writes what came before message n, in the order written.
	until := func(n int) error {
		for {
			switch {
			case len(usages) > 0 && usages[0].After <= n && usages[0].Compactions <= compacted:
				if err := w.TurnUsage(usages[0].TurnUsage); err != nil {
					return err
				}
				usages = usages[1:]
			case len(compactions) > 0 && compactions[0].After <= n:
				if err := w.Compaction(compactions[0].Compaction); err != nil {
					return err
				}
				compactions = compactions[1:]
				compacted++
			default:
				return nil
			}
		}
	}
	for i, m := range saved.Messages[:keep] {
		if err := until(i); err != nil {
			return err
		}
		if err := w.Message(m.Message, m.Display); err != nil {
			return err
		}
	}
	// What came between the last kept message and the one cut off (a
	// turn's usage line, a compaction before the message) stays.
	return until(keep)
}
