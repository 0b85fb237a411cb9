package host

import (
	"context"

	"github.com/magenta-nvim/magenta/pkg/prompts"
)

// The skills, commands and agents of the workspace and the user, from
// files (pkg/prompts). The library is made at attach and reads nothing
// there: the first request, send or completion lists the directories.

// promptLibrary returns the library (nil before attach).
func (h *Host) promptLibrary() *prompts.Library {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.prompts
}

// Prompts returns the library of skills, commands and agents (tests,
// benchmarks: what it read so far).
func (h *Host) Prompts() *prompts.Library { return h.promptLibrary() }

// slashCommand is one command as the input's completion offers it.
type slashCommand struct {
	Name        string `msgpack:"name"`
	Description string `msgpack:"description"`
	Hint        string `msgpack:"hint"`
	Namespace   string `msgpack:"namespace"`
	Scope       string `msgpack:"scope"`
	Path        string `msgpack:"path"`
}

// slashCommands answers the "slash_commands" request: the commands there
// are now (the first call lists the directories, on this request's
// goroutine, within prompts.LoadWait).
func (h *Host) slashCommands() []slashCommand {
	lib := h.promptLibrary()
	out := []slashCommand{}
	if lib == nil {
		return out
	}
	ctx, cancel := context.WithTimeout(h.ctx, prompts.LoadWait)
	defer cancel()
	for _, c := range lib.Load(ctx).Commands {
		out = append(out, slashCommand{Name: c.Name, Description: c.Description, Hint: c.ArgumentHint,
			Namespace: c.Namespace, Scope: string(c.Scope), Path: c.Shown})
	}
	return out
}
