package httpfetch

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// A redirect to another port of the same host is another origin: it is
// checked with its full URL, and when the check says no the second
// server is never contacted. A redirect within an origin is not checked
// again.
func TestRedirectToAnotherPortIsChecked(t *testing.T) {
	var secret atomic.Int32
	_, p2 := server(t, func(w http.ResponseWriter, r *http.Request) {
		secret.Add(1)
		_, _ = w.Write([]byte("secret"))
	})
	_, p1 := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/docs":
			http.Redirect(w, r, "/docs/", http.StatusFound) // same origin
		case "/docs/":
			http.Redirect(w, r, "http://127.0.0.1:"+p2+"/admin/secret?x=1", http.StatusFound)
		}
	})
	first := "http://127.0.0.1:" + p1 + "/docs"
	denied := errors.New("no")
	var c checks
	check := func(ctx context.Context, target *url.URL, addrs []netip.Addr) error {
		_ = c.check(ctx, target, addrs)
		if target.Port() == p2 {
			return denied
		}
		return nil
	}
	_, err := fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: first, CheckHost: check})
	if !errors.Is(err, denied) {
		t.Fatalf("got %v, want the check's error", err)
	}
	if !strings.Contains(err.Error(), "http://127.0.0.1:"+p2+" rejected") {
		t.Errorf("error %q does not name the origin", err)
	}
	if n := secret.Load(); n != 0 {
		t.Errorf("the second port was contacted %d times", n)
	}
	want := []string{first, "http://127.0.0.1:" + p2 + "/admin/secret?x=1"}
	if got := c.checkedURLs(); !slices.Equal(got, want) {
		t.Errorf("checked %v, want %v", got, want)
	}

	// Allowed, the redirect reaches the second server.
	c = checks{}
	resp, err := fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: first, CheckHost: c.check})
	if err != nil || string(resp.Body) != "secret" {
		t.Fatalf("%v %v", resp, err)
	}
	if got := c.checkedURLs(); len(got) != 2 {
		t.Errorf("checked %v, want two origins", got)
	}
}

// The transport dials only a host:port an approved origin opened, even
// for a host whose addresses are pinned.
func TestDialNeedsACheckedPort(t *testing.T) {
	b := startBudget(capabilities.FetchDefaultTimeout, func(error) {})
	defer b.stop()
	p := newPins((&fakeDNS{}).resolve, nil, t.Context(), b)
	u, _ := url.Parse("http://Pin.Test:8080/")
	if err := p.approve(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	if _, err := p.dial(t.Context(), "tcp", "pin.test:9090"); err == nil || !strings.Contains(err.Error(), "not checked") {
		t.Errorf("dial to an unchecked port: %v", err)
	}
}

func TestOrigin(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:8080/docs":    "http://127.0.0.1:8080",
		"HTTPS://Example.COM/x?y":       "https://example.com:443",
		"http://example.com/":           "http://example.com:80",
		"http://user:pw@[::1]:9000/a":   "http://[::1]:9000",
		"https://example.com:443/again": "https://example.com:443",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := capabilities.Origin(u); got != want {
			t.Errorf("Origin(%s) = %s, want %s", raw, got, want)
		}
	}
}
