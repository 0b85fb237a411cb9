// Package htmlconv turns fetched HTML into what a model reads best:
// Markdown (headings, links made absolute, lists, code and tables kept;
// script, style, nav, footer, aside, noscript, iframe, svg and form
// removed, and hidden elements too, as in the text) or visible plain text. HTMLToMarkdown uses
// github.com/JohannesKaufmann/html-to-markdown/v2 with the table plugin;
// HTMLToText walks the golang.org/x/net/html tree, one block per line.
// Both assume UTF-8 and replace invalid bytes with U+FFFD. Pure
// functions: no I/O.
package htmlconv
