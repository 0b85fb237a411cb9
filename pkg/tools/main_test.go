package tools

import (
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/htmlconv/childtest"
)

// TestMain makes the test binary web_fetch's HTML converter: tests have
// no magenta-provider beside them (package htmlconv/child).
func TestMain(m *testing.M) {
	childtest.ServeIfAsked()
	os.Exit(m.Run())
}
