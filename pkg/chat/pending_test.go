package chat

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
)

// The pending frame is the new thread's own top, line for line, when the
// environment adds nothing (with a banner, the thread's frame inserts
// that line and changes none of these).
func TestPendingFrameIsTheNewThreadsTop(t *testing.T) {
	opts := config.Options{Profiles: testProfiles}
	pending := PendingFrame(opts).Texts()
	require.NotEmpty(t, pending)
	assert.Equal(t, "# New thread", pending[0])
	_, screen, _ := newApprovalApp(t, opts)
	lines := strings.Split(screen.text(), "\n")
	require.GreaterOrEqual(t, len(lines), len(pending))
	assert.Equal(t, pending, lines[:len(pending)])
	assert.Empty(t, PendingFrame(config.Options{}).Texts(), "no profile: nothing to show")
}
