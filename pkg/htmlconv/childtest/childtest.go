// Package childtest makes a test binary the HTML converter of package
// child, since tests have no magenta-provider beside their binary. Only
// tests import it: a TestMain that (directly or through the code under
// test) converts HTML calls ServeIfAsked first.
package childtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/htmlconv"
	"github.com/magenta-nvim/magenta/pkg/htmlconv/internal/childhook"
)

// envVar makes a test binary convert instead of testing.
const envVar = "MAGENTA_HTMLCONV_CHILD"

// ServeIfAsked, when this binary was started as the converter (envVar
// set), converts stdin to stdout as magenta-provider would
// (htmlconv.RunCLI) and exits. Otherwise it points package child at
// this binary, with envVar set, and returns.
func ServeIfAsked() {
	if os.Getenv(envVar) != "" {
		os.Exit(htmlconv.RunCLI(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "childtest: cannot find this test binary:", err)
		os.Exit(1)
	}
	childhook.Set(&childhook.Command{Path: exe, Env: []string{envVar + "=1"}})
}

// Missing makes package child find no converter until t ends, as in a
// checkout where magenta-provider was not built. Not for parallel tests.
func Missing(t testing.TB) {
	prev := childhook.Get()
	childhook.Set(&childhook.Command{Path: filepath.Join(t.TempDir(), "magenta-provider")})
	t.Cleanup(func() { childhook.Set(prev) })
}
