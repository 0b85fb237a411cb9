package threadstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

func TestForkKeepsTheFirstMessagesAndLeavesTheSourceAlone(t *testing.T) {
	s, err := Open(t.TempDir(), "/work/ws", nil)
	require.NoError(t, err)
	w, err := s.Create(Header{ID: "src1", Title: "original"})
	require.NoError(t, err)
	user := func(text string) provider.Message {
		return provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(text)}}
	}
	reply := func(text string) provider.Message {
		return provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock(text)}}
	}
	require.NoError(t, w.Message(user("one"), Display{}))
	require.NoError(t, w.Message(reply("r1"), Display{}))
	require.NoError(t, w.TurnUsage(TurnUsage{Usage: Usage{Input: 10}, Requests: 1}))
	require.NoError(t, w.Compaction(Compaction{Summary: "sum", Replaced: 2, History: []provider.Message{user("sum")}}))
	require.NoError(t, w.Message(user("two"), Display{Typed: []Typed{{Block: 0}}}))
	require.NoError(t, w.Message(reply("r2"), Display{}))
	require.NoError(t, w.Close())

	require.NoError(t, s.Fork("src1", 2, "fork1", "original (rewound)"))
	f, err := s.Load("fork1")
	require.NoError(t, err)
	assert.Equal(t, "original (rewound)", f.Header.Title)
	require.Len(t, f.Messages, 2)
	assert.Equal(t, "r1", f.Messages[1].Content[0].Text)
	require.Len(t, f.TurnUsages, 1, "the usage line before the cut stays")
	require.Len(t, f.Compactions, 1, "and the compaction right before the cut message")

	src, err := s.Load("src1")
	require.NoError(t, err)
	assert.Len(t, src.Messages, 4, "the source is unchanged")

	assert.Error(t, s.Fork("src1", 5, "fork2", "x"), "more than it has")
	_, err = s.Load("fork2")
	assert.ErrorIs(t, err, ErrNotFound, "a failed fork leaves no file")
	assert.Error(t, s.Fork("src1", 1, "fork1", "x"), "the id is taken")
}
