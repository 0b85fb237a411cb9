package host

import (
	"errors"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// maxCheckedPaths bounds one check_paths request.
const maxCheckedPaths = 10_000

// checkPathsRequest answers which of the paths a mention's lines name
// the model may read without asking (@diag and @qf are built in Lua from
// what Neovim shows: a spell checker's words about an open ~/.ssh/id_rsa
// are its content). It runs the same read check as get_file, with no
// questions (nothing the user typed asked for those files) and without
// reading anything: { allowed = {bool…}, reasons = {string…} }, in the
// paths' order. With no local environment yet, nothing is allowed.
func (h *Host) checkPathsRequest(p checkPathsReq) map[string]any {
	list := p.Paths
	if len(list) > maxCheckedPaths {
		list = list[:maxCheckedPaths]
	}
	allowed := make([]bool, len(list))
	reasons := make([]string, len(list))
	ctx := capabilities.WithoutQuestions(h.ctx)
	for i, v := range list {
		path, ok := v.(string)
		switch {
		case !ok || path == "":
			reasons[i] = "not a path"
		case h.checkRead == nil:
			reasons[i] = "the host has no workspace yet"
		default:
			err := h.checkRead(ctx, path)
			var denied *capabilities.DeniedError
			switch {
			case err == nil:
				allowed[i] = true
			case errors.As(err, &denied):
				reasons[i] = denied.Error()
			default:
				reasons[i] = err.Error()
			}
		}
	}
	return map[string]any{"allowed": allowed, "reasons": reasons}
}
