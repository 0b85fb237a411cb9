package guard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/httpfetch"
)

// Two loopback servers on different ports, behind the real fetcher: a YES
// for the first port covers neither a fetch of the second nor a redirect
// to it; each question shows the full URL, and what is declined is never
// contacted.
func TestFetcherLoopbackPortsAreSeparateOrigins(t *testing.T) {
	var secret atomic.Int32
	p2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret.Add(1)
		_, _ = w.Write([]byte("secret"))
	}))
	t.Cleanup(p2.Close)
	p1 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/docs" {
			http.Redirect(w, r, p2.URL+"/admin/secret", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte("page"))
	}))
	t.Cleanup(p1.Close)
	b := approval.NewBroker(nil)
	f := NewFetcher(httpfetch.New(httpfetch.Options{}), b, NewRemembered(), httpfetch.IsPrivate)
	get := func(u string) (*capabilities.FetchResponse, error) {
		return f.Fetch(context.Background(), capabilities.FetchRequest{URL: u})
	}

	go func() {
		req := answerNext(t, b, approval.Allow)
		assert.Equal(t, p1.URL+"/page", req.Subject)
	}()
	resp, err := get(p1.URL + "/page")
	require.NoError(t, err)
	assert.Equal(t, "page", string(resp.Body))

	go func() {
		req := answerNext(t, b, approval.Deny)
		assert.Equal(t, p2.URL+"/admin/secret", req.Subject, "YES for the first port does not cover the second")
	}()
	_, err = get(p2.URL + "/admin/secret")
	assert.ErrorIs(t, err, capabilities.ErrPermissionDenied)

	asked := make(chan approval.Request, 2)
	go func() {
		asked <- answerNext(t, b, approval.Allow)
		asked <- answerNext(t, b, approval.Deny)
	}()
	_, err = get(p1.URL + "/docs")
	assert.ErrorIs(t, err, capabilities.ErrPermissionDenied, "the redirect was declined")
	first, second := <-asked, <-asked
	assert.Equal(t, p1.URL+"/docs", first.Subject)
	assert.Equal(t, p2.URL+"/admin/secret", second.Subject, "the redirect's question shows its full URL")
	assert.Contains(t, second.Reason, "a redirect: the model asked for "+p1.URL+"/docs")
	assert.Zero(t, secret.Load(), "the second server was contacted")
}
