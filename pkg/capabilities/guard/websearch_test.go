package guard

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/httpfetch"
	"github.com/magenta-nvim/magenta/pkg/capabilities/searxng"
)

// A SearXNG on loopback asks before each search until the user answers
// ALWAYS; NO sends nothing.
func TestWebSearcherAsksForALoopbackEngine(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"results":[{"url":"https://go.dev/","title":"Go"}]}`)
	}))
	defer srv.Close()
	inner, err := searxng.New(searxng.Options{URL: srv.URL, Fetcher: httpfetch.New(httpfetch.Options{})})
	require.NoError(t, err)
	b := approval.NewBroker(nil)
	s := NewWebSearcher(inner, b, NewRemembered(), httpfetch.IsPrivate)
	req := capabilities.WebSearchRequest{ThreadID: "t", RequestID: "r", Query: "go lang"}

	go func() {
		q := answerNext(t, b, approval.Deny)
		assert.Equal(t, KindWebSearch, q.Kind)
		assert.False(t, q.NoAlways, "ALWAYS is offered: the user chose the engine")
		assert.Equal(t, srv.URL+"/search?format=json&pageno=1&q=go+lang", q.Subject, "the question shows the query")
		assert.Contains(t, q.Reason, "resolves to 127.0.0.1: a loopback, private or link-local address")
	}()
	_, err = s.Search(context.Background(), req)
	var denied *capabilities.DeniedError
	require.ErrorAs(t, err, &denied)
	assert.Equal(t, "the user declined", denied.Reason)
	assert.Zero(t, hits.Load(), "declined: nothing sent")

	go answerNext(t, b, approval.Allow)
	resp, err := s.Search(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "Go", resp.Results[0].Title)

	go answerNext(t, b, approval.AllowAlways)
	_, err = s.Search(context.Background(), req)
	require.NoError(t, err, "YES holds for one search: asked again")
	_, err = s.Search(context.Background(), req)
	require.NoError(t, err, "ALWAYS is remembered for the origin")
	assert.Empty(t, b.Pending(""))
	assert.EqualValues(t, 3, hits.Load())
}

// hostSearcher calls CheckHost for each URL in order, like a search
// whose back end redirects.
type hostSearcher struct {
	hosts map[string][]netip.Addr
	order []string
}

func (f *hostSearcher) Search(ctx context.Context, req capabilities.WebSearchRequest) (*capabilities.WebSearchResponse, error) {
	for _, raw := range f.order {
		u, _ := url.Parse(raw)
		if err := req.CheckHost(ctx, u, f.hosts[u.Hostname()]); err != nil {
			return nil, err
		}
	}
	return &capabilities.WebSearchResponse{}, nil
}

func TestWebSearcherPublicEngineAndRedirects(t *testing.T) {
	public := []netip.Addr{netip.MustParseAddr("93.184.216.34")}
	inner := &hostSearcher{hosts: map[string][]netip.Addr{"search.example": public, "other.example": public}}
	b := approval.NewBroker(nil)
	s := NewWebSearcher(inner, b, NewRemembered(), httpfetch.IsPrivate)

	inner.order = []string{"https://search.example/search?q=x"}
	_, err := s.Search(context.Background(), capabilities.WebSearchRequest{Query: "x"})
	require.NoError(t, err, "a public engine the user configured: no question")
	assert.Empty(t, b.Pending(""))

	inner.order = []string{"https://search.example/search?q=x", "https://other.example/s?q=x"}
	go func() {
		q := answerNext(t, b, approval.Deny)
		assert.Contains(t, q.Reason, "redirects to https://other.example:443")
	}()
	_, err = s.Search(context.Background(), capabilities.WebSearchRequest{Query: "x"})
	assert.ErrorIs(t, err, capabilities.ErrPermissionDenied)
}
