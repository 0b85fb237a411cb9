package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// systemSockets are daemon sockets a confined command must not reach: a
// read-only mount does not stop connect(2), and the network namespace
// does not cover Unix sockets in the file system. Docker's or Podman's
// socket is root on the host.
var systemSockets = []string{
	"/run/docker.sock", "/var/run/docker.sock",
	"/run/containerd/containerd.sock", "/run/podman/podman.sock",
}

// agentSockets lists, from the host's own environment (which confined
// commands inherit), the per-user sockets that would let a confined
// command act outside the sandbox: the runtime directory (the editor's
// own RPC socket lives there — `nvim --server $NVIM --remote-expr
// 'system(…)'` runs anything — as do the D-Bus session bus, which can
// start user services, and the gpg and ssh agents), and the sockets
// $NVIM, $SSH_AUTH_SOCK, $DBUS_SESSION_BUS_ADDRESS and $DOCKER_HOST name
// wherever they are. Abstract sockets need no hiding: they belong to the
// network namespace.
func agentSockets() []string {
	runtimeDir := os.Getenv("XDG_RUNTIME_DIR")
	if runtimeDir == "" {
		runtimeDir = fmt.Sprintf("/run/user/%d", os.Getuid())
	}
	out := []string{runtimeDir}
	for _, v := range []string{"NVIM", "NVIM_LISTEN_ADDRESS", "SSH_AUTH_SOCK"} {
		out = append(out, os.Getenv(v))
	}
	for _, part := range strings.Split(os.Getenv("DBUS_SESSION_BUS_ADDRESS"), ";") {
		for _, kv := range strings.Split(strings.TrimPrefix(part, "unix:"), ",") {
			if path, ok := strings.CutPrefix(kv, "path="); ok {
				out = append(out, path)
			}
		}
	}
	if path, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://"); ok {
		out = append(out, path)
	}
	var abs []string
	for _, p := range append(out, systemSockets...) {
		if filepath.IsAbs(p) && !strings.ContainsRune(p, 0) {
			abs = append(abs, filepath.Clean(p))
		}
	}
	return abs
}
