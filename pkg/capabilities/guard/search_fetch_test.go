package guard

import (
	"context"
	"net/netip"
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

// hostFetcher calls CheckHost for each host in order, like a fetch with
// redirects.
type hostFetcher struct {
	hosts map[string][]netip.Addr
	order []string
}

func (f *hostFetcher) Fetch(ctx context.Context, req capabilities.FetchRequest) (*capabilities.FetchResponse, error) {
	for _, h := range f.order {
		if err := req.CheckHost(ctx, h, f.hosts[h]); err != nil {
			return nil, err
		}
	}
	return &capabilities.FetchResponse{Status: 200}, nil
}

func isLoopback(a netip.Addr) bool { return a.IsLoopback() || a.IsPrivate() }

func TestFetcherAsksPerHostAndAlwaysForPrivate(t *testing.T) {
	public := []netip.Addr{netip.MustParseAddr("93.184.216.34")}
	local := []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	inner := &hostFetcher{hosts: map[string][]netip.Addr{"example.com": public, "docs.example.com": public, "evil.test": local}}
	b := approval.NewBroker(nil)
	f := NewFetcher(inner, b, NewRemembered(), isLoopback)

	inner.order = []string{"example.com"}
	go answerNext(t, b, approval.AllowAlways)
	_, err := f.Fetch(context.Background(), capabilities.FetchRequest{URL: "https://example.com/"})
	require.NoError(t, err)
	_, err = f.Fetch(context.Background(), capabilities.FetchRequest{URL: "https://example.com/x"})
	require.NoError(t, err, "an ALWAYS host is not asked again")

	// A redirect to a new host asks again.
	inner.order = []string{"example.com", "docs.example.com"}
	go func() {
		req := answerNext(t, b, approval.Deny)
		assert.Equal(t, "docs.example.com", req.Subject)
	}()
	_, err = f.Fetch(context.Background(), capabilities.FetchRequest{URL: "https://example.com/r"})
	assert.ErrorIs(t, err, capabilities.ErrPermissionDenied)

	// Private addresses ask every time, and cannot be remembered.
	inner.order = []string{"evil.test"}
	for i := 0; i < 2; i++ {
		go func() {
			req := answerNext(t, b, approval.AllowAlways)
			assert.True(t, req.NoAlways)
			assert.Contains(t, req.Reason, "127.0.0.1: a loopback, private or link-local address")
		}()
		_, err = f.Fetch(context.Background(), capabilities.FetchRequest{URL: "http://evil.test/"})
		require.NoError(t, err)
	}
}
