package remote_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// An image (a 1 MB PNG, as large a file as a screenshot) crosses the
// pipe to the provider process and reaches the Messages API as the
// adapter in this process would send it; a 400 about images keeps its
// kind and message, which the chat reads to stop sending them.
func TestImagesCrossTheProcess(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 600, 600))
	seed := uint32(7)
	for i := range src.Pix {
		seed = seed*1664525 + 1013904223
		src.Pix[i] = uint8(seed >> 24)
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, src))
	req := request("what is this?")
	req.Messages[0].Content = append([]provider.Block{{Kind: provider.BlockImage, MediaType: "image/png", Data: b.Bytes()}}, req.Messages[0].Content...)

	ok := providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "noise"}}}
	srv := providertest.NewAnthropicServer(t, ok, providertest.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "image exceeds 5 MB maximum"})
	p, err := newClient(t).Adapter(provider.Spec{Provider: "anthropic", BaseURL: srv.URL, APIKey: "k", IdleTimeout: wait})
	require.NoError(t, err)
	_, _, err = run(context.Background(), p, req)
	require.NoError(t, err)
	require.Len(t, srv.Bodies(), 1)
	assert.Contains(t, string(srv.Bodies()[0]), `"data":"`+base64.StdEncoding.EncodeToString(b.Bytes())+`","media_type":"image/png","type":"base64"`, "the whole image went")

	_, _, err = run(context.Background(), p, req)
	var pe *provider.Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, provider.ErrInvalid, pe.Kind)
	assert.Equal(t, 400, pe.Status)
	assert.Contains(t, pe.Message, "image exceeds 5 MB maximum")
}
