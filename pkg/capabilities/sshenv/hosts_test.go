package sshenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHosts: the concrete aliases of a user's ssh_config, its includes
// (relative to ~/.ssh, globs, ~/, nested) followed and patterns left
// out; an unreadable include is passed over.
func TestHosts(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	ssh := filepath.Join(home, ".ssh")
	write := func(rel, text string) {
		p := filepath.Join(ssh, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	}
	write("config", `# my hosts
Host devbox build-1  # two at once
	HostName 10.0.0.2
Host *.internal !bastion web?
host=bastion
  HOST  "quoted one"
Include conf.d/*.conf
Include ~/.ssh/extra missing-file
Include /nonexistent/abs
Match host foo exec "true"
	User x
Host devbox
`)
	write("conf.d/a.conf", "Host from-a\nInclude nested\n")
	write("conf.d/b.conf", "Host from-b *\n")
	write("conf.d/ignored.txt", "Host not-included\n")
	write("nested", "Host deep\n")
	write("extra", "Host extra\n")
	write("locked", "Host locked\n")
	require.NoError(t, os.Chmod(filepath.Join(ssh, "locked"), 0))
	f, err := os.OpenFile(filepath.Join(ssh, "config"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("Include locked\nHost last\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	hosts, err := Hosts(filepath.Join(ssh, "config"))
	require.NoError(t, err)
	want := []string{"devbox", "build-1", "bastion", "quoted one", "from-a", "deep", "from-b", "extra"}
	if os.Geteuid() != 0 { // root reads a 0000 file
		want = append(want, "last")
	} else {
		want = append(want, "locked", "last")
	}
	assert.Equal(t, want, hosts)

	_, err = Hosts(filepath.Join(ssh, "none"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestConfigLine: keywords and arguments as ssh splits them.
func TestConfigLine(t *testing.T) {
	for line, want := range map[string][]string{
		"Host a b":            {"host", "a", "b"},
		"  host=a":            {"host", "a"},
		"HOST = a  b # c":     {"host", "a", "b"},
		`Host "x y" z`:        {"host", "x y", "z"},
		"Include\tdir/*.conf": {"include", "dir/*.conf"},
		"# Host commented":    {""},
		"":                    {""},
	} {
		key, args := configLine(line)
		assert.Equal(t, want, append([]string{key}, args...), "%q", line)
	}
}
