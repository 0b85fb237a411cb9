package chat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// assertInOrder checks that each of subs appears in text, each after the
// one before it.
func assertInOrder(t *testing.T, text string, subs ...string) {
	t.Helper()
	at := 0
	for _, s := range subs {
		i := strings.Index(text[at:], s)
		if !assert.GreaterOrEqual(t, i, 0, "%q after %q in:\n%s", s, text[:at], text) {
			return
		}
		at += i + len(s)
	}
}

// The usage line after each turn is saved with the thread and drawn
// again, in its place, when the thread is reopened; a message queued
// while a turn ran is drawn after that turn's usage line, live and
// reopened alike.
func TestTurnUsageLinesSurviveReopenAndQueuedMessagesFollowThem(t *testing.T) {
	dir := t.TempDir()
	h, _ := savingHarness(t, dir, nil)
	h.app.Send("first")
	call := h.fake.Next(t)
	call.Text("one")
	h.screen.waitForText(t, "one")
	h.app.Send("queued meanwhile")
	h.screen.waitForText(t, "1 queued")
	call.Usage(provider.Usage{InputTokens: 100, OutputTokens: 7})
	call.Stop(provider.StopEndTurn)
	second := h.fake.Next(t)
	assert.Equal(t, "queued meanwhile", second.LastUserText())
	second.Usage(provider.Usage{InputTokens: 200, OutputTokens: 9})
	second.Reply("two")
	live := h.screen.waitForText(t, "ℹ turn: 200 in · 9 out")
	order := []string{"## user\nfirst", "one", "ℹ turn: 100 in · 7 out", "## user\nqueued meanwhile", "two", "ℹ turn: 200 in · 9 out"}
	assertInOrder(t, live, order...)
	id := h.app.ActiveThreadID()
	h.app.Close()

	h2, _ := savingHarness(t, dir, nil)
	h2.app.SelectThread(id)
	reopened := h2.screen.waitForText(t, "two")
	assertInOrder(t, reopened, order...)
	assert.Contains(t, reopened, "tokens: 300 in · 16 out", "the thread's total as before")
}

// A log written before turn usage was saved (no "turn" records) still
// opens: the messages come back, without usage lines.
func TestThreadSavedWithoutTurnUsageStillOpens(t *testing.T) {
	dir := t.TempDir()
	h, store := savingHarness(t, dir, nil)
	h.app.Send("old")
	call := h.fake.Next(t)
	call.Usage(provider.Usage{InputTokens: 100, OutputTokens: 7})
	call.Reply("reply")
	h.screen.waitForText(t, "ℹ turn")
	id := h.app.ActiveThreadID()
	h.app.Close()

	// Strip the turn records, as an older magenta wrote the file.
	logs, err := filepath.Glob(filepath.Join(dir, "magenta", "threads", "*", id+".jsonl"))
	require.NoError(t, err)
	require.Len(t, logs, 1)
	data, err := os.ReadFile(logs[0])
	require.NoError(t, err)
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.Contains(l, `"k":"turn"`) {
			kept = append(kept, l)
		}
	}
	require.Less(t, len(kept), len(strings.SplitAfter(string(data), "\n")), "the log had a turn record")
	require.NoError(t, os.WriteFile(logs[0], []byte(strings.Join(kept, "")), 0o600))
	_ = store

	h2, _ := savingHarness(t, dir, nil)
	h2.app.SelectThread(id)
	text := h2.screen.waitForText(t, "reply")
	assert.NotContains(t, text, "ℹ turn")
	assert.Contains(t, text, "tokens: 100 in · 7 out")
}
