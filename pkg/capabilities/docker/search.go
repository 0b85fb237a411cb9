package docker

import (
	"context"
	"fmt"
	"os/exec"
	"syscall"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/posixremote"
)

// NoSearcher is the message for an environment without ripgrep.
const NoSearcher = "grep is not available in this container (it has no rg)"

// Searcher runs ripgrep inside the container (`docker exec rg --json`),
// parsed by package ripgrep. It is safe for concurrent use.
type Searcher struct {
	c     *container
	files *posixremote.FileIO
	name  string // for SearchResult.Searcher
}

var _ capabilities.Searcher = (*Searcher)(nil)

// newSearcher returns the Searcher of c (files: its FileIO), whose rg
// reported version.
func newSearcher(c *container, files *posixremote.FileIO, version string) *Searcher {
	return &Searcher{c: c, files: files, name: fmt.Sprintf("rg %s (in container %s)", version, c.name)}
}

// Search implements capabilities.Searcher.
func (s *Searcher) Search(ctx context.Context, req capabilities.SearchRequest) (*capabilities.SearchResult, error) {
	c := s.c
	start := func(ctx context.Context, dir string, args []string) *exec.Cmd {
		cmd := c.command(ctx, append([]string{"exec", "-w", dir, c.name, "rg"}, args...)...)
		// Killing the client closes rg's output, which ends it in the
		// container at its next write.
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGKILL) }
		return cmd
	}
	return posixremote.Search(ctx, s.files, req, s.name, start)
}
