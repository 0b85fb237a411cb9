package providertest

import (
	"encoding/json"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// Block adds b to the response as it is, announcing nothing: what an
// adapter does with a server-side tool's blocks (the provider's own web
// search), which reach the thread only in the response.
func (c *Call) Block(b provider.Block) bool {
	return c.do(func(st *streamState) { st.msg.Content = append(st.msg.Content, b) })
}

// CitedText streams s as a new text block that cites sources, kept with
// raw, its provider form (as the Anthropic adapter keeps a text block
// with citations).
func (c *Call) CitedText(s string, raw json.RawMessage, sources ...provider.Source) bool {
	return c.do(func(st *streamState) {
		b := provider.TextBlock(s)
		b.Raw, b.Sources = raw, sources
		st.msg.Content = append(st.msg.Content, b)
		st.emit(provider.TextDelta{Index: len(st.msg.Content) - 1, Text: s})
	})
}
