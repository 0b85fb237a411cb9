package dockertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
)

// InstallRipgrep copies the host's rg into container as /usr/local/bin/rg.
// A dynamically linked rg goes with its loader and libraries (from ldd)
// under /opt/rg, behind a wrapper script, so it runs in an image without
// a C library. Without rg on the host the test is skipped (failed under
// CI=true).
func InstallRipgrep(t testing.TB, container string) {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		remotetest.Unavailable(t, "docker", "no rg on the host to copy into the container")
	}
	Docker(t, "exec", container, "mkdir", "-p", "/opt/rg", "/usr/local/bin")
	out, err := exec.Command("ldd", rg).CombinedOutput()
	libs := sharedObjects(string(out))
	if err != nil || len(libs) == 0 {
		// Static ("not a dynamic executable"): it runs as it is.
		Docker(t, "cp", rg, container+":/usr/local/bin/rg")
		return
	}
	Docker(t, "cp", rg, container+":/opt/rg/rg")
	loader := ""
	for _, lib := range libs {
		Docker(t, "cp", "-L", lib, container+":/opt/rg/"+filepath.Base(lib))
		if strings.Contains(filepath.Base(lib), "ld-linux") {
			loader = "/opt/rg/" + filepath.Base(lib)
		}
	}
	if loader == "" {
		remotetest.Unavailable(t, "docker", "the host's rg has no ld-linux loader in `ldd "+rg+"`")
	}
	wrapper := filepath.Join(t.TempDir(), "rg")
	script := "#!/bin/sh\nexec " + loader + " --library-path /opt/rg /opt/rg/rg \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	Docker(t, "cp", wrapper, container+":/usr/local/bin/rg")
}

// sharedObjects are the absolute paths ldd printed.
func sharedObjects(ldd string) []string {
	var libs []string
	for _, line := range strings.Split(ldd, "\n") {
		for _, f := range strings.Fields(line) {
			if filepath.IsAbs(f) {
				libs = append(libs, f)
				break
			}
		}
	}
	return libs
}
