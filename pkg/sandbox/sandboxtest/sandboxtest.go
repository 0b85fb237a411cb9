// Package sandboxtest gives tests a working bubblewrap or a clear reason
// why not.
package sandboxtest

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
)

var (
	once   sync.Once
	status sandbox.Status
)

// Require returns the detected sandbox status, detecting once per test
// binary. When bubblewrap is unavailable the test is skipped with the
// reason, except under CI=true, where it fails: CI must exercise the
// sandbox, not silently skip it.
func Require(t testing.TB) sandbox.Status {
	t.Helper()
	once.Do(func() { status = sandbox.Detect(context.Background(), "") })
	if !status.Available {
		if os.Getenv("CI") == "true" {
			t.Fatalf("sandbox unavailable on CI (install bubblewrap, allow user namespaces): %s", status.Reason)
		}
		t.Skipf("sandbox unavailable: %s", status.Reason)
	}
	return status
}
