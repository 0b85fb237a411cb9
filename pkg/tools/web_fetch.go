package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/htmlconv/child"
)

// WebFetchCharBudget caps what the model gets from one fetch; the rest is
// saved to a file.
const WebFetchCharBudget = 20000

//go:embed web_fetch.md
var webFetchDescription string

// WebFetchParams is the input of web_fetch.
type WebFetchParams struct {
	URL     string `json:"url" jsonschema:"the http or https URL to fetch"`
	Format  string `json:"format,omitempty" jsonschema:"markdown (default), text or html"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"timeout in seconds (optional)"`
}

// acceptFor is the Accept header per format: prefer what needs no
// conversion.
var acceptFor = map[string]string{
	"markdown": "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1",
	"text":     "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
	"html":     "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, */*;q=0.1",
}

type webFetchTool struct{ Tool }

// WebFetch returns the web_fetch tool.
func WebFetch() Tool {
	data := map[string]any{
		"DefaultTimeout": int(capabilities.FetchDefaultTimeout / time.Second),
		"MaxTimeout":     int(capabilities.FetchMaxTimeout / time.Second),
		"MaxMB":          capabilities.FetchMaxBytes >> 20,
		"MaxRedirects":   capabilities.FetchMaxRedirects,
		"CharBudget":     WebFetchCharBudget,
	}
	return &webFetchTool{Tool: MustTyped("web_fetch", webFetchDescription, data, runWebFetch)}
}

// Describe implements Describer.
func (*webFetchTool) Describe(input []byte) (string, string) {
	var p WebFetchParams
	if json.Unmarshal(input, &p) != nil {
		return "", ""
	}
	return p.URL, ""
}

func runWebFetch(ctx context.Context, call Call, p WebFetchParams) Result {
	if p.Format == "" {
		p.Format = "markdown"
	}
	accept, ok := acceptFor[p.Format]
	if !ok {
		return Errorf(fmt.Sprintf("format must be markdown, text or html, not %q", p.Format))
	}
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Errorf(fmt.Sprintf("url must be an http or https URL with a host, not %q", p.URL))
	}
	timeout := capabilities.FetchDefaultTimeout
	if p.Timeout < 0 || time.Duration(p.Timeout)*time.Second > capabilities.FetchMaxTimeout {
		return Errorf(fmt.Sprintf("timeout must be between 1 and %d seconds", int(capabilities.FetchMaxTimeout/time.Second)))
	}
	if p.Timeout > 0 {
		timeout = time.Duration(p.Timeout) * time.Second
	}
	if call.Env == nil || call.Env.Fetcher == nil {
		return Errorf("this environment cannot fetch web pages")
	}
	resp, err := call.Env.Fetcher.Fetch(ctx, capabilities.FetchRequest{
		ThreadID: call.ThreadID, RequestID: call.ID, URL: p.URL, Accept: accept, Timeout: timeout,
	})
	var denied *capabilities.DeniedError
	if errors.As(err, &denied) {
		return Result{Text: fmt.Sprintf("The fetch was not made: %s (%s).", denied.Reason, denied.What), IsError: true, Summary: "not fetched: " + denied.Reason}
	}
	if err != nil {
		return Errorf("fetch failed: " + err.Error())
	}
	if resp.Status < 200 || resp.Status > 299 {
		return Result{Text: fmt.Sprintf("HTTP %d %s from %s", resp.Status, http.StatusText(resp.Status), resp.URL), IsError: true,
			Summary: fmt.Sprintf("HTTP %d", resp.Status)}
	}
	text, capped, err := convert(ctx, resp, p.Format)
	if err != nil {
		return Errorf(err.Error())
	}
	return budgeted(call, resp, text, p.Format, capped)
}

// convert turns the body into the requested format; HTML is converted in
// a child process (package child), whose output may be cut.
func convert(ctx context.Context, resp *capabilities.FetchResponse, format string) (text string, capped bool, err error) {
	mediaType, _, _ := mime.ParseMediaType(resp.ContentType)
	isHTML := mediaType == "text/html" || mediaType == "application/xhtml+xml"
	textual := isHTML || strings.HasPrefix(mediaType, "text/") || mediaType == "" ||
		strings.HasSuffix(mediaType, "json") || strings.HasSuffix(mediaType, "xml") || mediaType == "application/javascript"
	if !textual {
		return "", false, fmt.Errorf("%s is %s, which web_fetch cannot show as text", resp.URL, mediaType)
	}
	if isHTML && (format == "markdown" || format == "text") {
		return child.Convert(ctx, format, resp.URL, resp.Body)
	}
	return strings.ToValidUTF8(string(resp.Body), "\uFFFD"), false, nil
}

// budgeted caps text at WebFetchCharBudget, saving the full text for the
// model to read when it is longer. capped: the conversion stopped at
// child.MaxOutput.
func budgeted(call Call, resp *capabilities.FetchResponse, text, format string, capped bool) Result {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", resp.URL, format)
	if resp.Truncated {
		fmt.Fprintf(&b, "(the page was longer than %d MB; only the first %d MB were read)\n", capabilities.FetchMaxBytes>>20, capabilities.FetchMaxBytes>>20)
	}
	if capped {
		fmt.Fprintf(&b, "(the converted text was longer than %d MB; only the first %d MB were kept)\n", child.MaxOutput>>20, child.MaxOutput>>20)
	}
	n := utf8.RuneCountInString(text)
	summary := fmt.Sprintf("%d characters", n)
	if n <= WebFetchCharBudget {
		b.WriteString("\n" + text)
		return Result{Text: b.String(), Summary: summary}
	}
	cut := string([]rune(text)[:WebFetchCharBudget])
	ext := map[string]string{"markdown": "md", "text": "txt", "html": "html"}[format]
	if call.Env.Artifacts != nil {
		if path, err := call.Env.Artifacts.Save(call.ThreadID, call.ID, "webFetch."+ext, []byte(text)); err == nil {
			fmt.Fprintf(&b, "(showing the first %d of %d characters; full text: %s)\n", WebFetchCharBudget, n, path)
			b.WriteString("\n" + cut)
			return Result{Text: b.String(), Summary: summary + ", trimmed", LogPath: path}
		}
	}
	fmt.Fprintf(&b, "(showing the first %d of %d characters)\n", WebFetchCharBudget, n)
	b.WriteString("\n" + cut)
	return Result{Text: b.String(), Summary: summary + ", trimmed"}
}
