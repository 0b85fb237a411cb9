package host

import (
	"github.com/neovim/go-client/nvim"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

// nvimEditor applies edits through lua/magenta/ui.lua: one nvim_exec_lua
// request per frame carries the lines and their highlights, and the Lua
// side keeps windows that were following the end at the end.
type nvimEditor struct{ nv *nvim.Nvim }

// NewNvimEditor returns the Editor that talks to nv (benchmarks).
func NewNvimEditor(nv *nvim.Nvim) Editor { return &nvimEditor{nv} }

const applyLua = `return require('magenta.ui').apply(...)`

func (e *nvimEditor) ApplyEdit(buf int, ed view.Edit, seq int) error {
	texts, hls := luaEdit(ed)
	return e.nv.ExecLua(applyLua, nil, buf, ed.Start, ed.End, texts, hls, seq)
}

func (e *nvimEditor) CheckDisplay(buf int) error {
	var problem string
	if err := e.nv.ExecLua(`return require('magenta.ui').check_display(...) or ""`, &problem, buf); err != nil {
		return err
	}
	if problem != "" {
		return errorf("%s", problem)
	}
	return nil
}

func (e *nvimEditor) Notify(msg string, level chat.Level) error {
	return e.nv.ExecLua(`require('magenta.ui').notify(...)`, nil, msg, levelName(level))
}

func (e *nvimEditor) NotifyIfHidden(buf int, msg string) error {
	return e.nv.ExecLua(`require('magenta.ui').notify_if_hidden(...)`, nil, buf, msg)
}

func (e *nvimEditor) RestoreInput(text string) error {
	return e.nv.ExecLua(`require('magenta.sidebar').restore_input(...)`, nil, text)
}

func (e *nvimEditor) OpenFile(path string, line int) error {
	return e.nv.ExecLua(`require('magenta.ui').open_file(...)`, nil, path, line)
}
