// Package httpfetch implements capabilities.Fetcher over net/http, and
// the HTML conversions the web_fetch tool applies to what it fetches.
//
// # Pinning
//
// Before an origin (scheme, host and port: capabilities.Origin) is first
// contacted (the first URL's, and every redirect target's that is new to
// the fetch) its host is resolved, once per fetch (an IP literal
// resolves to itself), FetchRequest.CheckHost approves the URL on those
// addresses, and they are pinned: each Fetch uses a fresh http.Transport
// whose DialContext ignores DNS and dials only the pinned addresses of
// the host, in order, and only on ports an approved origin opened.
// A host that changes its DNS answer between the check and the
// connection (DNS rebinding) therefore cannot move the connection, and
// a host or port that was never checked cannot be dialed at all; a
// redirect to another port of an approved host is checked again. Proxies from
// the environment are disabled, since a proxy would resolve the name
// itself. Host names are compared lowercased; non-ASCII host names are
// refused (give them in xn-- form). HTTP/2 over TLS still works.
//
// # Redirects
//
// At most capabilities.FetchMaxRedirects redirects are followed over the
// whole fetch (including a challenge retry), then Fetch fails with "too
// many redirects". Redirects to schemes other than http and https are
// refused; https to http is allowed but is a new origin, checked like any.
//
// # Limits
//
// FetchRequest.Timeout (default FetchDefaultTimeout, capped at
// FetchMaxTimeout) bounds the whole fetch: resolution, connections,
// redirects and the body. Time spent inside CheckHost is not counted
// (the clock is paused), and CheckHost gets the caller's context, not
// the timed one, because a check may wait for the user to approve the
// host; the caller's cancellation still ends it. The body is read up to MaxBytes
// (default FetchMaxBytes); Truncated is set when more arrived or the
// Content-Length announced more. A non-2xx status is a response, not an
// error; gzip is decoded transparently.
//
// # Retries
//
// A Cloudflare challenge (403 with "cf-mitigated: challenge") is
// retried once on the same URL with a browser-like User-Agent, and the
// response says Retried; a challenge that persists is returned as the
// 403 response.
//
// Converting what was fetched is package htmlconv's business.
package httpfetch
