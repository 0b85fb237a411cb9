package docker

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/posixremote"
	"github.com/magenta-nvim/magenta/pkg/capabilities/ripgrep"
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
	if !filepath.IsAbs(req.Path) {
		return nil, fmt.Errorf("search path %q is not absolute", req.Path)
	}
	root := filepath.Clean(req.Path)
	info, err := s.files.Stat(ctx, root)
	if err != nil {
		return nil, err
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = ripgrep.DefaultTimeout
	}
	c := s.c
	start := func(ctx context.Context, dir string, args []string) *exec.Cmd {
		cmd := c.command(ctx, append([]string{"exec", "-w", dir, c.name, "rg"}, args...)...)
		// Killing the client closes rg's output, which ends it in the
		// container at its next write.
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGKILL) }
		return cmd
	}
	return ripgrep.Run(ctx, req, root, info.IsDir, s.name, timeout, start)
}
