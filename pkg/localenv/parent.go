package localenv

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
)

// ParentExecutable is the program the sandbox's confinement parent runs:
// magenta-supervisor beside the running executable (small, quick to
// start), else this executable when its main called
// zygote.MainIfZygote, else none (commands are then confined by
// bubblewrap each time).
func ParentExecutable() string {
	if p := procsup.Beside(); p != "" {
		return p
	}
	if zygote.Available() {
		if exe, err := os.Executable(); err == nil {
			return exe
		}
	}
	return ""
}

// ownPrograms are the host's own programs inside workspace: the
// directory of the running executable (magenta-host, magenta-provider
// and magenta-supervisor sit together) and the confinement parent's
// program. They run outside the sandbox, or as its parent: when the
// workspace holds them (magenta's own checkout), confined commands see
// them read-only. Outside the workspace they are read-only or hidden
// anyway; one that holds the workspace itself is left out (it would
// make the whole workspace read-only).
func ownPrograms(workspace string) []string {
	ws := realPath(workspace)
	var out []string
	add := func(p string) {
		if r := realPath(p); r != ws && strings.HasPrefix(r, ws+string(filepath.Separator)) {
			out = append(out, r)
		}
	}
	if exe, err := os.Executable(); err == nil {
		add(filepath.Dir(exe))
	}
	if p := ParentExecutable(); p != "" {
		add(p)
	}
	return out
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
