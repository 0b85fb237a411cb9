package httpfetch

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

func TestFetchHeadersAndGzip(t *testing.T) {
	var ua, accept atomic.Value
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.UserAgent())
		accept.Store(r.Header.Get("Accept"))
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			http.Error(w, "no gzip", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write([]byte("<p>hello</p>"))
		_ = zw.Close()
	})
	dns := &fakeDNS{}
	var c checks
	resp, err := fetch(t, newFetcher(dns), capabilities.FetchRequest{
		URL: hostURL("A.Test", port, "/x"), Accept: "text/html", CheckHost: c.check,
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || string(resp.Body) != "<p>hello</p>" || resp.ContentType != "text/html; charset=utf-8" {
		t.Errorf("response %d %q %q", resp.Status, resp.ContentType, resp.Body)
	}
	if resp.Truncated || resp.Retried {
		t.Errorf("truncated=%v retried=%v", resp.Truncated, resp.Retried)
	}
	if resp.URL != hostURL("A.Test", port, "/x") {
		t.Errorf("URL %q", resp.URL)
	}
	if ua.Load() != DefaultUserAgent || accept.Load() != "text/html" {
		t.Errorf("User-Agent %q, Accept %q", ua.Load(), accept.Load())
	}
	if got := c.hosts(); !slices.Equal(got, []string{"a.test"}) {
		t.Errorf("checked %v", got)
	}
	if got := c.addrs["a.test"]; !slices.Equal(got, []netip.Addr{loopback}) {
		t.Errorf("check addrs %v", got)
	}
	if dns.count("a.test") != 1 {
		t.Errorf("lookups %v", dns.lookups)
	}
}

func TestFetchIPLiteralIsNotResolved(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })
	dns := &fakeDNS{}
	var c checks
	resp, err := fetch(t, newFetcher(dns), capabilities.FetchRequest{URL: srv.URL, CheckHost: c.check})
	if err != nil || string(resp.Body) != "ok" {
		t.Fatalf("%v %v", resp, err)
	}
	if len(dns.lookups) != 0 {
		t.Errorf("resolver called: %v", dns.lookups)
	}
	if !slices.Equal(c.hosts(), []string{"127.0.0.1"}) || !slices.Equal(c.addrs["127.0.0.1"], []netip.Addr{loopback}) {
		t.Errorf("checked %v %v", c.hosts(), c.addrs)
	}
}

func TestFetch404IsAResponse(t *testing.T) {
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusNotFound)
	})
	resp, err := fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: hostURL("a.test", port, "/")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 404 || strings.TrimSpace(string(resp.Body)) != "nope" {
		t.Errorf("got %d %q", resp.Status, resp.Body)
	}
}

func TestFetchTruncates(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 6<<20/16)
	for _, chunked := range []bool{false, true} {
		t.Run("chunked="+strconv.FormatBool(chunked), func(t *testing.T) {
			_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
				if chunked {
					w.(http.Flusher).Flush() // headers go out without a length
				} else {
					w.Header().Set("Content-Length", strconv.Itoa(len(big)))
				}
				_, _ = w.Write(big)
			})
			resp, err := fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: hostURL("a.test", port, "/")})
			if err != nil {
				t.Fatal(err)
			}
			if !resp.Truncated || len(resp.Body) != capabilities.FetchMaxBytes {
				t.Fatalf("truncated=%v len=%d", resp.Truncated, len(resp.Body))
			}
			if !bytes.Equal(resp.Body, big[:capabilities.FetchMaxBytes]) {
				t.Error("body is not the first MaxBytes bytes")
			}
		})
	}
}

func TestFetchMaxBytesBoundary(t *testing.T) {
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		_, _ = w.Write(bytes.Repeat([]byte("x"), n))
	})
	f := newFetcher(&fakeDNS{})
	for _, tc := range []struct {
		n         int
		truncated bool
	}{{999, false}, {1000, false}, {1001, true}} {
		resp, err := fetch(t, f, capabilities.FetchRequest{URL: hostURL("a.test", port, "/?n="+strconv.Itoa(tc.n)), MaxBytes: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Truncated != tc.truncated || len(resp.Body) != min(tc.n, 1000) {
			t.Errorf("n=%d: truncated=%v len=%d", tc.n, resp.Truncated, len(resp.Body))
		}
	}
}

// hopServer redirects /hop/N on hN.test to /hop/N+1 on hN+1.test until
// N reaches hops, and counts the requests per host.
func hopServer(t *testing.T, hops int) (port string, hits *sync.Map) {
	hits = &sync.Map{}
	_, port = server(t, func(w http.ResponseWriter, r *http.Request) {
		n := 0
		_, _ = fmt.Sscanf(r.URL.Path, "/hop/%d", &n)
		v, _ := hits.LoadOrStore(strings.Split(r.Host, ":")[0], new(atomic.Int32))
		v.(*atomic.Int32).Add(1)
		if n < hops {
			http.Redirect(w, r, hostURL(fmt.Sprintf("h%d.test", n+1), port, fmt.Sprintf("/hop/%d", n+1)), http.StatusFound)
			return
		}
		_, _ = fmt.Fprintf(w, "arrived at %d", n)
	})
	return port, hits
}

func TestRedirectChainChecksEachHost(t *testing.T) {
	port, _ := hopServer(t, 3)
	dns := &fakeDNS{}
	var c checks
	resp, err := fetch(t, newFetcher(dns), capabilities.FetchRequest{URL: hostURL("h0.test", port, "/hop/0"), CheckHost: c.check})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "arrived at 3" || resp.URL != hostURL("h3.test", port, "/hop/3") {
		t.Errorf("got %q at %s", resp.Body, resp.URL)
	}
	want := []string{"h0.test", "h1.test", "h2.test", "h3.test"}
	if got := c.hosts(); !slices.Equal(got, want) {
		t.Errorf("checked %v, want %v", got, want)
	}
	for _, h := range want {
		if !slices.Equal(c.addrs[h], []netip.Addr{loopback}) {
			t.Errorf("%s checked with %v", h, c.addrs[h])
		}
		if dns.count(h) != 1 {
			t.Errorf("%s resolved %d times", h, dns.count(h))
		}
	}
}

func TestRedirectLimit(t *testing.T) {
	port, _ := hopServer(t, capabilities.FetchMaxRedirects)
	resp, err := fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: hostURL("h0.test", port, "/hop/0")})
	if err != nil || string(resp.Body) != "arrived at 10" {
		t.Fatalf("10 redirects: %v %v", resp, err)
	}

	port, hits := hopServer(t, capabilities.FetchMaxRedirects+1)
	var c checks
	_, err = fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: hostURL("h0.test", port, "/hop/0"), CheckHost: c.check})
	if err == nil || !strings.Contains(err.Error(), "too many redirects") || !errors.Is(err, errTooManyRedirects) {
		t.Fatalf("11 redirects: %v", err)
	}
	if _, ok := hits.Load("h11.test"); ok || slices.Contains(c.hosts(), "h11.test") {
		t.Error("the 11th redirect was followed")
	}
}

func TestRedirectToOtherSchemeRefused(t *testing.T) {
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	_, err := fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: hostURL("a.test", port, "/")})
	if err == nil || !strings.Contains(err.Error(), `"file"`) {
		t.Fatalf("got %v", err)
	}
}

func TestRejectsNonHTTP(t *testing.T) {
	dns := &fakeDNS{}
	f := newFetcher(dns)
	for _, tc := range []struct{ url, want string }{
		{"file:///etc/passwd", `"file"`},
		{"ftp://example.com/x", `"ftp"`},
		{"gopher://example.com/", `"gopher"`},
		{"javascript:alert(1)", `"javascript"`},
		{"example.com/page", "no scheme"},
		{"http:///path", "no host"},
		{"https://", "no host"},
		{"http://bücher.test/", "not ASCII"},
	} {
		_, err := fetch(t, f, capabilities.FetchRequest{URL: tc.url})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %s", tc.url, err, tc.want)
		}
	}
	if len(dns.lookups) != 0 {
		t.Errorf("resolved %v", dns.lookups)
	}
}
