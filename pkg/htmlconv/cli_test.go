package htmlconv

import (
	"errors"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

func runCLI(args []string, stdin string) (code int, stdout, stderr string) {
	var out, errb strings.Builder
	code = RunCLI(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunCLI(t *testing.T) {
	const in = `<h1>T</h1><p><a href="/x">x</a></p><script>s()</script>`
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"html-to-markdown", "--base", "https://ex.com/a/b"}, "# T\n\n[x](https://ex.com/x)"},
		{[]string{"html-to-markdown", "--base=https://ex.com/a/b"}, "# T\n\n[x](https://ex.com/x)"},
		{[]string{"html-to-markdown"}, "# T\n\n[x](/x)"},
		{[]string{"html-to-text"}, "T\n\nx"},
	} {
		code, out, errs := runCLI(tt.args, in)
		if code != 0 || out != tt.want || errs != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, %q", tt.args, code, out, errs, tt.want)
		}
	}
}

func TestRunCLIUsage(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"html-to-pdf"},
		{"html-to-text", "--base", "https://ex.com"},
		{"html-to-markdown", "--bogus"},
		{"html-to-markdown", "--base"},
		{"html-to-markdown", "extra"},
	} {
		code, out, errs := runCLI(args, "<p>x</p>")
		if code != 2 || out != "" || errs != cliUsage+"\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and the usage", args, code, out, errs)
		}
	}
	if !strings.HasPrefix(cliUsage, "usage: magenta-provider html-to-markdown [--base URL] | html-to-text") {
		t.Errorf("usage %q", cliUsage)
	}
}

// Only the first FetchMaxBytes of stdin are read, as a fetch reads only
// that much of a body.
func TestRunCLICapsInput(t *testing.T) {
	in := "<p>" + strings.Repeat("a", capabilities.FetchMaxBytes) + "</p><p>Aftermarker</p>"
	code, out, _ := runCLI([]string{"html-to-text"}, in)
	if code != 0 || strings.Contains(out, "Aftermarker") || len(out) != capabilities.FetchMaxBytes-len("<p>") {
		t.Errorf("exit %d, %d bytes out (Aftermarker: %v)", code, len(out), strings.Contains(out, "Aftermarker"))
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error)  { return 0, errors.New("read\nbroke") }
func (failing) Write([]byte) (int, error) { return 0, errors.New("write broke") }

func TestRunCLIIOErrors(t *testing.T) {
	var out, errb strings.Builder
	if code := RunCLI([]string{"html-to-text"}, failing{}, &out, &errb); code != 1 || errb.String() != "html-to-text: reading the page: read broke\n" {
		t.Errorf("read: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := RunCLI([]string{"html-to-markdown"}, strings.NewReader("<p>x</p>"), failing{}, &errb); code != 1 || errb.String() != "html-to-markdown: writing the text: write broke\n" {
		t.Errorf("write: exit %d, stderr %q", code, errb.String())
	}
}
