package nvimbuf_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities/nvimbuf"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// typeKeys queues keys as if the user typed them (nvim_input: Insert mode
// stays on, unlike feedkeys with "x"); callers wait for their effect.
func typeKeys(n *nvimtest.Nvim, keys string) {
	n.Lua(`vim.api.nvim_input(vim.api.nvim_replace_termcodes(..., true, false, true))`, keys)
}

func mode(n *nvimtest.Nvim) string {
	var m struct {
		Mode string `msgpack:"mode"`
	}
	n.LuaResult(&m, `return vim.api.nvim_get_mode()`)
	return m.Mode
}

// waitState waits until Neovim is in mode m with the current buffer
// holding lines.
func waitState(n *nvimtest.Nvim, m string, lines ...string) {
	n.T.Helper()
	var got []string
	n.WaitFor(m+" mode with "+strings.Join(lines, "|"), func() bool {
		n.LuaResult(&got, `return vim.api.nvim_buf_get_lines(0, 0, -1, false)`)
		return mode(n) == m && strings.Join(got, "\n") == strings.Join(lines, "\n")
	}, func() string { return mode(n) + ": " + strings.Join(got, "|") })
}

func diskText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// watchWaits counts the waits for the user that begin (the first poll of
// each, which also tells the user; the message itself is not kept in
// :messages while the command line is open on 0.7 and 0.10).
func watchWaits(n *nvimtest.Nvim) {
	n.Lua(`
		local files = require("magenta.files")
		local inserting = files.inserting
		_G.magenta_test_waits = 0
		files.inserting = function(path, tell)
			local yes = inserting(path, tell)
			if yes and tell then _G.magenta_test_waits = _G.magenta_test_waits + 1 end
			return yes
		end`)
}

// waitForWait waits until a write waits for the user.
func waitForWait(n *nvimtest.Nvim, path string) {
	n.T.Helper()
	n.WaitFor("the edit to wait for the user", func() bool {
		var waits int
		n.LuaResult(&waits, `return _G.magenta_test_waits`)
		return waits > 0
	}, func() string { return strings.Join(bufferLines(n, path), "|") })
}

// The user is typing a line in the buffer when the model's edit comes:
// the edit waits (the half-typed line reaches neither the edit nor the
// disk); once the user leaves Insert mode it is computed from the text
// they left and lands after their insert, as an undo step of its own:
// the first `u` undoes exactly the edit, the second the user's line.
func TestUpdateWaitsForTheUserToLeaveInsertMode(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		path := filepath.Join(n.Dir, "notes.txt")
		require.NoError(t, os.WriteFile(path, []byte("one\ntwo\n"), 0o644))
		n.Command("edit " + path)
		watchWaits(n)
		typeKeys(n, "Goha")
		waitState(n, "i", "one", "two", "ha")

		done := make(chan error, 1)
		go func() {
			done <- fs.Update(context.Background(), path, 1<<20, func(old []byte) ([]byte, error) {
				return append([]byte("zero\n"), old...), nil
			})
		}()
		waitForWait(n, path)
		assert.Contains(t, n.Messages(), "magenta: an edit of notes.txt waits until you leave Insert mode", "the user is told")
		select {
		case err := <-done:
			t.Fatalf("the edit ended while the user was typing: %v", err)
		default:
		}
		assert.Equal(t, "one\ntwo\n", diskText(t, path), "nothing saved while the user types")
		assert.Equal(t, []string{"one", "two", "ha"}, bufferLines(n, path), "the user's line untouched")
		assert.Equal(t, "i", mode(n))

		typeKeys(n, "lf<Esc>")
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(nvimtest.Wait):
			t.Fatal("the edit did not land after the user left Insert mode")
		}
		assert.Equal(t, "zero\none\ntwo\nhalf\n", diskText(t, path), "computed from the finished line, saved with it")
		assert.Equal(t, []string{"zero", "one", "two", "half"}, bufferLines(n, path))

		typeKeys(n, "u")
		waitState(n, "n", "one", "two", "half")
		typeKeys(n, "u")
		waitState(n, "n", "one", "two")
	})
}

// A user who stays in Insert mode longer than the write waits: the edit
// and the write fail with ErrUserTyping and change nothing; after they
// leave Insert mode the edit goes through.
func TestWriteGivesUpWhileTheUserKeepsTyping(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		fs = fs.WithInsertWait(300 * time.Millisecond)
		ctx := context.Background()
		path := filepath.Join(n.Dir, "notes.txt")
		require.NoError(t, os.WriteFile(path, []byte("one\ntwo\n"), 0o644))
		n.Command("edit " + path)
		typeKeys(n, "Goha")
		waitState(n, "i", "one", "two", "ha")

		prepend := func(old []byte) ([]byte, error) { return append([]byte("zero\n"), old...), nil }
		err := fs.Update(ctx, path, 1<<20, prepend)
		assert.ErrorIs(t, err, nvimbuf.ErrUserTyping)
		assert.ErrorContains(t, err, "the user is typing in this file in the editor and stayed in Insert mode for 300ms; nothing was changed, try again later")
		assert.ErrorIs(t, fs.WriteFile(ctx, path, []byte("whole\n")), nvimbuf.ErrUserTyping)
		assert.Equal(t, "one\ntwo\n", diskText(t, path))
		assert.Equal(t, []string{"one", "two", "ha"}, bufferLines(n, path))
		assert.Equal(t, "i", mode(n), "the user is still typing")

		typeKeys(n, "<Esc>")
		waitState(n, "n", "one", "two", "ha")
		require.NoError(t, fs.Update(ctx, path, 1<<20, prepend))
		assert.Equal(t, "zero\none\ntwo\nha\n", diskText(t, path))
	})
}

// An insert on hold for the command line (i_CTRL-R_=, where the mode
// reads "c") is still unfinished: the edit waits for it too.
func TestUpdateWaitsForAnInsertOnHoldForTheCommandLine(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		path := filepath.Join(n.Dir, "notes.txt")
		require.NoError(t, os.WriteFile(path, []byte("one\n"), 0o644))
		n.Command("edit " + path)
		watchWaits(n)
		typeKeys(n, "oha<C-r>=")
		n.WaitFor("the expression command line", func() bool { return mode(n) == "c" }, func() string { return mode(n) })

		done := make(chan error, 1)
		go func() {
			done <- fs.WriteFile(context.Background(), path, []byte("zero\none\n"))
		}()
		waitForWait(n, path)
		assert.Equal(t, "one\n", diskText(t, path), "nothing saved while the insert is on hold")

		typeKeys(n, "1+1<CR>")
		waitState(n, "i", "one", "ha2")
		typeKeys(n, "<Esc>")
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(nvimtest.Wait):
			t.Fatal("the write did not land after the user left Insert mode")
		}
		assert.Equal(t, "zero\none\n", diskText(t, path))
	})
}
