package host_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// fakeWlPaste puts a wl-paste on PATH that lists the types in
// dir/types and prints dir/data, as the real one does for a clipboard.
func fakeWlPaste(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\ncase \"$1\" in\n--list-types) cat \"" + dir + "/types\" ;;\n*) cat \"" + dir + "/data\" ;;\nesac\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wl-paste"), []byte(script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// :Magenta paste-image: with no clipboard tool it says what to install;
// with text on the clipboard it says there is no image; with an image it
// writes it to a file and puts its @image mention in the input, and the
// message takes the image to the model.
func TestPasteImage(t *testing.T) {
	clip := fakeWlPaste(t)
	t.Setenv("DISPLAY", "") // the system's xclip must not answer
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, srv, _ := startAnthropic(t, bin, nil,
			providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "A screenshot."}}},
			providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "Nothing came."}}})
		n.Lua(`_G.notes = {}; vim.notify = function(m) table.insert(_G.notes, m) end`)
		lastNote := func() string {
			var notes []string
			n.LuaResult(&notes, `return _G.notes`)
			if len(notes) == 0 {
				return ""
			}
			return notes[len(notes)-1]
		}

		t.Setenv("WAYLAND_DISPLAY", "")
		n.Command("Magenta paste-image")
		assert.Contains(t, lastNote(), "magenta: paste-image: no clipboard tool found (wl-paste, xclip or pngpaste, with its display): install wl-clipboard (Wayland) or xclip (X11)")

		t.Setenv("WAYLAND_DISPLAY", "wayland-test")
		require.NoError(t, os.WriteFile(filepath.Join(clip, "types"), []byte("text/plain;charset=utf-8\nUTF8_STRING\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(clip, "data"), []byte("just text"), 0o644))
		n.Command("Magenta paste-image")
		assert.Contains(t, lastNote(), "magenta: paste-image: wl-paste: the clipboard holds no image (it holds text/plain;charset=utf-8, UTF8_STRING)")

		require.NoError(t, os.WriteFile(filepath.Join(clip, "types"), []byte("text/html\nimage/png\n"), 0o644))
		shot := pngFile(t, filepath.Join(clip, "data"), 16, 9)
		n.FocusRole("input")
		n.Type("what is this?")
		n.Command("Magenta paste-image")
		input := strings.Join(n.Lines(n.Buffer("input")), "\n")
		require.Contains(t, input, "what is this? @image:", "the mention goes at the end of the input")
		path := strings.TrimSpace(input[strings.Index(input, "@image:")+len("@image:"):])
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, shot, data)
		assert.True(t, strings.HasPrefix(filepath.Base(path), "clipboard-") && strings.HasSuffix(path, ".png"), path)

		n.Keys("<Esc>")
		n.FocusRole("input")
		n.Keys("<CR>")
		text := n.WaitForText("display", "A screenshot.")
		assert.Regexp(t, `\nimage: \S*clipboard-\d{8}-\d{6}-[0-9a-f]{8}\.png \(PNG, 16×9, `, text)
		imgs := wireImages(t, srv.Bodies()[0])
		require.Len(t, imgs, 1)
		assert.Equal(t, base64.StdEncoding.EncodeToString(shot), imgs[0].Source.Data)

		// A pasted file changed afterwards is not what was pasted: refused.
		n.FocusRole("input")
		n.Command("Magenta paste-image")
		input = strings.Join(n.Lines(n.Buffer("input")), "\n")
		path = strings.TrimSpace(input[strings.Index(input, "@image:")+len("@image:"):])
		pngFile(t, path, 5, 5)
		n.Keys("<Esc>")
		n.FocusRole("input")
		n.Keys("<CR>")
		text = n.WaitForText("display", "Nothing came.")
		assert.Contains(t, text, "(not sent: the pasted image's file changed since it was pasted; paste it again)")
	})
}
