package remote_test

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// providerBin is the real provider process, built once for the package's
// tests (beside MAGENTA_HOST_BIN when make test built it).
var providerBin string

func TestMain(m *testing.M) {
	if os.Getenv(hostLikeEnv) != "" {
		os.Exit(runHostLike())
	}
	// The client logs each start; benchmark lines must stay parseable.
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	if host := os.Getenv("MAGENTA_HOST_BIN"); host != "" {
		providerBin = filepath.Join(filepath.Dir(host), "magenta-provider")
		if _, err := os.Stat(providerBin); err == nil {
			return m.Run()
		}
	}
	dir, err := os.MkdirTemp("", "magenta-provider-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	providerBin = filepath.Join(dir, "magenta-provider")
	build := exec.Command("go", "build", "-o", providerBin, "./cmd/magenta-provider")
	build.Dir = nvimtest.Root()
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the provider process: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}
