package localshell

import (
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"time"
)

// Log retention defaults (documented in :help magenta-shell).
const (
	// DefaultLogMaxBytes caps one log: 10 s of `yes` would otherwise
	// write 2 GB.
	DefaultLogMaxBytes = 8 << 20
	// DefaultLogQuota caps all threads' files under the log root.
	DefaultLogQuota = 1 << 30
	// DefaultLogMaxAge is how long a thread's files are kept after their
	// last change.
	DefaultLogMaxAge = 7 * 24 * time.Hour
	// activeThreadAge protects a thread changed this recently from the
	// quota: it is probably the one running.
	activeThreadAge = 10 * time.Minute
)

// retention is a Shell's log limits and its pruning state.
type retention struct {
	maxBytes, quota int64
	maxAge          time.Duration
	// written counts log bytes since the last prune; pruning is started
	// again when it passes quota/8.
	written atomic.Int64
	pruning atomic.Bool
}

func newRetention(maxBytes, quota int64, maxAge time.Duration) *retention {
	r := &retention{maxBytes: maxBytes, quota: quota, maxAge: maxAge}
	if r.maxBytes <= 0 {
		r.maxBytes = DefaultLogMaxBytes
	}
	if r.quota <= 0 {
		r.quota = DefaultLogQuota
	}
	if r.maxAge <= 0 {
		r.maxAge = DefaultLogMaxAge
	}
	return r
}

// logged counts n more bytes written under root, and prunes when enough
// has been written since the last time.
func (r *retention) logged(root string, n int64) {
	if r.written.Add(n) > r.quota/8 {
		r.pruneSoon(root)
	}
}

// pruneSoon prunes root in the background unless a prune is running.
func (r *retention) pruneSoon(root string) {
	if !r.pruning.CompareAndSwap(false, true) {
		return
	}
	go func() {
		for {
			r.written.Store(0)
			pruneThreads(filepath.Join(root, "threads"), r.maxAge, r.quota, time.Now())
			r.pruning.Store(false)
			// Logged enough meanwhile (its trigger found us busy): again.
			if r.written.Load() <= r.quota/8 || !r.pruning.CompareAndSwap(false, true) {
				return
			}
		}
	}()
}

// threadUsage is what one thread directory holds.
type threadUsage struct {
	path   string
	bytes  int64
	newest time.Time
}

// pruneThreads removes the thread directories under dir whose newest
// file is older than maxAge, then the oldest others until the total is
// within quota, sparing threads changed within activeThreadAge. It
// returns the paths removed.
func pruneThreads(dir string, maxAge time.Duration, quota int64, now time.Time) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var threads []threadUsage
	var total int64
	var removed []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		u := usage(filepath.Join(dir, e.Name()))
		if now.Sub(u.newest) > maxAge {
			if os.RemoveAll(u.path) == nil {
				removed = append(removed, u.path)
			}
			continue
		}
		threads = append(threads, u)
		total += u.bytes
	}
	sort.Slice(threads, func(i, j int) bool { return threads[i].newest.Before(threads[j].newest) })
	for _, u := range threads {
		if total <= quota || now.Sub(u.newest) < activeThreadAge {
			break
		}
		if os.RemoveAll(u.path) == nil {
			removed = append(removed, u.path)
			total -= u.bytes
		}
	}
	return removed
}

// usage sums the files under path and finds the newest change.
func usage(path string) threadUsage {
	u := threadUsage{path: path}
	_ = filepath.WalkDir(path, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			if fi.ModTime().After(u.newest) {
				u.newest = fi.ModTime()
			}
			if fi.Mode().IsRegular() {
				u.bytes += fi.Size()
			}
		}
		return nil
	})
	return u
}
