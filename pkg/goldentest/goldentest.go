// Package goldentest compares test output with golden files. Set
// UPDATE_GOLDEN=1 to rewrite them (an environment variable rather than a
// flag, so `go test ./...` works in packages that do not use it).
package goldentest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Assert compares got with the file at path (relative to the test's
// package directory), or rewrites it when UPDATE_GOLDEN=1.
func Assert(t testing.TB, path, got string) {
	t.Helper()
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run with UPDATE_GOLDEN=1 to create it)", path, err)
	}
	assert.Equal(t, string(want), got, "output differs from %s (UPDATE_GOLDEN=1 rewrites it)", path)
}
