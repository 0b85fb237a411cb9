// Package dockertest gives tests a real Docker engine: the test image
// (built once when missing), throwaway containers removed at cleanup,
// and ripgrep copied into one. Where no engine can be had the tests skip
// with the reason — and fail instead under CI=true, where an engine is
// part of the machine.
package dockertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultImage is the test image: busybox and bash, nothing else (see
// build-test-image.sh). MAGENTA_DOCKER_TEST_IMAGE overrides it.
const DefaultImage = "localtest/bb-bash:latest"

// ImageScriptEnv names the image build script when it is not in one of
// the places Image looks (<module>/../shared/tools, <module>/tools).
const ImageScriptEnv = "MAGENTA_DOCKER_IMAGE_SCRIPT"

// commandTimeout bounds one docker CLI call of a helper (an image build
// included).
const commandTimeout = 5 * time.Minute

var (
	imageOnce sync.Once
	imageErr  string // why there is no image; "" when there is one
)

// Unavailable ends the test for want of an engine: a skip with the
// reason, or a failure under CI=true.
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("docker tests cannot run under CI=true: %s", reason)
	}
	t.Skip("docker tests skipped: " + reason)
}

// Image returns the test image's tag after making sure the engine
// answers and the image is there (building it once per test binary when
// it is not).
func Image(t testing.TB) string {
	t.Helper()
	tag := os.Getenv("MAGENTA_DOCKER_TEST_IMAGE")
	if tag == "" {
		tag = DefaultImage
	}
	imageOnce.Do(func() { imageErr = ensureImage(tag) })
	if imageErr != "" {
		Unavailable(t, imageErr)
	}
	return tag
}

func ensureImage(tag string) string {
	if _, err := exec.LookPath("docker"); err != nil {
		return "no docker CLI on PATH"
	}
	if out, err := run("info", "--format", "{{.ServerVersion}}"); err != nil {
		return "the Docker daemon does not answer: " + out
	}
	if _, err := run("image", "inspect", tag); err == nil {
		return ""
	}
	script := imageScript()
	if script == "" {
		return "image " + tag + " is missing and build-test-image.sh was not found (set " + ImageScriptEnv + ")"
	}
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script, "", tag)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "building " + tag + " with " + script + " failed: " + err.Error() + "\n" + lastLines(string(out), 10)
	}
	return ""
}

// imageScript finds build-test-image.sh.
func imageScript() string {
	if s := os.Getenv(ImageScriptEnv); s != "" {
		return s
	}
	dir, err := os.Getwd()
	for err == nil {
		if _, serr := os.Stat(filepath.Join(dir, "go.mod")); serr == nil {
			for _, s := range []string{
				filepath.Join(dir, "..", "shared", "tools", "build-test-image.sh"),
				filepath.Join(dir, "tools", "build-test-image.sh"),
			} {
				if _, serr := os.Stat(s); serr == nil {
					return s
				}
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

// Start runs a container of the test image idling (`sleep 3600`) and
// returns its name; it is removed when the test ends.
func Start(t testing.TB) string {
	t.Helper()
	image := Image(t)
	var id [6]byte
	_, _ = rand.Read(id[:])
	name := "magenta-test-" + hex.EncodeToString(id[:])
	Docker(t, "run", "-d", "--rm", "--name", name, image, "sleep", "3600")
	t.Cleanup(func() { _, _ = run("rm", "-f", name) })
	return name
}

// Docker runs the docker CLI and returns its trimmed stdout; a failure
// fails the test.
func Docker(t testing.TB, args ...string) string {
	t.Helper()
	out, err := run(args...)
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// run runs the docker CLI; out is stdout, or stderr when it failed.
func run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	var o, e bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		return strings.TrimSpace(e.String()), err
	}
	return strings.TrimSpace(o.String()), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
