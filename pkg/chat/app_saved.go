package chat

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
)

// OpenEnvFunc makes the environment a saved thread worked in — a Docker
// container (on its context's engine), an SSH host — off the app
// goroutine, and calls done with it and its system prompt, or with the
// error that says why it cannot be made. It makes only remote
// environments: a "local" cfg is the caller's own environment (the
// app's Deps.Env), which it already has; given one, done gets an error
// saying so. Sub-agents' environments can be made through it from a
// threadstore.Env too.
type OpenEnvFunc func(cfg threadstore.Env, done func(env *capabilities.Environment, systemPrompt string, err error))

// StatusSaved is the status of a saved thread that is not open.
const StatusSaved = "saved"

// readOnlyNote is shown in a thread another editor writes.
const readOnlyNote = "This thread is open in another Neovim, which writes it (it holds the thread's lock): it is shown read-only here."

// DeleteThread deletes a thread, running or saved (id or a unique
// prefix; "" is the shown thread), and its saved file.
func (a *App) DeleteThread(id string) { a.do(func() { a.deleteThread(id) }) }

// Resume shows saved thread id if there is one (nothing otherwise): the
// thread the previous host showed, when a new host starts.
func (a *App) Resume(id string) {
	a.do(func() {
		if a.deps.Store == nil || checkResumable(id) != nil {
			return
		}
		if _, err := a.deps.Store.Load(id); err == nil {
			a.openSaved(id)
		}
	})
}

// checkResumable rejects ids that cannot name a saved thread.
func checkResumable(id string) error {
	if id == "" || strings.ContainsAny(id, "/\\.") {
		return errors.New("not a thread id")
	}
	return nil
}

// savedSummaries returns the summaries of the saved threads that are not
// running here (read from the store; nil without one).
func (a *App) savedSummaries() []view.ThreadSummary {
	if a.deps.Store == nil {
		return nil
	}
	list := a.deps.Store.List()
	a.sumMu.Lock()
	defer a.sumMu.Unlock()
	out := make([]view.ThreadSummary, 0, len(list))
	for _, s := range list {
		if _, running := a.summaries[s.ID]; running {
			continue
		}
		out = append(out, view.ThreadSummary{
			ID: s.ID, Title: s.Title, Status: StatusSaved, Profile: s.Profile, ParentID: s.ParentID,
			Env: s.Env.Label(), Messages: s.Messages, Active: s.LastActive,
		})
	}
	return out
}

// refreshSaved reads the saved threads again for the list.
func (a *App) refreshSaved() {
	saved := a.savedSummaries()
	a.sumMu.Lock()
	a.saved = saved
	a.sumMu.Unlock()
}

// sortThreads orders the list: the user's threads most recently active
// first; sub-agents (drawn under their parent, in this order among
// siblings) in the order they were spawned, after them.
func sortThreads(list []view.ThreadSummary) {
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if (a.ParentID == "") != (b.ParentID == "") {
			return a.ParentID == ""
		}
		if a.ParentID != "" {
			return a.ID < b.ID
		}
		if !a.Active.Equal(b.Active) {
			return a.Active.After(b.Active)
		}
		return a.ID > b.ID
	})
}

// resolveSaved finds a saved thread that is not running by id or unique
// prefix; ambiguous prefixes are described as findThread does.
func (a *App) resolveSaved(id string) (*view.ThreadSummary, []string) {
	if id == "" {
		return nil, nil
	}
	saved := a.savedSummaries()
	var match []view.ThreadSummary
	for _, s := range saved {
		if s.ID == id {
			return &s, nil
		}
		if strings.HasPrefix(s.ID, id) {
			match = append(match, s)
		}
	}
	if len(match) == 1 {
		return &match[0], nil
	}
	var candidates []string
	for _, s := range match {
		candidates = append(candidates, fmt.Sprintf("%s (%s)", s.ID, titleOr(s.Title)))
	}
	return nil, candidates
}

func titleOr(title string) string {
	if title == "" {
		return "New thread"
	}
	return title
}

// openSaved opens a saved thread: for writing when no other editor has
// it, else read-only. A Docker thread's container or an SSH thread's
// host is asked for first; when it cannot be used, the thread opens in
// the local workspace and says so.
func (a *App) openSaved(id string) {
	if a.opening[id] {
		return
	}
	store := a.deps.Store
	w, saved, err := store.OpenWriter(id)
	readOnly := ""
	if errors.Is(err, threadstore.ErrLocked) {
		saved, err = store.Load(id)
		readOnly = readOnlyNote
	}
	if err != nil {
		a.deps.Screen.Notify("magenta: cannot open the thread: "+err.Error(), LevelError)
		return
	}
	if cfg := saved.Header.Env; cfg.Type != "" && cfg.Type != "local" && a.deps.OpenEnv != nil {
		a.opening[id] = true
		a.deps.OpenEnv(cfg, func(env *capabilities.Environment, prompt string, err error) {
			note := ""
			if err != nil {
				env, prompt = a.deps.Env, a.deps.SystemPrompt
				note = unusableEnvNote(cfg, err)
			}
			select {
			case a.inbox <- func() {
				delete(a.opening, id)
				a.restore(saved, w, readOnly, env, prompt, note)
			}:
			case <-a.done:
				if w != nil {
					_ = w.Close()
				}
			}
		})
		return
	}
	a.restore(saved, w, readOnly, a.deps.Env, a.deps.SystemPrompt, "")
}

// unusableEnvNote tells the user, in a reopened thread, that the
// environment it worked in cannot be made now and that it goes on
// locally.
func unusableEnvNote(cfg threadstore.Env, err error) string {
	switch cfg.Type {
	case "docker":
		container := cfg.Container
		if cfg.Context != "" {
			container = fmt.Sprintf("%s (Docker context %s)", cfg.Container, cfg.Context)
		}
		return fmt.Sprintf("The container %s of this thread cannot be used (%v). The thread goes on in the local workspace: its commands now run here, not in the container. Start a new Docker thread with :Magenta new-thread docker <container> to work in a container again.", container, err)
	case "ssh":
		return fmt.Sprintf("The host %s of this thread cannot be used (%v). The thread goes on in the local workspace: its commands now run here, not on %s. Start a new SSH thread with :Magenta new-thread ssh <host> [dir] to work there again.", cfg.Host, err, cfg.Host)
	}
	return fmt.Sprintf("The %s environment of this thread cannot be used (%v). The thread goes on in the local workspace: its commands now run here.", cfg.Type, err)
}

// restore starts a saved thread and shows it.
func (a *App) restore(saved *threadstore.Thread, w *threadstore.Writer, readOnly string, env *capabilities.Environment, prompt, note string) {
	profile := a.profile
	if p, ok := a.opts.Profile(saved.Header.Profile); ok {
		profile = p
	}
	a.adopt(RestoreThread(a.ctx, profile, a.threadDeps(env, prompt), saved, RestoreOptions{Writer: w, ReadOnly: readOnly, Note: note}))
}

// deleteThread closes thread id if it runs here, and deletes its file.
func (a *App) deleteThread(id string) {
	var running *Thread
	if id == "" {
		running = a.active
	} else if match, candidates := a.findThread(id); match != nil {
		running = match
	} else if len(candidates) > 1 {
		a.deps.Screen.Notify(fmt.Sprintf("magenta: %d threads start with %q; give more of the id: %s", len(candidates), id, strings.Join(candidates, ", ")), LevelError)
		return
	}
	title := ""
	if running != nil {
		id = running.ID
		a.sumMu.Lock()
		sum := a.summaries[id]
		a.sumMu.Unlock()
		if sum.Status == "busy" {
			a.deps.Screen.Notify("magenta: the thread is working; stop it first (:Magenta abort), then delete it", LevelError)
			return
		}
		title = sum.Title
		a.dropThread(running)
	} else {
		s, candidates := a.resolveSaved(id)
		if s == nil {
			msg := fmt.Sprintf("magenta: no thread %q (:Magenta threads lists them)", id)
			if len(candidates) > 1 {
				msg = fmt.Sprintf("magenta: %d threads start with %q; give more of the id: %s", len(candidates), id, strings.Join(candidates, ", "))
			}
			a.deps.Screen.Notify(msg, LevelError)
			return
		}
		id, title = s.ID, s.Title
	}
	if a.deps.Store != nil {
		err := a.deps.Store.Delete(id)
		if errors.Is(err, threadstore.ErrLocked) {
			a.deps.Screen.Notify("magenta: the thread is open in another Neovim; close it there first", LevelError)
			return
		}
		if err != nil && !errors.Is(err, threadstore.ErrNotFound) {
			a.deps.Screen.Notify("magenta: deleting the thread failed: "+err.Error(), LevelError)
			return
		}
	}
	if a.deps.OnDeleted != nil {
		a.deps.OnDeleted(id)
	}
	a.deps.Screen.Notify(fmt.Sprintf("magenta: deleted thread %s (%s)", id, titleOr(title)), LevelInfo)
	if a.listing {
		a.showThreads()
	}
}

// dropThread stops a running thread and forgets it; when it was shown,
// the most recent other thread (or a new one) is shown instead.
func (a *App) dropThread(t *Thread) {
	t.Close()
	for i, x := range a.threads {
		if x == t {
			a.threads = append(a.threads[:i], a.threads[i+1:]...)
			break
		}
	}
	a.sumMu.Lock()
	delete(a.byID, t.ID)
	delete(a.summaries, t.ID)
	a.sumMu.Unlock()
	if a.active != t {
		return
	}
	if n := len(a.threads); n > 0 {
		a.active = a.threads[n-1]
		if !a.listing {
			a.showActive()
			a.active.Refresh()
		}
		return
	}
	a.newThread()
}
