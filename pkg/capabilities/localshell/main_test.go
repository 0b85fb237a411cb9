package localshell

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
)

// hostHelperEnv makes the test binary act as a host: it runs the command
// in $MAGENTA_TEST_HOST_COMMAND through a Shell logging under the value
// of this variable, until it is killed.
const hostHelperEnv = "MAGENTA_TEST_HOST_HELPER"

// hostHelperWarmEnv makes the host helper run `true` first.
const hostHelperWarmEnv = "MAGENTA_TEST_HOST_WARM"

// TestMain makes the test binary its own process supervisor and
// confinement parent, as the host binary is (see procsup.MainIfSupervisor,
// zygote.MainIfZygote), and a stand-in host for the
// tests that kill one.
func TestMain(m *testing.M) {
	procsup.MainIfSupervisor()
	zygote.MainIfZygote()
	if root := os.Getenv(fullDiskHelperEnv); root != "" {
		os.Exit(fullDiskHelper(root))
	}
	if root := os.Getenv(hostHelperEnv); root != "" {
		sh := New(Options{LogRoot: root})
		confined := os.Getenv(parentHelperEnv) != ""
		if confined {
			sh = parentHelperShell(root)
		}
		if os.Getenv(hostHelperWarmEnv) != "" {
			// A first command: the next runs under a spare supervisor.
			if _, err := sh.Execute(context.Background(), "true", capabilities.ExecOptions{ThreadID: "helper", RequestID: "w"}); err != nil {
				fmt.Fprintln(os.Stderr, "host helper: first command:", err)
				os.Exit(3)
			}
			if os.Getenv("MAGENTA_TEST_HOST_COMMAND") == "" {
				select {} // idle, with a spare supervisor, until killed
			}
		}
		_, err := sh.Execute(context.Background(), os.Getenv("MAGENTA_TEST_HOST_COMMAND"),
			capabilities.ExecOptions{ThreadID: "helper", RequestID: "r", Sandbox: confined})
		fmt.Fprintln(os.Stderr, "host helper: command ended:", err)
		os.Exit(3)
	}
	os.Exit(m.Run())
}
