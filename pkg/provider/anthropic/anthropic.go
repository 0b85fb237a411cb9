package anthropic

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// Options configures a provider.
type Options struct {
	// BaseURL is the API root, such as "https://api.anthropic.com".
	// Empty selects the SDK's default. Environment variables never
	// override it.
	BaseURL string
	// APIKey is sent as the x-api-key header. It may be empty, in which
	// case no key header is sent and the server answers 401.
	APIKey string
	// HTTPClient sends the requests; nil selects http.DefaultClient.
	HTTPClient *http.Client
}

type client struct {
	api sdk.Client
}

// New returns a provider that talks to the Messages API described by
// opts. It does not contact the server.
func New(opts Options) (provider.Provider, error) {
	ro := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithoutOpenTelemetry(),
		option.WithOpenTelemetryPropagation(false),
		option.WithMaxRetries(0),
		option.WithMiddleware(markTransportErrors),
	}
	if opts.BaseURL != "" {
		u, err := url.Parse(opts.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("anthropic: invalid base URL %q", opts.BaseURL)
		}
		ro = append(ro, option.WithBaseURL(opts.BaseURL))
	}
	if opts.APIKey != "" {
		ro = append(ro, option.WithAPIKey(opts.APIKey))
	}
	if opts.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(opts.HTTPClient))
	}
	return &client{api: sdk.NewClient(ro...)}, nil
}

// Stream implements provider.Provider.
func (c *client) Stream(ctx context.Context, req provider.Request, emit func(provider.Event)) (*provider.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, cancelled(err)
	}
	if emit == nil {
		emit = func(provider.Event) {}
	}
	params, err := buildParams(req)
	if err != nil {
		return nil, err
	}
	stream := c.api.Messages.NewStreaming(ctx, params)
	defer stream.Close()

	st := newStreamState()
	for !st.stopped && stream.Next() {
		if err := st.handle(stream.Current(), emit); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, cancelled(ctxErr)
			}
			return nil, err
		}
	}
	if !st.stopped {
		if err := stream.Err(); err != nil {
			return nil, classify(ctx, err)
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, cancelled(ctxErr)
		}
		return nil, &provider.Error{
			Kind:      provider.ErrConnection,
			Message:   "the stream ended early: the connection closed before message_stop",
			Retryable: true,
		}
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, cancelled(ctxErr)
	}
	return st.response(), nil
}
