package prompts

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultRecheck is how long a listing is used before the directories
// are looked at again (every file's size and time; only changed files
// are read again).
const DefaultRecheck = 2 * time.Second

// LoadWait bounds how long a caller that owns a goroutine others wait
// for (a thread, the app) waits for a listing; past it the previous one
// is used (none the first time) and the listing goes on in the
// background.
const LoadWait = 2 * time.Second

// Set is one listing: every skill, command and agent found, each name
// once (the first directory wins), sorted by name, and the warnings of
// the files that were skipped or cut.
type Set struct {
	Skills   []Skill
	Commands []Command
	Agents   []Agent
	Warnings []string
}

// Skill returns the skill called name.
func (s *Set) Skill(name string) (Skill, bool) {
	for _, sk := range s.Skills {
		if sk.Name == name {
			return sk, true
		}
	}
	return Skill{}, false
}

// Command returns the command called name.
func (s *Set) Command(name string) (Command, bool) {
	for _, c := range s.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Agent returns the agent called name.
func (s *Set) Agent(name string) (Agent, bool) {
	for _, a := range s.Agents {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// Stats count the library's disk work (tests and benchmarks show what
// a path read).
type Stats struct {
	DirsListed, FilesRead int64
}

// Library finds and caches the skills, commands and agents of one
// workspace and user. New reads nothing: the first Load lists the
// directories on a worker goroutine. Safe for concurrent use.
type Library struct {
	dirs Dirs
	warn func(string)
	// Recheck overrides DefaultRecheck (tests: 0 looks every time). Set
	// it before the first Load.
	Recheck time.Duration

	mu      sync.Mutex
	set     *Set
	checked time.Time
	running chan struct{} // closed when the listing under way ends
	warned  map[string]bool

	// cache is owned by the listing under way (one at a time).
	cache map[string]cached

	dirsListed, filesRead atomic.Int64
}

// New returns the library of dirs. warn is told each warning once (a
// file skipped, a description cut); it must not block.
func New(dirs Dirs, warn func(string)) *Library {
	if warn == nil {
		warn = func(string) {}
	}
	return &Library{dirs: dirs, warn: warn, Recheck: -1, warned: map[string]bool{}}
}

// Dirs returns the directories the library looks in.
func (l *Library) Dirs() Dirs { return l.dirs }

// Load returns the current listing. The first call, and a call more
// than Recheck after the last listing, lists the directories on a worker
// goroutine and waits for it until ctx ends; then the previous listing
// is returned (an empty one the first time) and the worker goes on, so
// a later call gets its result. While a recheck runs, other calls get
// the previous listing at once.
func (l *Library) Load(ctx context.Context) *Set {
	l.mu.Lock()
	// A listing another call started is not waited for when there is
	// one already: a directory that hangs (a dead network mount) costs
	// one wait, not one per request.
	if l.set != nil && (l.running != nil || time.Since(l.checked) < l.recheck()) {
		s := l.set
		l.mu.Unlock()
		return s
	}
	if l.running == nil {
		l.running = make(chan struct{})
		go l.refresh(l.running)
	}
	wait, prev := l.running, l.set
	l.mu.Unlock()
	select {
	case <-wait:
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.set
	case <-ctx.Done():
		if prev == nil {
			return &Set{}
		}
		return prev
	}
}

func (l *Library) recheck() time.Duration {
	if l.Recheck >= 0 {
		return l.Recheck
	}
	return DefaultRecheck
}

// Prefetch starts the first listing without waiting for it (a no-op
// once one ran or runs).
func (l *Library) Prefetch() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.set == nil && l.running == nil {
		l.running = make(chan struct{})
		go l.refresh(l.running)
	}
}

// refresh lists the directories and publishes the result; a panic keeps
// the previous listing.
func (l *Library) refresh(done chan struct{}) {
	var set *Set
	defer func() {
		if p := recover(); p != nil {
			slog.Error("listing skills, commands and agents panicked", "panic", p, "stack", string(debug.Stack()))
			set = nil
		}
		l.mu.Lock()
		if set != nil {
			l.set = set
		} else if l.set == nil {
			l.set = &Set{}
		}
		l.checked, l.running = time.Now(), nil
		var fresh []string
		if set != nil {
			for _, w := range set.Warnings {
				if !l.warned[w] {
					l.warned[w] = true
					fresh = append(fresh, w)
				}
			}
		}
		l.mu.Unlock()
		for _, w := range fresh {
			l.warn(w) // before the waiting callers go on
		}
		close(done)
	}()
	set = l.discover()
}

// Warn tells the user msg once (problems found where the definitions
// are used: an agent's unknown tool).
func (l *Library) Warn(msg string) {
	l.mu.Lock()
	seen := l.warned[msg]
	l.warned[msg] = true
	l.mu.Unlock()
	if !seen {
		l.warn(msg)
	}
}

// Stats returns the disk work done so far.
func (l *Library) Stats() Stats {
	return Stats{DirsListed: l.dirsListed.Load(), FilesRead: l.filesRead.Load()}
}

// Peek returns the last listing without looking at the disk (an empty
// one before the first Load).
func (l *Library) Peek() *Set {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.set == nil {
		return &Set{}
	}
	return l.set
}
