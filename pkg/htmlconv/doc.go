// Package htmlconv turns fetched HTML into what a model reads best:
// Markdown (headings, links made absolute, lists, code and tables kept;
// script, style, nav, footer, aside, noscript, iframe, svg and form
// removed, and hidden elements too, as in the text) or visible plain text. HTMLToMarkdown uses
// github.com/JohannesKaufmann/html-to-markdown/v2 with the table plugin;
// HTMLToText walks the golang.org/x/net/html tree, one block per line.
// Both assume UTF-8 and replace invalid bytes with U+FFFD. Pure
// functions: no I/O.
//
// The host does not link this package: the initialisers of x/net/html
// (a map of some 2,000 entities) and html-to-markdown would cost page
// faults and CPU at every host start, on the way to the first :Magenta
// toggle frame. web_fetch converts through package child instead, which
// runs magenta-provider's converter mode, one process per page; RunCLI
// is that mode's command line (stdin to stdout), shared by
// magenta-provider and package childtest.
package htmlconv
