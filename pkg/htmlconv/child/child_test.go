package child_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/htmlconv/child"
	"github.com/magenta-nvim/magenta/pkg/htmlconv/childtest"
	"github.com/magenta-nvim/magenta/pkg/htmlconv/internal/childhook"
	"github.com/magenta-nvim/magenta/pkg/provider/remote"
)

// modeEnv makes the test binary a misbehaving converter (see TestMain);
// pidEnv names the file where the "hang" converter writes its pid.
const (
	modeEnv = "MAGENTA_CHILD_TEST_MODE"
	pidEnv  = "MAGENTA_CHILD_TEST_PIDFILE"
)

// TestMain makes the test binary the converter: the real one
// (childtest), or one that fails, hangs or floods when modeEnv says so.
func TestMain(m *testing.M) {
	switch os.Getenv(modeEnv) {
	case "fail":
		fmt.Fprintln(os.Stderr, "  html-to-markdown: the page broke  ")
		os.Exit(1)
	case "silent":
		os.Exit(3)
	case "usage":
		fmt.Fprintln(os.Stderr, "magenta-provider is started by magenta-host; it takes no arguments but --version")
		os.Exit(child.ExitUsage)
	case "hang":
		if err := os.WriteFile(os.Getenv(pidEnv), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			os.Exit(4)
		}
		time.Sleep(time.Hour) // the test kills it long before
		os.Exit(0)
	case "flood":
		// One byte, then two-byte runes: MaxOutput (even) falls inside one.
		w := bufio.NewWriter(os.Stdout)
		w.WriteString("a")
		chunk := strings.Repeat("é", 32<<10)
		for {
			if _, err := w.WriteString(chunk); err != nil {
				os.Exit(0)
			}
		}
	}
	childtest.ServeIfAsked()
	os.Exit(m.Run())
}

// useMode makes Convert run this binary in mode until the test ends.
func useMode(t *testing.T, mode string, env ...string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	prev := childhook.Get()
	childhook.Set(&childhook.Command{Path: exe, Env: append([]string{modeEnv + "=" + mode}, env...)})
	t.Cleanup(func() { childhook.Set(prev) })
}

const page = `<html><head><title>T</title><script>scriptMarker()</script></head><body>
<nav>Navmarker</nav><h1>Fruit</h1><p>See <a href="/more">more</a>.</p>
<div style="display:none">Hiddenmarker</div>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></body></html>`

func TestConvertRoundTrip(t *testing.T) {
	md, capped, err := child.Convert(context.Background(), "markdown", "https://ex.com/dir/p", []byte(page))
	require.NoError(t, err)
	assert.False(t, capped)
	for _, want := range []string{"# Fruit", "[more](https://ex.com/more)", "| a | b |"} {
		assert.Contains(t, md, want)
	}
	text, capped, err := child.Convert(context.Background(), "text", "https://ex.com/dir/p", []byte(page))
	require.NoError(t, err)
	assert.False(t, capped)
	assert.Equal(t, "Fruit\n\nSee more.\n\na b\n1 2", text)
	for _, out := range []string{md, text} {
		for _, gone := range []string{"scriptMarker", "Navmarker", "Hiddenmarker"} {
			assert.NotContains(t, out, gone)
		}
	}
}

func TestConvertConcurrently(t *testing.T) {
	errs := make(chan error, 4)
	for i := range cap(errs) {
		go func() {
			md, _, err := child.Convert(context.Background(), "markdown", "", fmt.Appendf(nil, "<p>page %d</p>", i))
			if err == nil && strings.TrimSpace(md) != fmt.Sprintf("page %d", i) {
				err = fmt.Errorf("page %d became %q", i, md)
			}
			errs <- err
		}()
	}
	for range cap(errs) {
		assert.NoError(t, <-errs)
	}
}

func TestConvertUnknownFormat(t *testing.T) {
	_, _, err := child.Convert(context.Background(), "html", "", []byte("<p>x</p>"))
	assert.ErrorContains(t, err, `cannot convert HTML to "html"`)
}

// Without childtest's hook the converter is magenta-provider beside the
// running executable: this test binary has none.
func TestConvertMissingBinary(t *testing.T) {
	prev := childhook.Get()
	childhook.Set(nil)
	t.Cleanup(func() { childhook.Set(prev) })
	exe, err := os.Executable()
	require.NoError(t, err)
	want := filepath.Join(filepath.Dir(exe), "magenta-provider")
	assert.Equal(t, want, child.Path())

	_, _, err = child.Convert(context.Background(), "markdown", "", []byte("<p>x</p>"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the HTML converter "+want+" is missing")
	assert.Contains(t, err.Error(), "run `make`")
	assert.True(t, errors.Is(err, os.ErrNotExist), err)
}

func TestConvertChildFails(t *testing.T) {
	useMode(t, "fail")
	_, _, err := child.Convert(context.Background(), "markdown", "", []byte("<p>x</p>"))
	assert.EqualError(t, err, "converting the page to markdown failed (exit status 1): html-to-markdown: the page broke")

	useMode(t, "silent")
	_, _, err = child.Convert(context.Background(), "text", "", []byte("<p>x</p>"))
	assert.EqualError(t, err, "converting the page to text failed: exit status 3")
}

// A magenta-provider from before the converter modes exits with its
// usage: the error says to rebuild.
func TestConvertOldConverter(t *testing.T) {
	useMode(t, "usage")
	_, _, err := child.Convert(context.Background(), "text", "", []byte("<p>x</p>"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `does not know "html-to-text": it was built from another version than the host; run `+"`make`")
	assert.Contains(t, err.Error(), "it takes no arguments but --version")
}

// startHanging starts a Convert whose child never answers and returns
// the child's pid, once it wrote it, and Convert's error channel.
func startHanging(t *testing.T, ctx context.Context) (int, <-chan error) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	useMode(t, "hang", pidEnv+"="+pidFile)
	done := make(chan error, 1)
	go func() {
		_, _, err := child.Convert(ctx, "markdown", "", []byte("<p>x</p>"))
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
			pid, err := strconv.Atoi(string(b))
			require.NoError(t, err)
			return pid, done
		}
		select {
		case err := <-done:
			t.Fatalf("Convert returned before its child started: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the child did not start")
		}
	}
}

// waitReturned waits for Convert's error, failing after a deadline far
// below Timeout.
func waitReturned(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Convert did not return")
		return nil
	}
}

// assertGone: Convert returned, so it waited for the child; the pid no
// longer names a process.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the child %d still runs", pid)
}

func TestConvertCancelKillsChild(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pid, done := startHanging(t, ctx)
	cancel()
	err := waitReturned(t, done)
	assert.ErrorIs(t, err, context.Canceled)
	assertGone(t, pid)
}

func TestConvertTimeoutKillsChild(t *testing.T) {
	defer child.SetTimeout(500 * time.Millisecond)()
	pid, done := startHanging(t, context.Background())
	err := waitReturned(t, done)
	assert.EqualError(t, err, "converting the page to markdown took longer than 500ms")
	assertGone(t, pid)
}

func TestConvertCapsOutput(t *testing.T) {
	useMode(t, "flood")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	text, capped, err := child.Convert(ctx, "markdown", "", nil)
	require.NoError(t, err)
	assert.True(t, capped)
	// MaxOutput bytes less the first byte of the rune cut in two.
	assert.Equal(t, child.MaxOutput-1, len(text))
	assert.True(t, utf8.ValidString(text))
	assert.True(t, strings.HasPrefix(text, "aéé"))
}

// The converter is the provider process's executable.
func TestBinaryNameIsTheProviders(t *testing.T) {
	assert.Equal(t, remote.BinaryName, child.BinaryName)
}

// TestNoConverterLinked: the point of this package is that the host does
// not link the converter (see the package doc).
func TestNoConverterLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "go list: %s", out)
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "golang.org/x/net/html") || strings.HasPrefix(pkg, "github.com/JohannesKaufmann/") || pkg == "github.com/magenta-nvim/magenta/pkg/htmlconv" {
			t.Errorf("package child links %s", pkg)
		}
	}
}
