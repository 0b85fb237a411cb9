package host

import (
	"errors"

	"github.com/neovim/go-client/nvim"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/inline"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// inlineEdit starts the inline edit Lua asked for (lua/magenta/inline.lua)
// on the current profile's provider. Only enqueues: the provider is
// resolved on the edit's goroutine.
func (h *Host) inlineEdit(app *chat.App, p inlineEditEvent) {
	r := inline.Request{
		Buf: p.Buf, ID: p.ID,
		Path: p.Path, Filetype: p.Filetype,
		StartLine: p.Start, EndLine: p.End,
		Selection: p.Selection, Before: p.Before, After: p.After,
		Prompt: p.Prompt,
	}
	if r.Buf == 0 || r.ID == 0 || r.Prompt == "" {
		h.renderer.Notify("magenta: inline edit: missing buffer, id or prompt", chat.LevelError)
		return
	}
	h.inline.Start(func() (provider.Provider, string, int, error) {
		profile, ok := app.CurrentProfile()
		if !ok {
			return nil, "", 0, errors.New("the host is shutting down")
		}
		if h.opts.NewProvider == nil {
			return nil, "", 0, errors.New("no provider is configured")
		}
		p, err := h.opts.NewProvider(profile)
		return p, profile.Model, profile.MaxTokens, err
	}, r)
}

// inlineSink hands an inline edit's outcome to lua/magenta/inline.lua.
type inlineSink struct {
	nv       *nvim.Nvim
	renderer *Renderer
}

const (
	inlineResultLua  = `require('magenta.inline').on_result(...)`
	inlinePartialLua = `require('magenta.inline').on_partial(...)`
)

func (s inlineSink) Partial(buf, id int, text string) {
	if s.nv != nil {
		// A preview that cannot be drawn is not worth a message: the
		// outcome follows.
		_ = s.nv.ExecLua(inlinePartialLua, nil, buf, id, text)
	}
}

func (s inlineSink) Proposal(buf, id int, text string) { s.send(buf, id, text, "") }

func (s inlineSink) Failed(buf, id int, msg string) { s.send(buf, id, "", msg) }

func (s inlineSink) send(buf, id int, text, msg string) {
	if s.nv == nil {
		return
	}
	if err := s.nv.ExecLua(inlineResultLua, nil, buf, id, text, msg); err != nil {
		s.renderer.Notify("magenta: inline edit: "+err.Error(), chat.LevelError)
	}
}
