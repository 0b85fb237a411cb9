package httpfetch

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// dialTrace records the addresses the fetch dials.
type dialTrace struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dialTrace) ctx(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		ConnectStart: func(_, addr string) {
			d.mu.Lock()
			defer d.mu.Unlock()
			d.addrs = append(d.addrs, addr)
		},
	})
}

func (d *dialTrace) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.addrs)
}

func TestPinnedAddressIsDialedAndResolvedOnce(t *testing.T) {
	var challenged atomic.Bool
	var local sync.Map
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) {
		local.Store(r.Context().Value(http.LocalAddrContextKey).(net.Addr).String(), true)
		w.Header().Set("Connection", "close") // every request dials again
		switch {
		case r.URL.Path == "/":
			http.Redirect(w, r, "/next", http.StatusFound)
		case !challenged.Swap(true):
			w.Header().Set("Cf-Mitigated", "challenge")
			w.WriteHeader(http.StatusForbidden)
		default:
			_, _ = w.Write([]byte("pinned"))
		}
	})
	// The first answer passes the check; any later one would point at an
	// address nothing listens on.
	dns := &fakeDNS{answer: func(_ string, n int) []netip.Addr {
		if n == 1 {
			return []netip.Addr{loopback}
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.2")}
	}}
	var c checks
	var trace dialTrace
	resp, err := newFetcher(dns).Fetch(trace.ctx(t.Context()), capabilities.FetchRequest{URL: hostURL("pin.test", port, "/"), CheckHost: c.check})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "pinned" || !resp.Retried {
		t.Errorf("got %q retried=%v", resp.Body, resp.Retried)
	}
	if n := dns.count("pin.test"); n != 1 {
		t.Errorf("resolved %d times, want once per fetch", n)
	}
	if !slices.Equal(c.hosts(), []string{"pin.test"}) {
		t.Errorf("checked %v", c.hosts())
	}
	dials := trace.list()
	if len(dials) != 3 {
		t.Errorf("dials %v, want 3 (one per request)", dials)
	}
	for _, d := range dials {
		if d != "127.0.0.1:"+port {
			t.Errorf("dialed %s, want only the pinned 127.0.0.1:%s", d, port)
		}
	}
	local.Range(func(k, _ any) bool {
		if k != "127.0.0.1:"+port {
			t.Errorf("server saw a connection on %v", k)
		}
		return true
	})
}

func TestPinnedAddressesTriedInOrder(t *testing.T) {
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("second")) })
	two := []netip.Addr{netip.MustParseAddr("127.0.0.2"), loopback} // nothing listens on .2
	dns := &fakeDNS{answer: func(string, int) []netip.Addr { return two }}
	var c checks
	var trace dialTrace
	resp, err := newFetcher(dns).Fetch(trace.ctx(t.Context()), capabilities.FetchRequest{URL: hostURL("two.test", port, "/"), CheckHost: c.check})
	if err != nil || string(resp.Body) != "second" {
		t.Fatalf("%v %v", resp, err)
	}
	if !slices.Equal(c.addrs["two.test"], two) {
		t.Errorf("checked with %v", c.addrs["two.test"])
	}
	if want := []string{"127.0.0.2:" + port, "127.0.0.1:" + port}; !slices.Equal(trace.list(), want) {
		t.Errorf("dialed %v, want %v", trace.list(), want)
	}
}

func TestConnectError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strings.Split(ln.Addr().String(), ":")[1]
	_ = ln.Close()
	_, err = fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: hostURL("dead.test", port, "/")})
	if err == nil || !strings.Contains(err.Error(), "connect to dead.test: ") || strings.Contains(err.Error(), `Get "`) {
		t.Fatalf("got %v", err)
	}
}

func TestCheckHostErrorPreventsConnection(t *testing.T) {
	var hits sync.Map
	var port string
	_, port = server(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Store(strings.Split(r.Host, ":")[0], true)
		if strings.HasPrefix(r.Host, "ok.test") {
			http.Redirect(w, r, hostURL("evil.test", port, "/"), http.StatusFound)
		}
	})
	denied := errors.New("not on the list")
	c := checks{deny: map[string]error{"evil.test": denied}}
	f := newFetcher(&fakeDNS{})

	_, err := fetch(t, f, capabilities.FetchRequest{URL: hostURL("evil.test", port, "/"), CheckHost: c.check})
	if !errors.Is(err, denied) || !strings.Contains(err.Error(), "evil.test") {
		t.Fatalf("direct: %v", err)
	}
	_, err = fetch(t, f, capabilities.FetchRequest{URL: hostURL("ok.test", port, "/"), CheckHost: c.check})
	if !errors.Is(err, denied) {
		t.Fatalf("redirect: %v", err)
	}
	if _, ok := hits.Load("evil.test"); ok {
		t.Error("the server was contacted for a rejected host")
	}
	if _, ok := hits.Load("ok.test"); !ok {
		t.Error("the approved host was not contacted")
	}
}

func TestResolverErrorPreventsConnection(t *testing.T) {
	var hit atomic.Bool
	_, port := server(t, func(w http.ResponseWriter, r *http.Request) { hit.Store(true) })
	nx := errors.New("no such host")
	f := New(Options{Resolver: func(context.Context, string) ([]netip.Addr, error) { return nil, nx }})
	_, err := fetch(t, f, capabilities.FetchRequest{URL: hostURL("nx.test", port, "/")})
	if !errors.Is(err, nx) || !strings.Contains(err.Error(), "resolve nx.test") || hit.Load() {
		t.Fatalf("got %v (server hit: %v)", err, hit.Load())
	}
	f = New(Options{Resolver: func(context.Context, string) ([]netip.Addr, error) { return nil, nil }})
	if _, err := fetch(t, f, capabilities.FetchRequest{URL: hostURL("nx.test", port, "/")}); err == nil || !strings.Contains(err.Error(), "no addresses") {
		t.Fatalf("empty answer: %v", err)
	}
}

// TestHTTP2AndDowngrade: HTTP/2 still works over TLS with pinned dials,
// and an https→http redirect is followed with the new host checked.
func TestHTTP2AndDowngrade(t *testing.T) {
	_, plainPort := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("plain")) })
	var proto atomic.Int32
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto.Store(int32(r.ProtoMajor))
		http.Redirect(w, r, hostURL("plain.test", plainPort, "/"), http.StatusFound)
	}))
	tlsSrv.EnableHTTP2 = true
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted handshake below
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	u, _ := url.Parse(tlsSrv.URL)
	secure := "https://secure.example.com:" + u.Port() + "/"

	var c checks
	f := newFetcher(&fakeDNS{})
	f.tlsConfig = &tls.Config{RootCAs: tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	resp, err := fetch(t, f, capabilities.FetchRequest{URL: secure, CheckHost: c.check})
	if err != nil || string(resp.Body) != "plain" {
		t.Fatalf("%v %v", resp, err)
	}
	if proto.Load() != 2 {
		t.Errorf("TLS request used HTTP/%d, want HTTP/2", proto.Load())
	}
	if !slices.Equal(c.hosts(), []string{"secure.example.com", "plain.test"}) {
		t.Errorf("checked %v", c.hosts())
	}

	// Without trusting the test CA the fetch fails on the certificate.
	_, err = fetch(t, newFetcher(&fakeDNS{}), capabilities.FetchRequest{URL: secure})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("untrusted certificate: %v", err)
	}
}
