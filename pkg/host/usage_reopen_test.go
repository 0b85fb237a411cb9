package host_test

import (
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// assertOrder checks that each of subs appears in text after the one
// before it.
func assertOrder(t *testing.T, text string, subs ...string) {
	t.Helper()
	at := 0
	for _, s := range subs {
		i := strings.Index(text[at:], s)
		if i < 0 {
			t.Errorf("%q does not follow %q in:\n%s", s, text[:at], text)
			return
		}
		at += i + len(s)
	}
}

// openIn opens a Neovim whose data directory (saved threads) is dataDir,
// with the host on a scripted provider and the sidebar not yet open.
func openIn(t *testing.T, bin, dataDir, work string) (*nvimtest.Nvim, *providertest.Fake, *host.Host) {
	n := nvimtest.Start(t, bin, "XDG_DATA_HOME="+dataDir)
	fake := providertest.New()
	h := n.StartHost(host.Options{Version: "test", NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil }})
	n.Command("cd " + work)
	n.Setup(testOptions)
	return n, fake, h
}

// The usage line after each turn is drawn again when the thread is
// reopened — from :Magenta threads, and when a new host resumes the
// thread its predecessor showed (:Magenta restart) — in its place; and a
// message sent while a turn runs is drawn below that turn's usage line,
// not above it.
func TestUsageLinesSurviveReopenAndQueuedMessagesFollowThem(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		dataDir, work := t.TempDir(), t.TempDir()
		n, fake, h := openIn(t, bin, dataDir, work)
		n.Command("Magenta toggle")
		n.Type("first")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.Text("one")
		n.WaitForText("display", "one")
		n.Type("queued meanwhile")
		n.Keys("<CR>")
		n.WaitForText("display", "1 queued")
		call.Usage(provider.Usage{InputTokens: 100, OutputTokens: 7})
		call.Stop(provider.StopEndTurn)
		second := fake.Next(t)
		second.Usage(provider.Usage{InputTokens: 200, OutputTokens: 9})
		second.Reply("two")
		n.WaitForText("display", "ℹ turn: 200 in · 9 out")
		live := n.WaitForText("display", "ready")
		order := []string{"first", "one", "ℹ turn: 100 in · 7 out", "queued meanwhile", "two", "ℹ turn: 200 in · 9 out"}
		assertOrder(t, live, order...)
		id := h.App().ActiveThreadID()
		h.Close() // the editor exits

		// Reopened from the thread list.
		n, _, h = openIn(t, bin, dataDir, work)
		n.Command("Magenta toggle")
		n.Command("Magenta threads")
		n.WaitForText("display", "saved, 4 messages")
		n.FocusRole("display")
		n.CursorTo("saved, 4 messages")
		n.Keys("<CR>")
		n.WaitForText("display", "two")
		assertOrder(t, n.WaitForText("display", "ready"), order...)
		h.Close()

		// Resumed by a new host, as after :Magenta restart.
		n, _, _ = openIn(t, bin, dataDir, work)
		n.Lua(`require('magenta.host').shown(...)`, id)
		n.Command("Magenta toggle")
		n.WaitForText("display", "two")
		assertOrder(t, n.WaitForText("display", "ready"), order...)
	})
}
