package htmlconv

import (
	"bytes"
	"strings"
	"sync"
	"unicode"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// removed are the elements whose content is not page text: dropped by
// both conversions.
var removed = []string{"script", "style", "nav", "footer", "aside", "noscript", "iframe", "svg", "form"}

// markdown is shared: the library's Converter is safe for concurrent use.
var markdown = sync.OnceValue(func() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
	))
	for _, tag := range removed {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	return conv
})

var replacement = []byte(string(unicode.ReplacementChar))

// HTMLToMarkdown converts an HTML page to Markdown: tables stay Markdown
// tables; script, style, nav, footer, aside, noscript, iframe, svg and
// form are dropped, and so is every hidden element (the same test as
// HTMLToText: hidden text is a known way to slip instructions to the
// model that the user never sees); relative links and images are made
// absolute against pageURL (when not empty). Invalid UTF-8 becomes U+FFFD.
func HTMLToMarkdown(page []byte, pageURL string) (string, error) {
	var opts []converter.ConvertOptionFunc
	if pageURL != "" {
		opts = append(opts, converter.WithDomain(pageURL))
	}
	doc, err := html.Parse(bytes.NewReader(bytes.ToValidUTF8(page, replacement)))
	if err != nil {
		return "", err
	}
	removeHidden(doc)
	out, err := markdown().ConvertNode(doc, opts...)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// removeHidden deletes hidden elements and <template> contents from the
// tree under n.
func removeHidden(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && (c.DataAtom == atom.Template || hidden(c)) {
			n.RemoveChild(c)
		} else {
			removeHidden(c)
		}
		c = next
	}
}

// HTMLToText returns the visible text of an HTML page: the head, hidden
// elements and the elements HTMLToMarkdown drops are skipped, block
// elements start new lines (paragraphs and headings are separated by a
// blank line), whitespace is collapsed except inside <pre>. Invalid UTF-8
// becomes U+FFFD.
func HTMLToText(page []byte) string {
	doc, err := html.Parse(bytes.NewReader(bytes.ToValidUTF8(page, replacement)))
	if err != nil {
		return ""
	}
	var w textWriter
	w.node(doc, false)
	return strings.TrimRightFunc(w.b.String(), unicode.IsSpace)
}

var skipText = map[atom.Atom]bool{
	atom.Head: true, atom.Title: true, atom.Template: true, atom.Select: true,
	atom.Input: true, atom.Textarea: true, atom.Button: true,
}

func init() {
	for _, tag := range removed {
		skipText[atom.Lookup([]byte(tag))] = true
	}
}

// paragraphs get a blank line around them; other blocks one newline.
var paragraphs = map[atom.Atom]bool{
	atom.P: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Pre: true, atom.Blockquote: true,
	atom.Table: true, atom.Ul: true, atom.Ol: true, atom.Dl: true,
	atom.Figure: true, atom.Hr: true,
}

var blocks = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Body: true, atom.Caption: true,
	atom.Dd: true, atom.Details: true, atom.Dialog: true, atom.Div: true,
	atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true, atom.Header: true,
	atom.Hgroup: true, atom.Html: true, atom.Legend: true, atom.Li: true,
	atom.Main: true, atom.Section: true, atom.Summary: true, atom.Tbody: true,
	atom.Tfoot: true, atom.Thead: true, atom.Tr: true,
}

// textWriter accumulates text, collapsing whitespace as it goes.
type textWriter struct {
	b        strings.Builder
	newlines int  // newlines at the end of b
	space    bool // a space is due before the next word
}

func (w *textWriter) node(n *html.Node, pre bool) {
	switch n.Type {
	case html.TextNode:
		if pre {
			w.raw(n.Data)
		} else {
			w.text(n.Data)
		}
		return
	case html.ElementNode:
		if skipText[n.DataAtom] || hidden(n) {
			return
		}
	case html.DocumentNode:
	default:
		return
	}
	breaks := 0
	switch {
	case paragraphs[n.DataAtom]:
		breaks = 2
	case blocks[n.DataAtom]:
		breaks = 1
	case n.DataAtom == atom.Br:
		w.breakLine(1)
		return
	}
	w.breakLine(breaks)
	pre = pre || n.DataAtom == atom.Pre
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c, pre)
	}
	if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
		w.space = true
	}
	w.breakLine(breaks)
}

// hidden reports elements marked invisible by attribute or inline style.
func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch strings.ToLower(a.Key) {
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(strings.TrimSpace(a.Val), "true") {
				return true
			}
		case "style":
			s := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

func (w *textWriter) text(s string) {
	for _, r := range s {
		if unicode.IsSpace(r) {
			w.space = true
			continue
		}
		if w.space && w.b.Len() > 0 && w.newlines == 0 {
			w.b.WriteByte(' ')
		}
		w.space = false
		w.b.WriteRune(r)
		w.newlines = 0
	}
}

func (w *textWriter) raw(s string) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return
	}
	if w.space && w.b.Len() > 0 && w.newlines == 0 {
		w.b.WriteByte(' ')
	}
	w.space = false
	w.b.WriteString(s)
	trimmed := strings.TrimRight(s, "\n")
	if trimmed == "" {
		w.newlines += len(s)
	} else {
		w.newlines = len(s) - len(trimmed)
	}
}

// breakLine ends the current line so that at least n newlines separate
// it from what follows; nothing is written at the start of the text.
func (w *textWriter) breakLine(n int) {
	if n == 0 {
		return
	}
	w.space = false
	if w.b.Len() == 0 {
		return
	}
	for ; w.newlines < n; w.newlines++ {
		w.b.WriteByte('\n')
	}
}
