package sshenv

import (
	"context"
	"fmt"
	"os/exec"
	"slices"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/posixremote"
)

// searchScript $1=dir $2…=rg's arguments: rg in dir, without the remote
// user's ripgrep config (which could add --follow or a pre-processor).
const searchScript = `unset RIPGREP_CONFIG_PATH
cd -- "$1" || exit 2
shift
exec rg "$@"`

// Searcher runs the remote machine's rg (`ssh host sh -c 'exec rg
// --json …'` on the master), parsed by package ripgrep as a local
// search is: secrets left out and counted, the caps and the timeout the
// same. NewEnvironment makes one when the probe found rg there. It is
// safe for concurrent use.
type Searcher struct {
	c     *Conn
	files *posixremote.FileIO
	name  string // for SearchResult.Searcher
}

var _ capabilities.Searcher = (*Searcher)(nil)

// Search implements capabilities.Searcher. A search that times out or
// has enough matches kills the local client; rg there ends at its next
// write, as the channel is closed.
func (s *Searcher) Search(ctx context.Context, req capabilities.SearchRequest) (*capabilities.SearchResult, error) {
	if err := s.c.ensure(ctx); err != nil {
		return nil, err
	}
	start := func(ctx context.Context, dir string, args []string) *exec.Cmd {
		return s.c.Command(ctx, false, remoteScript(searchScript, append([]string{dir}, args...)...))
	}
	res, err := posixremote.Search(ctx, s.files, req, s.name, start)
	if err == nil && res != nil && slices.Contains(res.Errors, exit255) {
		// ssh's own failure: the connection, when the master is gone.
		if ferr := s.c.failed(ctx, ""); ferr != nil {
			return nil, ferr
		}
	}
	return res, err
}

// exit255 is package ripgrep's report of rg "exiting" 255: ssh's status
// when it failed itself (rg never exits 255).
var exit255 = fmt.Sprintf("rg exited with status %d", exitSSH)
