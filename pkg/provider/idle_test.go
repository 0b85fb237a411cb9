package provider

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server that never sends its headers fails the request with an
// IdleTimeoutError.
func TestIdleTimeoutBeforeHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer srv.Close()
	client := &http.Client{Transport: IdleTimeoutTransport(nil, 100*time.Millisecond)}
	_, err := client.Get(srv.URL)
	var idle *IdleTimeoutError
	require.True(t, errors.As(err, &idle), "%v", err)
	assert.Equal(t, 100*time.Millisecond, idle.After)
}

// A body whose bytes keep coming is never cut, however long it takes in
// total: the limit is on silence, not on the whole response.
func TestIdleTimeoutCountsSilenceOnly(t *testing.T) {
	const chunks = 24
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < chunks; i++ {
			fmt.Fprintf(w, "chunk %d\n", i)
			w.(http.Flusher).Flush()
			select {
			case <-time.After(60 * time.Millisecond): // the server's pace, well inside the limit
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer srv.Close()
	client := &http.Client{Transport: IdleTimeoutTransport(nil, time.Second)}
	resp, err := client.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), fmt.Sprintf("chunk %d", chunks-1))
}
