package localshell

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
)

// hostHelperEnv makes the test binary act as a host: it runs the command
// in $MAGENTA_TEST_HOST_COMMAND through a Shell logging under the value
// of this variable, until it is killed.
const hostHelperEnv = "MAGENTA_TEST_HOST_HELPER"

// TestMain makes the test binary its own process supervisor, as the host
// binary is (see procsup.MainIfSupervisor), and a stand-in host for the
// tests that kill one.
func TestMain(m *testing.M) {
	procsup.MainIfSupervisor()
	if root := os.Getenv(fullDiskHelperEnv); root != "" {
		os.Exit(fullDiskHelper(root))
	}
	if root := os.Getenv(hostHelperEnv); root != "" {
		_, err := New(Options{LogRoot: root}).Execute(context.Background(), os.Getenv("MAGENTA_TEST_HOST_COMMAND"),
			capabilities.ExecOptions{ThreadID: "helper", RequestID: "r"})
		fmt.Fprintln(os.Stderr, "host helper: command ended:", err)
		os.Exit(3)
	}
	os.Exit(m.Run())
}
