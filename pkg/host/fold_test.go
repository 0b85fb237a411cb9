package host_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// One huge text delta (here about 8 MB: 300 000 lines and a 2 MB line)
// leaves a bounded display buffer: the block is folded, and the marker
// names a file holding the whole text.
func TestHugeDeltaIsFolded(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 300000; i++ {
		fmt.Fprintf(&b, "output line %d\n", i)
	}
	b.WriteString(strings.Repeat("x", 2<<20) + "\nthe end")
	huge := b.String()

	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		fake := providertest.New()
		n.StartHost(host.Options{Version: "test", NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil }})
		logs := filepath.Join(n.Dir, "logs")
		n.Setup(`{ profiles = { { name = "p", provider = "anthropic", model = "m" } }, shell = { logRoot = "` + logs + `" } }`)
		n.Command("Magenta toggle")
		n.Type("dump it")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.Text(huge)
		call.Stop(provider.StopEndTurn)
		text := n.WaitForText("display", "full text in ")
		n.WaitForText("display", "ready")

		lines := n.Lines(n.Buffer("display"))
		assert.Less(t, len(lines), view.FoldHeadLines+view.FoldTailLines+50, "lines in the display buffer")
		assert.Less(t, len(text), 200<<10, "bytes in the display buffer")
		// 300 001 finished lines (the long one too); 1 000 + 200 shown.
		for _, want := range []string{"output line 1000\n[… 298801 lines folded; full text in ", "the end", "bytes folded]"} {
			assert.True(t, strings.Contains(text, want), "the display shows %q", want)
		}

		m := regexp.MustCompile(`full text in (\S+)\]`).FindStringSubmatch(text)
		require.NotNil(t, m)
		assert.True(t, strings.HasPrefix(m[1], logs), m[1])
		saved, err := os.ReadFile(m[1])
		require.NoError(t, err)
		assert.True(t, string(saved) == huge, "the saved file holds the whole reply (%d of %d bytes)", len(saved), len(huge))
	})
}
