package chat

import (
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
)

// TestMain makes the test binary its own process supervisor, as the host
// binary is, so real shells (the Docker inheritance test) run supervised.
func TestMain(m *testing.M) {
	procsup.MainIfSupervisor()
	os.Exit(m.Run())
}
