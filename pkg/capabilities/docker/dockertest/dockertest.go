// Package dockertest gives tests a real Docker engine: the test image
// (built once when missing), throwaway containers removed at cleanup,
// and ripgrep copied into one. Where no engine can be had the tests skip
// with the reason — and fail instead under CI=true, where an engine is
// part of the machine.
package dockertest

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
)

// DefaultImage is the test image: busybox and bash, nothing else (see
// build-test-image.sh). MAGENTA_DOCKER_TEST_IMAGE overrides it.
const DefaultImage = "localtest/bb-bash:latest"

// ImageScriptEnv names the image build script when it is not in one of
// the places Image looks (<module>/../shared/tools, <module>/tools).
const ImageScriptEnv = "MAGENTA_DOCKER_IMAGE_SCRIPT"

var image = &remotetest.Image{
	What: "docker",
	Tag:  cmp.Or(os.Getenv("MAGENTA_DOCKER_TEST_IMAGE"), DefaultImage),
	Script: func() string {
		return cmp.Or(os.Getenv(ImageScriptEnv),
			remotetest.ModuleFile("../shared/tools/build-test-image.sh"), remotetest.ModuleFile("tools/build-test-image.sh"))
	},
	Missing: "set " + ImageScriptEnv,
}

// Image returns the test image's tag after making sure the engine
// answers and the image is there (building it once per test binary when
// it is not).
func Image(t testing.TB) string {
	t.Helper()
	return image.Ensure(t)
}

// Start runs a container of the test image idling (`sleep 3600`) and
// returns its name; it is removed when the test ends.
func Start(t testing.TB) string {
	t.Helper()
	return remotetest.StartContainer(t, "magenta-test", "--rm", Image(t), "sleep", "3600")
}

// Docker runs the docker CLI and returns its trimmed stdout; a failure
// fails the test.
func Docker(t testing.TB, args ...string) string {
	t.Helper()
	return remotetest.Docker(t, args...)
}

// Context creates a docker CLI context, magenta-test-<random>, whose
// endpoint is the one the CLI uses now (the engine the test image is
// in), and returns its name; it is removed when the test ends.
func Context(t testing.TB) string {
	t.Helper()
	Image(t)
	endpoint := Docker(t, "context", "inspect", "--format", "{{.Endpoints.docker.Host}}")
	var id [6]byte
	_, _ = rand.Read(id[:])
	name := "magenta-test-" + hex.EncodeToString(id[:])
	Docker(t, "context", "create", name, "--docker", "host="+endpoint)
	t.Cleanup(func() { _, _ = remotetest.Run("context", "rm", "-f", name) })
	return name
}
