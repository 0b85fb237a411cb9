// Package sshtest gives tests a real sshd: a container of the image
// scripts/build-sshd-image.sh makes (built once when missing), started
// on a random published port, with a client key, a known_hosts and an
// ssh_config made in a temporary directory. Start gives a test a server
// of its own; Shared gives every test of a binary the same one (its
// TestMain calls StopShared). Where no engine, ssh client or sshd can
// be had the tests skip with the reason — and fail instead under
// CI=true, where all are part of the machine.
package sshtest

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
)

// DefaultImage is the sshd image; MAGENTA_SSHD_TEST_IMAGE overrides it.
const DefaultImage = "localtest/sshd:latest"

// Alias is the host name the tests give ssh: an entry of Server.Config.
const Alias = "sshtest"

// readyTimeout bounds the wait for sshd to answer.
const readyTimeout = 30 * time.Second

var image = &remotetest.Image{
	What: "ssh",
	Tag:  cmp.Or(os.Getenv("MAGENTA_SSHD_TEST_IMAGE"), DefaultImage),
	Needs: map[string]string{
		"ssh":        "apt-get install -y openssh-client",
		"ssh-keygen": "apt-get install -y openssh-client",
	},
	Script:  func() string { return remotetest.ModuleFile("scripts/build-sshd-image.sh") },
	Missing: "scripts/build-sshd-image.sh is not in this checkout",
}

// Image returns the image's tag after making sure the engine answers,
// the client is installed and the image is there (building it once per
// test binary when it is not: the build needs sshd on this machine,
// apt-get install -y openssh-server).
func Image(t testing.TB) string {
	t.Helper()
	return image.Ensure(t)
}

// Server is one running sshd container.
type Server struct {
	Container string
	// Port is sshd's port on 127.0.0.1.
	Port string
	// Dir holds the key, known_hosts and Config.
	Dir string
	// Config is an ssh_config naming the server Alias (pass `-F Config`).
	Config string
	// HostKey is the server's public host key line ("ssh-ed25519 …").
	HostKey string
}

// Start runs an sshd container of the test's own that accepts a key made
// for it and returns it once sshd answers; it is removed when the test
// ends.
func Start(t testing.TB) *Server {
	t.Helper()
	Image(t)
	s, err := start(t.TempDir())
	if s != nil {
		t.Cleanup(func() { _ = remotetest.RemoveContainer(s.Container) })
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared is the server every test of the binary shares (started by the
// first that asks): tests on it leave the container as they found it,
// and do not pause or stop it. The binary's TestMain calls StopShared
// after the tests.
func Shared(t testing.TB) *Server {
	t.Helper()
	Image(t)
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "sshtest-")
		if err != nil {
			shared.err = err
			return
		}
		shared.srv, shared.err = start(dir)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.srv
}

// StopShared removes the shared server, if one was started, and the
// agent AgentDir built.
func StopShared() {
	if agent.dir != "" {
		_ = os.RemoveAll(agent.dir)
	}
	if s := shared.srv; s != nil {
		_ = remotetest.RemoveContainer(s.Container)
		_ = os.RemoveAll(s.Dir)
	}
}

// start runs a server with its files in dir. A server whose container
// runs is returned with the error of what failed after.
func start(dir string) (*Server, error) {
	key := filepath.Join(dir, "id")
	pub, err := newKey(key)
	if err != nil {
		return nil, err
	}
	name, err := remotetest.NewContainer("magenta-sshd", "-p", "127.0.0.1::22", "-e", "AUTHORIZED_KEYS="+pub, image.Tag)
	if err != nil {
		return nil, err
	}
	s := &Server{Container: name, Dir: dir, Config: filepath.Join(dir, "config")}
	addr, err := remotetest.Run("port", name, "22/tcp") // "127.0.0.1:49153"
	_, port, ok := strings.Cut(strings.Split(addr, "\n")[0], ":")
	if err != nil || !ok {
		return s, fmt.Errorf("docker port: %q: %v", addr, err)
	}
	s.Port = port
	if s.HostKey, err = remotetest.Run("exec", name, "cat", "/etc/ssh/ssh_host_ed25519_key.pub"); err != nil {
		return s, fmt.Errorf("reading the host key: %s", s.HostKey)
	}
	kh := filepath.Join(dir, "known_hosts")
	return s, errors.Join(s.writeKnownHosts(kh, s.HostKey), s.writeConfig(s.Config, kh), waitBanner("127.0.0.1:"+port))
}

// newKey makes an ed25519 key pair without a passphrase at path and
// returns the public key line.
func newKey(path string) (string, error) {
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "sshtest", "-f", path).CombinedOutput(); err != nil {
		return "", fmt.Errorf("ssh-keygen: %v: %s", err, out)
	}
	pub, err := os.ReadFile(path + ".pub")
	return strings.TrimSpace(string(pub)), err
}

// NewKey makes a key pair in the test's temporary directory and returns
// the private key's path and the public key line.
func NewKey(t testing.TB) (path, pub string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "key")
	pub, err := newKey(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, pub
}

// OtherHostKey is a fresh ed25519 public key line: not the server's.
func OtherHostKey(t testing.TB) string {
	t.Helper()
	_, pub := NewKey(t)
	return pub
}

// WriteConfig writes an ssh_config at path naming the server Alias,
// with the test's key and knownHosts as the only known hosts file.
func (s *Server) WriteConfig(t testing.TB, path, knownHosts string) {
	t.Helper()
	if err := s.writeConfig(path, knownHosts); err != nil {
		t.Fatal(err)
	}
}

func (s *Server) writeConfig(path, knownHosts string) error {
	cfg := fmt.Sprintf(`Host %s
	HostName 127.0.0.1
	Port %s
	User dev
	IdentityFile %s
	IdentitiesOnly yes
	IdentityAgent none
	UserKnownHostsFile %s
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	LogLevel ERROR
`, Alias, s.Port, filepath.Join(s.Dir, "id"), knownHosts)
	return os.WriteFile(path, []byte(cfg), 0o600)
}

// WriteKnownHosts writes a known_hosts at path saying the server's key
// is hostKey.
func (s *Server) WriteKnownHosts(t testing.TB, path, hostKey string) {
	t.Helper()
	if err := s.writeKnownHosts(path, hostKey); err != nil {
		t.Fatal(err)
	}
}

func (s *Server) writeKnownHosts(path, hostKey string) error {
	f := strings.Fields(hostKey)
	if len(f) < 2 {
		return fmt.Errorf("host key %q", hostKey)
	}
	line := fmt.Sprintf("[127.0.0.1]:%s %s %s\n", s.Port, f[0], f[1])
	return os.WriteFile(path, []byte(line), 0o600)
}

// waitBanner waits until sshd sends its banner on addr.
func waitBanner(addr string) error {
	var last error
	for end := time.Now().Add(readyTimeout); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			last = err
			continue
		}
		_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		line, err := bufio.NewReader(conn).ReadString('\n')
		conn.Close()
		if err == nil && strings.HasPrefix(line, "SSH-2.0-") {
			return nil
		}
		last = fmt.Errorf("banner %q: %v", line, err)
	}
	return fmt.Errorf("sshd on %s did not answer: %v", addr, last)
}

// Docker runs the docker CLI and returns its trimmed stdout; a failure
// fails the test.
func Docker(t testing.TB, args ...string) string {
	t.Helper()
	return remotetest.Docker(t, args...)
}

var agent struct {
	once sync.Once
	dir  string
	err  error
}

// AgentDir is a directory holding magenta-supervisor built from this
// checkout (static, for this machine), the remote agent an ssh
// environment uploads: built once per test binary.
func AgentDir(t testing.TB) string {
	t.Helper()
	agent.once.Do(func() {
		agent.dir, agent.err = os.MkdirTemp("", "sshtest-agent-")
		if agent.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(agent.dir, "magenta-supervisor"),
			"github.com/magenta-nvim/magenta/cmd/magenta-supervisor")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			agent.err = fmt.Errorf("building the remote agent: %v: %s", err, out)
		}
	})
	if agent.err != nil {
		t.Fatal(agent.err)
	}
	return agent.dir
}
