package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/nvimbuf"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/rewind"
)

// rewindWait bounds one rewind (the checkpoint store's git processes,
// the editor's buffers).
const rewindWait = 2 * time.Minute

// startCheckpoints makes the local workspace's checkpointer (nothing is
// read until the first checkpoint); nil when checkpoints are off or
// there is no data directory.
func (h *Host) startCheckpoints(opts config.Options, env *capabilities.Environment, dataDir string) *rewind.Checkpointer {
	if !opts.Checkpoints.On() || dataDir == "" || h.nv == nil {
		return nil
	}
	c := rewind.New(rewind.Options{
		Dir: rewind.StoreDir(dataDir, env.Cwd), Workspace: env.Cwd, Exclude: opts.Checkpoints.Exclude,
		Buffers: nvimBuffers{h.nv},
		// Unchecked: the user asked for the restore, and the store holds
		// only the workspace's files.
		Files: nvimbuf.New(h.nv, localfs.New()),
		Warn:  func(msg string) { h.renderer.Notify(msg, chat.LevelWarn) },
		// Checkpoints go after the threads they belong to.
		PruneAfter: opts.Threads.MaxAgeDuration(),
	})
	return c
}

// observers are the App's observers of every thread: checkpoints, then
// hooks (hooks.go).
func (h *Host) observers() []chat.Observer {
	var out []chat.Observer
	if h.checkpoints != nil {
		out = append(out, h.checkpoints.Observer())
	}
	if h.hooks != nil {
		out = append(out, h.hooks.Observer())
	}
	return out
}

// threadDeleted deletes a deleted thread's checkpoints.
func (h *Host) threadDeleted(id string) {
	if h.checkpoints == nil {
		return
	}
	go func() {
		defer h.recoverTo("deleting a thread's checkpoints")
		ctx, cancel := context.WithTimeout(h.ctx, rewindWait)
		defer cancel()
		if err := h.checkpoints.DeleteThread(ctx, id); err != nil {
			slog.Warn("deleting a thread's checkpoints", "thread", id, "err", err)
		}
	}()
}

// rewindTarget is the shown thread, when its files can be restored.
func (h *Host) rewindTarget() (*chat.Thread, error) {
	app := h.App()
	if app == nil {
		return nil, errors.New("the host is not attached")
	}
	t := app.Active()
	if t == nil {
		return nil, errors.New("no thread")
	}
	if env := t.Env(); env != nil && env.Name != "local" {
		return t, fmt.Errorf("this thread works in %s: its files are not checkpointed, so its code cannot be rewound (its conversation can)", env.Name)
	}
	if h.checkpoints == nil {
		return t, errors.New("checkpoints are off (checkpoints.enabled = false), so the code cannot be rewound (the conversation can)")
	}
	return t, nil
}

// rewindList answers rewind_list: the shown thread's messages with what
// changed since each.
func (h *Host) rewindList(p rewindListReq) (any, error) {
	app := h.App()
	if app == nil {
		return nil, errors.New("the host is not attached")
	}
	id, texts := app.ActiveUserMessages()
	out := rewindListAnswer{Thread: id, Messages: make([]rewind.Entry, len(texts))}
	for i, text := range texts {
		out.Messages[i] = rewind.Entry{N: i + 1, Text: text}
	}
	if _, err := h.rewindTarget(); err != nil {
		out.Problem = err.Error()
		return out, nil
	}
	ctx, cancel := context.WithTimeout(h.ctx, rewindWait)
	defer cancel()
	entries, err := h.checkpoints.Messages(ctx, id, texts, p.Buffers.overlay())
	if err != nil {
		out.Problem = "what changed since each message is unknown: " + err.Error()
		return out, nil
	}
	out.Messages = entries
	return out, nil
}

// rewindPreview answers rewind_preview: what restoring the code before
// message n would change.
func (h *Host) rewindPreview(p rewindPreviewReq) (any, error) {
	t, err := h.rewindTarget()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(h.ctx, rewindWait)
	defer cancel()
	return h.checkpoints.Preview(ctx, t.ID, p.N, p.Buffers.overlay())
}

// rewind restores the code, the conversation or both to before the shown
// thread's message n, off the RPC goroutine, and says what it did.
func (h *Host) rewind(app *chat.App, p rewindEvent) {
	if p.What != "code" && p.What != "conversation" && p.What != "both" {
		h.renderer.Notify(fmt.Sprintf("magenta: unknown rewind %q; use code, conversation or both", p.What), chat.LevelError)
		return
	}
	go func() {
		defer h.recoverTo("rewinding")
		if p.What != "conversation" {
			t, err := h.rewindTarget()
			if err == nil {
				err = h.rewindCode(t.ID, p.N, p.Force)
			}
			if err != nil {
				h.renderer.Notify("magenta: "+err.Error(), chat.LevelError)
				return
			}
		}
		if p.What == "code" {
			return
		}
		from := app.Active()
		app.RewindConversation(p.N, func(id string, err error) {
			if err != nil {
				h.renderer.Notify("magenta: "+err.Error(), chat.LevelError)
				return
			}
			if h.checkpoints != nil && from != nil {
				h.checkpoints.AdoptLater(from.ID, id, p.N-1, func(err error) {
					if err != nil {
						slog.Warn("copying checkpoints to a rewound thread", "err", err)
					}
				})
			}
			h.renderer.Notify(fmt.Sprintf("magenta: the conversation is back to before your message %d (the whole thread stays in :Magenta threads)", p.N), chat.LevelInfo)
		})
	}()
}

// rewindCode restores the files and says what it did.
func (h *Host) rewindCode(thread string, n int, force bool) error {
	ctx, cancel := context.WithTimeout(h.ctx, rewindWait)
	defer cancel()
	rep, err := h.checkpoints.Restore(ctx, thread, n, force)
	var conflict *rewind.ConflictError
	if errors.As(err, &conflict) {
		return fmt.Errorf("%w (nothing was restored)", err)
	}
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("magenta: restored %s to before your message %d", count(len(rep.Files), "file"), n)
	if len(rep.Files) == 0 {
		msg = fmt.Sprintf("magenta: nothing changed since your message %d", n)
	}
	if len(rep.Buffers) > 0 {
		msg += fmt.Sprintf("; through their buffers (u undoes it there): %s", strings.Join(rep.Buffers, ", "))
	}
	if len(rep.Open) > 0 {
		msg += fmt.Sprintf("; removed, still open in a buffer: %s", strings.Join(rep.Open, ", "))
	}
	h.renderer.Notify(msg, chat.LevelInfo)
	return nil
}

func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// bufferText is one modified buffer as lua/magenta/rewind.lua sends it.
type bufferText struct {
	Path string `msgpack:"path" payload:"path"`
	Text string `msgpack:"text" payload:"text"`
}

type bufferTexts []bufferText

// decodePayload reads the list Lua sends; an entry of another shape is
// an error (the overlay must be whole, or a restore would misjudge).
func (b *bufferTexts) decodePayload(v any) error {
	list, ok := v.([]any)
	if !ok {
		if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
			return nil // an empty Lua table
		}
		return wrongType("a list", v)
	}
	for _, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return wrongType("a {path, text} table", v)
		}
		path, _ := m["path"].(string)
		var text string
		switch t := m["text"].(type) {
		case string:
			text = t
		case []byte:
			text = string(t)
		default:
			return wrongType("text", m["text"])
		}
		if path == "" {
			return wrongType("a path", m["path"])
		}
		*b = append(*b, bufferText{Path: path, Text: text})
	}
	return nil
}

// Payloads of the rewind requests and event.
type (
	rewindListReq struct {
		Buffers bufferTexts `payload:"buffers"`
	}
	rewindPreviewReq struct {
		N       int         `payload:"n,required"`
		Buffers bufferTexts `payload:"buffers"`
	}
	rewindEvent struct {
		N     int    `payload:"n,required"`
		What  string `payload:"what,required"` // code, conversation or both
		Force bool   `payload:"force"`
	}
	rewindListAnswer struct {
		Thread   string         `msgpack:"thread"`
		Messages []rewind.Entry `msgpack:"messages"`
		// Problem says why what changed since each message is not known.
		Problem string `msgpack:"problem"`
	}
)

func (b bufferTexts) overlay() map[string][]byte {
	out := make(map[string][]byte, len(b))
	for _, x := range b {
		out[x.Path] = []byte(x.Text)
	}
	return out
}

// nvimBuffers is rewind.Buffers over the editor (lua/magenta/rewind.lua).
type nvimBuffers struct {
	nv nvimbuf.Lua
}

func (b nvimBuffers) Modified(ctx context.Context) (map[string][]byte, error) {
	var list bufferTexts
	if err := b.nv.ExecLua(`return require('magenta.rewind').modified()`, &list); err != nil {
		return nil, err
	}
	return list.overlay(), nil // the checkpointer keeps the workspace's
}

func (b nvimBuffers) Loaded(ctx context.Context, paths []string) (map[string]bool, error) {
	var loaded []bool
	if err := b.nv.ExecLua(`return require('magenta.rewind').loaded(...)`, &loaded, paths); err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(paths))
	for i, p := range paths {
		out[p] = i < len(loaded) && loaded[i]
	}
	return out, nil
}
