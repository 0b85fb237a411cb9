package remotetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// commandTimeout bounds one docker CLI call of a helper (an image build
// included).
const commandTimeout = 5 * time.Minute

// Unavailable ends the test for want of what the tests of what need
// (an engine, an image, a program): a skip with the reason, or a failure
// under CI=true, where all of it is part of the machine.
func Unavailable(t testing.TB, what, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s tests cannot run under CI=true: %s", what, reason)
	}
	t.Skip(what + " tests skipped: " + reason)
}

// Image is a test image made by a script when the engine lacks it.
type Image struct {
	// What names the tests in Unavailable's message ("docker", "ssh").
	What string
	// Tag is the image's tag.
	Tag string
	// Needs are programs the tests need besides docker, each with what
	// to do when it is missing.
	Needs map[string]string
	// Script finds the build script, run as `bash SCRIPT "" TAG`; ""
	// when it cannot be found (Missing says what to do then).
	Script  func() string
	Missing string

	once sync.Once
	why  string // why there is no image; "" when there is one
}

// Ensure returns the tag after making sure the engine answers, the
// programs are there and the image exists (building it once per test
// binary when it does not); else the test ends (Unavailable).
func (im *Image) Ensure(t testing.TB) string {
	t.Helper()
	if err := im.Err(); err != nil {
		Unavailable(t, im.What, err.Error())
	}
	return im.Tag
}

// Err is why the image cannot be had, nil when it can (Ensure without a
// test).
func (im *Image) Err() error {
	im.once.Do(func() { im.why = im.ensure() })
	if im.why != "" {
		return errors.New(im.why)
	}
	return nil
}

func (im *Image) ensure() string {
	if _, err := exec.LookPath("docker"); err != nil {
		return "no docker CLI on PATH"
	}
	for bin, hint := range im.Needs {
		if _, err := exec.LookPath(bin); err != nil {
			return "no " + bin + " on PATH (" + hint + ")"
		}
	}
	if out, err := Run("info", "--format", "{{.ServerVersion}}"); err != nil {
		return "the Docker daemon does not answer: " + out
	}
	if _, err := Run("image", "inspect", im.Tag); err == nil {
		return ""
	}
	script := im.Script()
	if script == "" {
		return "image " + im.Tag + " is missing and its build script was not found (" + im.Missing + ")"
	}
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "bash", script, "", im.Tag).CombinedOutput(); err != nil {
		return "building " + im.Tag + " with " + script + " failed: " + err.Error() + "\n" + lastLines(string(out), 10)
	}
	return ""
}

// ModuleFile is rel under the module root (the first directory above
// the working directory with a go.mod) when it exists there, else "".
func ModuleFile(rel string) string {
	dir, err := os.Getwd()
	for err == nil {
		if _, serr := os.Stat(filepath.Join(dir, "go.mod")); serr == nil {
			p := filepath.Join(dir, rel)
			if _, serr := os.Stat(p); serr == nil {
				return p
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

// NewContainer runs `docker run -d --name <prefix>-<random> args...`
// and returns the name; RemoveContainer removes it.
func NewContainer(prefix string, args ...string) (string, error) {
	var id [6]byte
	_, _ = rand.Read(id[:])
	name := prefix + "-" + hex.EncodeToString(id[:])
	if out, err := Run(append([]string{"run", "-d", "--name", name}, args...)...); err != nil {
		_ = RemoveContainer(name)
		return "", errors.New("docker run: " + out)
	}
	return name, nil
}

// RemoveContainer removes a container, running or not.
func RemoveContainer(name string) error {
	_, err := Run("rm", "-f", name)
	return err
}

// StartContainer is NewContainer for one test: removed when it ends.
func StartContainer(t testing.TB, prefix string, args ...string) string {
	t.Helper()
	name, err := NewContainer(prefix, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = RemoveContainer(name) })
	return name
}

// Docker runs the docker CLI and returns its trimmed stdout; a failure
// fails the test.
func Docker(t testing.TB, args ...string) string {
	t.Helper()
	out, err := Run(args...)
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Run runs the docker CLI; out is stdout, or stderr when it failed.
func Run(args ...string) (string, error) {
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

// Deadline is how long a helper waits for a condition.
const Deadline = 30 * time.Second

// WaitGone waits until no live process of container (`docker top`; a
// zombie is not live) has a command line containing one of tokens: what
// a command started there has ended. Tests sharing a container use
// tokens of their own (`sleep 9931`).
func WaitGone(t testing.TB, container string, tokens ...string) {
	t.Helper()
	var live []string
	for end := time.Now().Add(Deadline); ; time.Sleep(100 * time.Millisecond) {
		live = live[:0]
		for _, line := range strings.Split(Docker(t, "top", container, "-o", "pid,stat,args"), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 3 || strings.HasPrefix(f[1], "Z") {
				continue
			}
			args := strings.Join(f[2:], " ")
			for _, tok := range tokens {
				if strings.Contains(args, tok) {
					live = append(live, args)
					break
				}
			}
		}
		if len(live) == 0 {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("processes left in %s: %q", container, live)
		}
	}
}
