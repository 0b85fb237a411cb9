package posixremote

import (
	"context"
	"fmt"
	"path"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/ripgrep"
)

// Search runs one search of req.Path on the machine of files with the
// rg that start makes there (package docker's and sshenv's Searchers):
// the path must be absolute and exist (files says whether it is a
// directory), the timeout defaults to ripgrep.DefaultTimeout, and the
// output is parsed by package ripgrep as a local search's is; name goes
// in SearchResult.Searcher.
func Search(ctx context.Context, files *FileIO, req capabilities.SearchRequest, name string, start ripgrep.Starter) (*capabilities.SearchResult, error) {
	if !path.IsAbs(req.Path) {
		return nil, fmt.Errorf("search path %q is not absolute", req.Path)
	}
	root := path.Clean(req.Path)
	info, err := files.Stat(ctx, root)
	if err != nil {
		return nil, err
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = ripgrep.DefaultTimeout
	}
	return ripgrep.Run(ctx, req, root, info.IsDir, name, timeout, start)
}
