package threadstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A turn's usage is read back with its place among the messages and
// compactions; the summary counts only messages.
func TestTurnUsageIsReadBackInItsPlace(t *testing.T) {
	s, _ := openStore(t)
	w, err := s.Create(Header{ID: threadA})
	require.NoError(t, err)
	msgs := sampleMessages()
	require.NoError(t, w.Message(msgs[0], Display{}))
	require.NoError(t, w.Message(msgs[1], Display{}))
	require.NoError(t, w.TurnUsage(TurnUsage{Usage: Usage{Input: 100, Output: 7}, Requests: 1}))
	require.NoError(t, w.Compaction(Compaction{Summary: "s", Replaced: 2, History: msgs[:1]}))
	require.NoError(t, w.Message(msgs[2], Display{}))
	require.NoError(t, w.TurnUsage(TurnUsage{Usage: Usage{Input: 300, Output: 9, Cost: 0.5, Priced: true}, Requests: 2}))
	require.NoError(t, w.Close())

	got, err := s.Load(threadA)
	require.NoError(t, err)
	assert.Equal(t, []SavedTurnUsage{
		{After: 2, Compactions: 0, TurnUsage: TurnUsage{Usage: Usage{Input: 100, Output: 7}, Requests: 1}},
		{After: 3, Compactions: 1, TurnUsage: TurnUsage{Usage: Usage{Input: 300, Output: 9, Cost: 0.5, Priced: true}, Requests: 2}},
	}, got.TurnUsages)
	assert.Equal(t, 3, s.List()[0].Messages)
}
