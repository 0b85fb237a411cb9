package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// providerChildren lists the live provider processes whose parent is
// pid (the kernel keeps the first 15 bytes of the name in comm).
func providerChildren(t *testing.T, pid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	require.NoError(t, err)
	var out []int
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open || !strings.HasPrefix("magenta-provider", s[open+1:end]) {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) < 2 || fields[0] == "Z" || fields[1] != strconv.Itoa(pid) {
			continue
		}
		child, _ := strconv.Atoi(s[:strings.IndexByte(s, ' ')])
		out = append(out, child)
	}
	return out
}

// TestProviderProcessEndsWithTheHost: the built host starts no provider
// process until the sidebar opens, then one (ahead of the first request,
// which uses it), and none survives the host: not when Neovim quits, not
// when the host is killed with SIGKILL.
func TestProviderProcessEndsWithTheHost(t *testing.T) {
	hostBin := nvimtest.HostBinary(t)
	nvimBin := nvimtest.Binaries()[0]
	for _, how := range []string{"neovim-quits", "host-killed"} {
		t.Run(how, func(t *testing.T) {
			srv := providertest.NewServer(t)
			n := startSaving(t, nvimBin, hostBin, srv, t.TempDir(), t.TempDir())
			host := hostPid(n) // starts the host; the sidebar is not open
			require.Empty(t, providerChildren(t, host), "no provider process before the sidebar opens")
			n.Command("Magenta toggle")
			n.WaitForText("display", "# New thread")
			var children []int
			n.WaitFor("the provider process to start as the sidebar opens", func() bool {
				children = providerChildren(t, host)
				return len(children) == 1
			}, func() string { return fmt.Sprint(children) })
			send(n, "hello")
			srv.Next(t).Reply("Hi.")
			n.WaitForText("display", "Hi.")
			require.Equal(t, children, providerChildren(t, host), "the first request used the process started ahead")
			if how == "host-killed" {
				require.NoError(t, syscall.Kill(host, syscall.SIGKILL))
			} else {
				_ = n.V.Close()
			}
			n.WaitFor("the provider process to end", func() bool { return !proctest.Alive(children[0]) }, func() string { return "" })
		})
	}
}
