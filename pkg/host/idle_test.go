package host_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/backend"
)

// A reply that stalls after its first text (a real loopback server
// speaking the Messages API, then silent) ends, after the profile's
// idleTimeout set in setup(), with the error in the chat; the thread is
// ready again instead of "streaming" forever.
func TestStalledReplyShowsAnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("content-type", "text/event-stream")
		fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"+
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Half an ans\"}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin, "STALL_TEST_KEY=k")
		n.StartHost(host.Options{Version: "test", NewProvider: backend.Factory(func(string) string { return "k" }, provider.RetryPolicy{})})
		n.Setup(`{ profiles = { { name = "stall", provider = "anthropic", model = "m", apiKeyEnvVar = "STALL_TEST_KEY",
			baseUrl = "` + srv.URL + `", idleTimeout = 0.3 } } }`)
		n.Command("Magenta toggle")
		n.Type("hello")
		n.Keys("<CR>")
		n.WaitForText("display", "Half an ans")
		text := n.WaitForText("display", "the reply stalled and was given up")
		assert.Contains(t, text, "the server sent nothing for 300ms")
		assert.Contains(t, text, `idleTimeout in profile "stall"`)
		text = n.WaitForText("display", "ready")
		assert.False(t, strings.Contains(text, "streaming"), text)
	})
}
