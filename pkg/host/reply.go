package host

import "log/slog"

// replyLua delivers an answer to the Lua side's waiting request.
const replyLua = `require('magenta.host').reply(...)`

// answerAsync answers a "request" event: the asynchronous form of
// MagentaRequest that host.lua uses so that it can stop waiting (an
// rpcrequest cannot time out, so a stopped or hung host would freeze
// Neovim). The answer is computed off the notification goroutine, which
// must never block, and sent back as a call to host.reply(id, result,
// err). Every request gets exactly one answer.
func (h *Host) answerAsync(p requestEvent) {
	id := p.ID
	args := []any{p.Name}
	if p.Payload != nil { // a nil payload decodes as none (decodeEvent)
		args = append(args, p.Payload)
	}
	go func() {
		result, err := h.onRequest(args) // recovers its own panics
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if h.nv == nil {
			return
		}
		if rerr := h.nv.ExecLua(replyLua, nil, id, result, msg); rerr != nil {
			slog.Warn("reply to request failed", "id", id, "err", rerr)
		}
	}()
}
