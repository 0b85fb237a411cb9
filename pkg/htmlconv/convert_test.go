package htmlconv

import (
	"strings"
	"testing"
)

const page = `<!DOCTYPE html>
<html><head><title>Title text</title>
<style>body { color: red } .stylemarker {}</style>
<script>var scriptMarker = 1;</script></head>
<body>
<nav><a href="/home">Navmarker home</a></nav>
<main>
<h1>Fruit   prices</h1>
<p>Prices of <b>fruit</b>, see <a href="/more?x=1">more</a>.</p>
<table>
<thead><tr><th>Fruit</th><th>Price</th></tr></thead>
<tbody><tr><td>Apple</td><td>1.20</td></tr>
<tr><td>Pear</td><td>0.80</td></tr></tbody>
</table>
<div hidden>Hiddenmarker</div>
<pre>line one
  indented   two</pre>
<aside>Asidemarker</aside>
<form><input value="Formmarker"><button>Buttonmarker</button></form>
<noscript>Noscriptmarker</noscript>
<ul><li>first item</li><li>second <i>item</i></li></ul>
</main>
<script>document.write("Scriptmarker2")</script>
<footer>Footermarker</footer>
</body></html>`

var droppedMarkers = []string{"scriptMarker", "Scriptmarker2", "stylemarker", "color: red", "Navmarker", "Footermarker", "Asidemarker", "Formmarker", "Buttonmarker", "Noscriptmarker"}

func TestHTMLToMarkdown(t *testing.T) {
	md, err := HTMLToMarkdown([]byte(page), "https://example.com/dir/page.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Fruit prices",
		"**fruit**",
		"[more](https://example.com/more?x=1)",
		"| Fruit | Price |",
		"|-------|-------|",
		"| Apple | 1.20  |",
		"| Pear  | 0.80  |",
		"line one\n  indented   two",
		"- first item",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, bad := range append(droppedMarkers, "Title text") {
		if strings.Contains(md, bad) {
			t.Errorf("markdown keeps %q:\n%s", bad, md)
		}
	}
}

func TestHTMLToMarkdownRelativeWithoutURL(t *testing.T) {
	md, err := HTMLToMarkdown([]byte(`<a href="/x">x</a>`), "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(md) != "[x](/x)" {
		t.Errorf("got %q", md)
	}
}

func TestHTMLToText(t *testing.T) {
	text := HTMLToText([]byte(page))
	want := "Fruit prices\n\n" +
		"Prices of fruit, see more.\n\n" +
		"Fruit Price\nApple 1.20\nPear 0.80\n\n" +
		"line one\n  indented   two\n\n" +
		"first item\nsecond item"
	if text != want {
		t.Errorf("HTMLToText:\n%q\nwant\n%q", text, want)
	}
	for _, bad := range append(droppedMarkers, "Hiddenmarker", "Title text") {
		if strings.Contains(text, bad) {
			t.Errorf("text keeps %q", bad)
		}
	}
}

func TestHTMLToTextInlineAndBreaks(t *testing.T) {
	got := HTMLToText([]byte("<p>  a<span>b</span>  c<br>d\n\n\te</p><div><div>x</div></div><p style=\"display: none\">gone</p>y"))
	if want := "ab c\nd e\n\nx\ny"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestInvalidUTF8(t *testing.T) {
	in := []byte("<p>caf\xe9 ok</p>")
	if got := HTMLToText(in); got != "caf\uFFFD ok" {
		t.Errorf("text %q", got)
	}
	md, err := HTMLToMarkdown(in, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(md) != "caf\uFFFD ok" {
		t.Errorf("markdown %q", md)
	}
}
