package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// mainEnv makes the test binary run main, as magenta-provider.
const mainEnv = "MAGENTA_PROVIDER_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) != "" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// provider runs main with args and stdin; it returns the exit status,
// stdout and stderr.
func provider(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

func TestConverterModes(t *testing.T) {
	const page = `<h1>T</h1><p><a href="/x">x</a></p>`
	code, out, errs := provider(t, page, "html-to-markdown", "--base", "https://ex.com/p")
	if code != 0 || out != "# T\n\n[x](https://ex.com/x)" || errs != "" {
		t.Errorf("html-to-markdown: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = provider(t, page, "html-to-text")
	if code != 0 || out != "T\n\nx" || errs != "" {
		t.Errorf("html-to-text: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = provider(t, page, "html-to-text", "extra")
	if code != 2 || out != "" || !strings.HasPrefix(errs, "usage: magenta-provider html-to-markdown") {
		t.Errorf("html-to-text extra: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestBadUsage(t *testing.T) {
	code, out, errs := provider(t, "", "--bogus")
	want := "magenta-provider is started by magenta-host; it takes no arguments but --version, html-to-markdown [--base URL] or html-to-text\n"
	if code != 2 || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
