package redteam_test

import (
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
)

// TestMain makes the test binary its own process supervisor, as the host
// binary is, so commands run supervised as they do in the host.
func TestMain(m *testing.M) {
	procsup.MainIfSupervisor()
	os.Exit(m.Run())
}
