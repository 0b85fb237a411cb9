package host_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/anthropic"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// An MCP server (built with the Go SDK) whose tool returns an image: the
// image reaches the model inside the tool result, on the wire, and the
// chat draws its line; a corrupt one is not passed on, and the model is
// told so.
func TestMCPImageReachesTheModel(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	envKey, envVal, _ := strings.Cut(mcptest.Env(), "=")
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		srv := providertest.NewAnthropicServer(t,
			providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "hi"}}},
			providertest.Reply{StopReason: "tool_use", Blocks: []providertest.ReplyBlock{
				{Type: "tool_use", ID: "toolu_i", Name: "mcp__t__image", Input: `{}`},
				{Type: "tool_use", ID: "toolu_b", Name: "mcp__t__broken_image", Input: `{}`},
			}},
			providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "Seen it."}}},
		)
		n := nvimtest.Start(t, bin)
		n.StartHost(host.Options{Version: "test", NewProvider: func(config.Profile) (provider.Provider, error) {
			return anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "k"})
		}})
		n.Setup(fmt.Sprintf(`{
			profiles = { { name = "fast", provider = "anthropic", model = "model-a" } },
			sandbox = { enabled = false },
			mcpServers = { t = { command = %q, env = { %s = %q }, allow = { "image", "broken_image" } } },
		}`, exe, envKey, envVal))
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Type("hello")
		n.Keys("<CR>")
		n.WaitForText("display", "hi")
		var status []mcpStatus
		n.WaitFor("the MCP server to be ready", func() bool {
			n.LuaResult(&status, `return require('magenta.host').request('mcp')`)
			return len(status) == 1 && status[0].State == "ready"
		}, func() string { return fmt.Sprintf("%+v", status) })

		n.Type("show me")
		n.Keys("<CR>")
		text := n.WaitForText("display", "Seen it.")
		assert.Contains(t, text, "  image: PNG, 3×2, ")

		bodies := srv.Bodies()
		require.Len(t, bodies, 3)
		imgs := wireImages(t, bodies[2])
		require.Len(t, imgs, 1, "the corrupt image is not passed on")
		assert.Equal(t, "image/png", imgs[0].Source.MediaType)
		assert.Equal(t, base64.StdEncoding.EncodeToString(mcptest.PNG), imgs[0].Source.Data)
		assert.Contains(t, string(bodies[2]), "was not passed on: corrupt or truncated image: PNG")
	})
}
