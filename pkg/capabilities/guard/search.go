package guard

import (
	"context"
	"fmt"
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
}

var _ capabilities.Searcher = (*Searcher)(nil)

// NewSearcher guards inner; workspace is absolute.
func NewSearcher(inner capabilities.Searcher, workspace string, broker *approval.Broker, remembered *Remembered) *Searcher {
	return &Searcher{inner: inner, workspace: workspace, broker: broker, remembered: remembered}
}

// Search implements capabilities.Searcher. A path outside the workspace
// (after resolving symlinks) waits for approval; a declined one returns a
// *capabilities.DeniedError.
func (s *Searcher) Search(ctx context.Context, req capabilities.SearchRequest) (*capabilities.SearchResult, error) {
	resolved := resolvePath(req.Path)
	if !within(resolvePath(s.workspace), resolved) && !s.remembered.Has(KindRead, resolved) {
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
