package remoteagent

import (
	"os"
	"testing"
)

// TestMain makes the test binary the agent when it is started with
// AgentFlag alone (as startAgent does), as magenta-supervisor is.
func TestMain(m *testing.M) {
	MainIfAgent()
	os.Exit(m.Run())
}
