package guard

import (
	"context"
	"fmt"
	"path"
	"path/filepath"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// KindRead is the approval kind of reads outside the workspace.
const KindRead = "read"

// Searcher is a capabilities.Searcher that asks before searching outside
// the workspace.
type Searcher struct {
	inner      capabilities.Searcher
	workspace  string
	broker     *approval.Broker
	remembered *Remembered
	// resolve, when set, resolves a path on the machine the files are
	// on (FileOptions.Resolve); nil: the local disk.
	resolve func(ctx context.Context, path string) (string, error)
}

var _ capabilities.Searcher = (*Searcher)(nil)

// NewSearcher guards inner; workspace is absolute.
func NewSearcher(inner capabilities.Searcher, workspace string, broker *approval.Broker, remembered *Remembered) *Searcher {
	return &Searcher{inner: inner, workspace: workspace, broker: broker, remembered: remembered}
}

// NewRemoteSearcher guards inner, a search on another machine: paths are
// resolved there by resolve (as FileOptions.Resolve; workspace is already
// resolved there), never on the local disk, and inner searches the
// resolved path — the one judged.
func NewRemoteSearcher(inner capabilities.Searcher, workspace string, broker *approval.Broker, remembered *Remembered,
	resolve func(ctx context.Context, path string) (string, error)) *Searcher {
	return &Searcher{inner: inner, workspace: path.Clean(workspace), broker: broker, remembered: remembered, resolve: resolve}
}

// Search implements capabilities.Searcher. A path outside the workspace
// (after resolving symlinks) waits for approval; a declined one returns a
// *capabilities.DeniedError.
func (s *Searcher) Search(ctx context.Context, req capabilities.SearchRequest) (*capabilities.SearchResult, error) {
	resolved, workspace := resolvePath(req.Path), ""
	if s.resolve == nil {
		workspace = resolvePath(s.workspace)
	} else {
		if !path.IsAbs(req.Path) {
			return nil, fmt.Errorf("search path %q is not absolute", req.Path)
		}
		r, err := s.resolve(ctx, path.Clean(req.Path))
		if err != nil {
			return nil, err
		}
		resolved, workspace = r, s.workspace
		req.Path = r
	}
	if !within(workspace, resolved) && !s.remembered.Has(KindRead, resolved) {
		reason := fmt.Sprintf("searches %s, outside the workspace", resolved)
		if err := ask(ctx, s.broker, s.remembered, approval.Request{
			ThreadID: req.ThreadID, ToolUseID: req.RequestID, Kind: KindRead, Subject: resolved, Reason: reason,
		}, true); err != nil {
			return nil, err
		}
	}
	return s.inner.Search(ctx, req)
}

// resolvePath cleans p and resolves symlinks in its longest existing
// prefix, so a link inside the workspace that points outside is seen for
// what it is.
func resolvePath(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
