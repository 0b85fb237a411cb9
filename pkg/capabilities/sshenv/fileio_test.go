package sshenv

import (
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
)

// TestFileIO runs the FileIO contract suite and the remote FileIO checks
// over one connection to the shared sshd.
func TestFileIO(t *testing.T) {
	t.Parallel()
	env, _, srv := newEnv(t, "")
	remotetest.FileIO(t, remotetest.Target{Env: env, Container: srv.Container})
}
