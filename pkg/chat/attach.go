package chat

import (
	"fmt"
	"path/filepath"
	"strings"
)

// AttachFiles attaches files (absolute paths) to the active thread, like
// AddContext, and then says what happened through Screen.Notify: which
// files were added, which were already there, and to which thread. It
// serves :Magenta add-buffer (<leader>mb), which opens nothing, so
// without the message the key would give no sign that it did anything.
// Mentions and :Magenta context-files use AddContext: the sidebar they
// go with shows the context files.
func (a *App) AttachFiles(paths []string) {
	a.do(func() {
		a.showActive()
		a.active.enqueue(msgAttach{paths: paths, report: a.reportAttached})
	})
}

// msgAttach adds context files on the thread's goroutine (which owns the
// list), then reports, from there, what was added and what was there.
type msgAttach struct {
	paths  []string
	report func(t *Thread, added, already []string)
}

func (m msgAttach) apply(t *Thread) {
	var added, already []string
	for _, p := range m.paths {
		if t.contextIndex(filepath.Clean(p)) >= 0 {
			already = append(already, filepath.Clean(p))
		} else {
			added = append(added, filepath.Clean(p))
		}
	}
	t.onAddContext(m.paths)
	m.report(t, t.contextNames(added), t.contextNames(already))
}

// contextNames are the names the chat shows for context files (relative
// to the workspace when inside it).
func (t *Thread) contextNames(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if i := t.contextIndex(p); i >= 0 {
			out = append(out, t.context[i].rel)
		}
	}
	return out
}

// reportAttached runs on the thread's goroutine; Notify and ThreadIDs
// are safe there.
func (a *App) reportAttached(t *Thread, added, already []string) {
	where := fmt.Sprintf("thread %q (%s)", titleOr(t.title), a.shortID(t.ID))
	switch {
	case len(added) > 0 && len(already) > 0:
		a.deps.Screen.Notify(fmt.Sprintf("magenta: added %s to the context files of %s (%s already there)",
			strings.Join(added, ", "), where, strings.Join(already, ", ")), LevelInfo)
	case len(added) > 0:
		a.deps.Screen.Notify(fmt.Sprintf("magenta: added %s to the context files of %s",
			strings.Join(added, ", "), where), LevelInfo)
	case len(already) > 0:
		a.deps.Screen.Notify(fmt.Sprintf("magenta: %s is already in the context files of %s",
			strings.Join(already, ", "), where), LevelInfo)
	}
}

// shortID is the id the thread list shows for id (its shortest unique
// prefix), for messages that name a thread.
func (a *App) shortID(id string) string {
	for _, s := range a.ThreadIDs() {
		if strings.HasPrefix(id, s) {
			return s
		}
	}
	return id
}
