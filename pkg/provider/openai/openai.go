package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/provider"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// defaultBaseURL is where requests go when Options.BaseURL is empty.
const defaultBaseURL = "https://api.openai.com/v1/"

// Options configures a Chat Completions provider.
type Options struct {
	// BaseURL is the API root, e.g. "http://localhost:11434/v1". Empty
	// means OpenAI. A trailing slash is added when missing; "/v1" is not.
	BaseURL string
	// APIKey is sent as a bearer token. Empty sends no Authorization
	// header, which local servers accept.
	APIKey string
	// HTTPClient, when set, carries the requests; nil uses
	// http.DefaultClient.
	HTTPClient *http.Client
}

type client struct {
	svc sdk.ChatCompletionService
	// completionTokens selects max_completion_tokens over max_tokens.
	completionTokens bool
}

// New returns a Provider speaking the Chat Completions protocol. It fails
// only when BaseURL is not an absolute http(s) URL.
func New(opts Options) (provider.Provider, error) {
	base, err := normalizeBaseURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(base)
	reqOpts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithMaxRetries(0),
		option.WithMiddleware(markTransportErrors),
	}
	if opts.HTTPClient != nil {
		reqOpts = append(reqOpts, option.WithHTTPClient(opts.HTTPClient))
	}
	if opts.APIKey != "" {
		reqOpts = append(reqOpts, option.WithAPIKey(opts.APIKey))
	}
	// sdk.NewClient would merge OPENAI_* environment variables into the
	// options; building the service directly keeps only ours.
	return &client{
		svc:              sdk.NewChatCompletionService(reqOpts...),
		completionTokens: strings.EqualFold(u.Hostname(), "api.openai.com"),
	}, nil
}

// normalizeBaseURL validates raw and gives it a trailing slash, which the
// SDK needs to resolve "chat/completions" below the path instead of
// replacing its last segment.
func normalizeBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return defaultBaseURL, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("openai: invalid base URL %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("openai: base URL %q must be an absolute http or https URL", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u.String(), nil
}

// Stream sends req and streams the completion, see provider.Provider.
func (c *client) Stream(ctx context.Context, req provider.Request, emit func(provider.Event)) (*provider.Response, error) {
	params, err := buildParams(req, c.completionTokens)
	if err != nil {
		return nil, err
	}
	var httpResp *http.Response
	stream := c.svc.NewStreaming(ctx, params, option.WithResponseInto(&httpResp))
	defer stream.Close()

	acc := newAccumulator(emit)
	for stream.Next() {
		acc.add(stream.Current())
	}
	if err := stream.Err(); err != nil {
		var te *transportError
		if !acc.finished || ctx.Err() != nil || !errors.As(err, &te) {
			return nil, classify(ctx, err, httpResp)
		}
		// The model had finished; only the usage chunk or [DONE] was lost.
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("openai: %w", ctx.Err())
	}
	if !acc.finished {
		if acc.chunks == 0 && httpResp != nil && !isEventStream(httpResp) {
			return nil, &provider.Error{
				Kind:    provider.ErrProtocol,
				Status:  httpResp.StatusCode,
				Message: fmt.Sprintf("expected an event stream, got Content-Type %q", httpResp.Header.Get("Content-Type")),
			}
		}
		return nil, &provider.Error{
			Kind:      provider.ErrConnection,
			Message:   "stream ended before the model finished",
			Retryable: true,
		}
	}
	return acc.response(), nil
}

func isEventStream(resp *http.Response) bool {
	return strings.Contains(strings.ToLower(resp.Header.Get("Content-Type")), "event-stream")
}
