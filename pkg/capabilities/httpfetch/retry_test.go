package httpfetch

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// agents records the User-Agent of each request.
type agents struct {
	mu  sync.Mutex
	uas []string
}

func (a *agents) add(r *http.Request) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.uas = append(a.uas, r.UserAgent())
	return len(a.uas)
}

func (a *agents) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.uas...)
}

func challenge(w http.ResponseWriter) {
	w.Header().Set("Cf-Mitigated", "challenge")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write([]byte("just a moment"))
}

func TestCloudflareChallengeRetriedOnce(t *testing.T) {
	var a agents
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		if a.add(r) == 1 {
			challenge(w)
			return
		}
		_, _ = w.Write([]byte("content"))
	})
	resp, err := fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: hostURL("cf.test", port, "/")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || string(resp.Body) != "content" || !resp.Retried {
		t.Errorf("got %d %q retried=%v", resp.Status, resp.Body, resp.Retried)
	}
	uas := a.list()
	if len(uas) != 2 || uas[0] != DefaultUserAgent || uas[1] != browserUserAgent {
		t.Errorf("user agents %q", uas)
	}
}

func TestCloudflareChallengeThatPersists(t *testing.T) {
	var a agents
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		a.add(r)
		challenge(w)
	})
	resp, err := fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: hostURL("cf.test", port, "/")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 403 || string(resp.Body) != "just a moment" || !resp.Retried {
		t.Errorf("got %d %q retried=%v", resp.Status, resp.Body, resp.Retried)
	}
	if n := len(a.list()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestPlain403NotRetried(t *testing.T) {
	var a agents
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		a.add(r)
		http.Error(w, "forbidden", http.StatusForbidden)
	})
	resp, err := fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: hostURL("a.test", port, "/")})
	if err != nil || resp.Status != 403 || resp.Retried || len(a.list()) != 1 {
		t.Fatalf("%+v %v %d requests", resp, err, len(a.list()))
	}
}

func TestTimeout(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"headers": func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		},
		"body": func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, port := server(t, h)
			start := time.Now()
			_, err := fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: hostURL("slow.test", port, "/"), Timeout: 200 * time.Millisecond})
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("returned after %v", elapsed)
			}
			if err == nil || !strings.Contains(err.Error(), "timed out after 200ms") || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestCallerCancellation(t *testing.T) {
	started := make(chan struct{})
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := newFetcher(&fakeDNS{}).Fetch(ctx, capabilities.FetchRequest{URL: hostURL("a.test", port, "/")})
		done <- err
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("request never arrived")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "timed out") {
			t.Fatalf("got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Fetch did not return after cancellation")
	}
}

// TestSlowCheckIsNotTimed: a check that waits longer than the timeout
// (a user deciding) neither fails the fetch nor sees its context end.
func TestSlowCheckIsNotTimed(t *testing.T) {
	port, _ := hopServer(t, 1)
	var checked []string
	slow := func(ctx context.Context, target *url.URL, _ []netip.Addr) error {
		<-time.After(250 * time.Millisecond) // the user takes their time
		checked = append(checked, target.Hostname())
		return ctx.Err()
	}
	resp, err := fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{
		URL: hostURL("h0.test", port, "/hop/0"), Timeout: 100 * time.Millisecond, CheckHost: slow,
	})
	if err != nil || string(resp.Body) != "arrived at 1" {
		t.Fatalf("%v %v", resp, err)
	}
	if len(checked) != 2 {
		t.Errorf("checked %v", checked)
	}
}
