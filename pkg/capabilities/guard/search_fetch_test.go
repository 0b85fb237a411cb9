package guard

import (
	"context"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

type countSearcher struct{ n int }

func (c *countSearcher) Search(context.Context, capabilities.SearchRequest) (*capabilities.SearchResult, error) {
	c.n++
	return &capabilities.SearchResult{}, nil
}

func TestSearcherAsksOutsideTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "link")))
	inner := &countSearcher{}
	b := approval.NewBroker(nil)
	s := NewSearcher(inner, ws, b, NewRemembered())

	_, err := s.Search(context.Background(), capabilities.SearchRequest{Path: filepath.Join(ws, "sub")})
	require.NoError(t, err, "inside: no question")
	assert.Empty(t, b.Pending(""))

	go func() {
		req := answerNext(t, b, approval.Deny)
		assert.Contains(t, req.Reason, "outside the workspace")
		assert.Equal(t, KindRead, req.Kind)
	}()
	_, err = s.Search(context.Background(), capabilities.SearchRequest{Path: filepath.Join(ws, "link")})
	assert.ErrorIs(t, err, capabilities.ErrPermissionDenied, "a symlink out of the workspace asks")

	go answerNext(t, b, approval.AllowAlways)
	_, err = s.Search(context.Background(), capabilities.SearchRequest{Path: outside})
	require.NoError(t, err)
	_, err = s.Search(context.Background(), capabilities.SearchRequest{Path: outside})
	require.NoError(t, err, "remembered")
	assert.Equal(t, 3, inner.n)
}

// pathSearcher records the paths it was asked to search.
type pathSearcher struct{ paths []string }

func (p *pathSearcher) Search(_ context.Context, req capabilities.SearchRequest) (*capabilities.SearchResult, error) {
	p.paths = append(p.paths, req.Path)
	return &capabilities.SearchResult{}, nil
}

// A remote searcher's paths are judged where they are: resolve (the
// remote realpath) decides, never the local disk, and the inner
// searcher searches the path as judged.
func TestRemoteSearcherJudgesResolvedPaths(t *testing.T) {
	links := map[string]string{"/srv/app/keys": "/home/dev/.ssh"}
	resolve := func(_ context.Context, p string) (string, error) {
		if r, ok := links[p]; ok {
			return r, nil
		}
		if p == "/srv/app/gone" {
			return "", capabilities.ErrNotExist
		}
		return p, nil
	}
	inner := &pathSearcher{}
	b := approval.NewBroker(nil)
	s := NewRemoteSearcher(inner, "/srv/app/", b, NewRemembered(), resolve)
	ctx := context.Background()

	_, err := s.Search(ctx, capabilities.SearchRequest{Path: "/srv/app/src/../lib"})
	require.NoError(t, err, "inside: no question")
	assert.Empty(t, b.Pending(""))

	go func() {
		req := answerNext(t, b, approval.Deny)
		assert.Contains(t, req.Reason, "/home/dev/.ssh")
	}()
	_, err = s.Search(ctx, capabilities.SearchRequest{Path: "/srv/app/keys"})
	assert.ErrorIs(t, err, capabilities.ErrPermissionDenied, "a remote link out of the workspace asks")

	_, err = s.Search(ctx, capabilities.SearchRequest{Path: "/srv/app/gone"})
	assert.ErrorIs(t, err, capabilities.ErrNotExist)
	_, err = s.Search(ctx, capabilities.SearchRequest{Path: "relative"})
	assert.Error(t, err)

	go answerNext(t, b, approval.Allow)
	_, err = s.Search(ctx, capabilities.SearchRequest{Path: "/srv/app/keys"})
	require.NoError(t, err)
	assert.Equal(t, []string{"/srv/app/lib", "/home/dev/.ssh"}, inner.paths, "searched as judged")
}

// urlFetcher calls CheckHost for each URL in order, like a fetch with
// redirects (the real one calls it once per new origin); hosts gives
// each host's addresses.
type urlFetcher struct {
	hosts map[string][]netip.Addr
	order []string
}

func (f *urlFetcher) Fetch(ctx context.Context, req capabilities.FetchRequest) (*capabilities.FetchResponse, error) {
	for _, raw := range f.order {
		u, err := url.Parse(raw)
		if err != nil {
			return nil, err
		}
		if err := req.CheckHost(ctx, u, f.hosts[u.Hostname()]); err != nil {
			return nil, err
		}
	}
	return &capabilities.FetchResponse{Status: 200}, nil
}

func isLoopback(a netip.Addr) bool { return a.IsLoopback() || a.IsPrivate() }

func TestFetcherAsksPerOriginAndAlwaysForPrivate(t *testing.T) {
	public := []netip.Addr{netip.MustParseAddr("93.184.216.34")}
	local := []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	inner := &urlFetcher{hosts: map[string][]netip.Addr{"example.com": public, "docs.example.com": public, "evil.test": local}}
	b := approval.NewBroker(nil)
	f := NewFetcher(inner, b, NewRemembered(), isLoopback)

	inner.order = []string{"https://example.com/"}
	go func() {
		req := answerNext(t, b, approval.AllowAlways)
		assert.Equal(t, "https://example.com/", req.Subject, "the question shows the full URL")
		assert.Contains(t, req.Reason, "https://example.com:443, an origin not approved")
	}()
	_, err := f.Fetch(context.Background(), capabilities.FetchRequest{URL: "https://example.com/"})
	require.NoError(t, err)
	inner.order = []string{"https://EXAMPLE.com:443/x"}
	_, err = f.Fetch(context.Background(), capabilities.FetchRequest{URL: "https://EXAMPLE.com:443/x"})
	require.NoError(t, err, "an ALWAYS origin is not asked again")

	// Another scheme or port of the same host is another origin.
	for _, other := range []string{"http://example.com/", "https://example.com:8443/admin"} {
		inner.order = []string{other}
		go func() {
			req := answerNext(t, b, approval.Deny)
			assert.Equal(t, other, req.Subject)
		}()
		_, err = f.Fetch(context.Background(), capabilities.FetchRequest{URL: other})
		assert.ErrorIs(t, err, capabilities.ErrPermissionDenied, other)
	}

	// A redirect to a new origin asks again, with its full URL, and says
	// it is a redirect.
	inner.order = []string{"https://example.com/r", "https://docs.example.com/page?q=1"}
	go func() {
		req := answerNext(t, b, approval.Deny)
		assert.Equal(t, "https://docs.example.com/page?q=1", req.Subject)
		assert.Contains(t, req.Reason, "a redirect: the model asked for https://example.com/r")
	}()
	_, err = f.Fetch(context.Background(), capabilities.FetchRequest{URL: "https://example.com/r"})
	assert.ErrorIs(t, err, capabilities.ErrPermissionDenied)

	// Private addresses ask every time, and cannot be remembered.
	inner.order = []string{"http://evil.test/"}
	for i := 0; i < 2; i++ {
		go func() {
			req := answerNext(t, b, approval.Allow) // ALWAYS is not offered
			assert.True(t, req.NoAlways)
			assert.Contains(t, req.Reason, "127.0.0.1: a loopback, private or link-local address")
		}()
		_, err = f.Fetch(context.Background(), capabilities.FetchRequest{URL: "http://evil.test/"})
		require.NoError(t, err)
	}
}
