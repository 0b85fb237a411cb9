package chat

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/config"
)

// TestStateAnswersEveryBusyQuestion: the state follows the activity
// fields, and the list's word counts a context read as busy (it said
// "idle" while the first message's files were read).
func TestStateAnswersEveryBusyQuestion(t *testing.T) {
	th := newThread(context.Background(), "t", config.Profile{Name: "p"}, Deps{})
	assert.Equal(t, stateIdle, th.state())
	assert.Equal(t, "idle", th.statusWord())

	th.readingContext = true
	assert.Equal(t, stateReadingContext, th.state())
	assert.Equal(t, "busy", th.statusWord())
	th.readingContext = false

	th.turn = &turn{phase: phaseStreaming}
	assert.Equal(t, stateAwaitingModel, th.state())
	th.turn.phase = phaseTools
	assert.Equal(t, stateRunningTools, th.state())
	th.compaction.run = &compactionRun{}
	assert.Equal(t, stateCompacting, th.state(), "a compaction inside a turn")
	th.cancel()
	assert.Equal(t, stateClosing, th.state())
	assert.Equal(t, "closing", th.state().String())
}
