// Package child converts fetched HTML to Markdown or text in a one-shot
// child process, so that the host does not link the converter.
//
// The conversion (package htmlconv) needs golang.org/x/net/html and
// github.com/JohannesKaufmann/html-to-markdown, whose package
// initialisers (x/net/html alone builds a map of some 2,000 entities)
// cost page faults and CPU at every host start, on the way to the first
// :Magenta toggle frame, for a tool most sessions never call. So the
// host runs instead BinaryName, the provider process's executable built
// beside it, as `magenta-provider html-to-markdown --base URL` or
// `magenta-provider html-to-text`: the page on its stdin, the converted
// text on its stdout (htmlconv.RunCLI). One process per conversion:
// some 20 ms (most of it the provider executable's start), small against
// a fetch's network round trips.
//
// Convert bounds the child: Timeout on top of the caller's context (which
// kills it when done), MaxOutput bytes of output. A missing executable is
// reported with what to build. This package must not import htmlconv
// (TestNoConverterLinked).
//
// Tests have no magenta-provider beside their binary: their TestMain
// calls childtest.ServeIfAsked, which makes the test binary the
// converter.
package child
