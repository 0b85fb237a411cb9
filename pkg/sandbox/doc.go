// Package sandbox confines shell commands with bubblewrap (bwrap) on
// Linux, under one Policy that the file guard and the shell checker
// consult too, so what a confined command may touch and what the tools
// may touch without asking are decided by the same rules.
//
// # Policy
//
// A Policy names the workspace, the home directory, extra hidden paths
// (beyond DefaultHide: ~/.ssh, ~/.aws, ~/.gnupg, ~/.netrc, …), extra
// writable paths, and whether the network is allowed:
//
//   - reads: everything except hidden paths, secret files inside the
//     workspace (pkg/secrets names), the host's /tmp and /proc (the
//     sandbox has its own), and the sockets through which a command
//     could act outside the sandbox (the user's runtime directory with
//     the editor's RPC socket, $NVIM, $SSH_AUTH_SOCK, the D-Bus session
//     bus, Docker's and Podman's sockets): a read-only mount does not
//     stop connect(2);
//   - writes: the workspace (except .git/hooks, .git/config,
//     core.hooksPath and submodules' hooks and config, which would run
//     code at the user's next git command), AllowWrite, and a private
//     /tmp that vanishes with the command;
//   - network: NetworkDeny (default: own network namespace) or
//     NetworkAllow.
//
// Policy.Readable and Policy.Writable answer for one host path with the
// same rules Args turns into mounts; symlinks are resolved where they
// exist, so a link to a secret is as hidden as the secret.
//
// # Running
//
// Detect (once, in the background, at host start) finds bwrap, checks
// its version and runs a trial sandbox; its Status says why not when
// confinement is unavailable. Policy.Args turns the policy into a Launch:
// the argv prefix to put before `bash -c …`, the environment it needs,
// and whether the bounded workspace scan for secret files was complete
// (MaxScanEntries; when it is not, secrets beyond the bound are not
// masked and the caller should ask the user instead of relying on the
// sandbox; a secret-named file inside node_modules, .venv and similar
// dependency trees is not searched for, and Readable agrees). Blocked
// reads a confined command's output and says, in a sentence, when the
// sandbox is what stopped it or could not start.
//
// The argv uses only options bubblewrap has had since MinVersion:
// --ro-bind, --bind, --dev, --proc, --tmpfs, --remount-ro, --cap-drop,
// --unshare-pid, --unshare-net, --die-with-parent, --new-session,
// --chdir. --cap-drop ALL matters when the host runs as root (a dev
// container): bwrap then keeps the capabilities, and a command could
// unmount the masks. --new-session (setsid) means the command has no controlling
// terminal: a PTY launcher must not use it, or must accept that.
// --die-with-parent ties bwrap to the thread that started it (Linux's
// parent-death signal is per thread); Go keeps its threads alive unless
// a goroutine that locked one exits.
//
// The secret scan runs at every Args call, so a secret created since the
// last command is masked in the next one. Between scans, Readable is the
// stricter: it judges names, the mounts judge what the scan found.
//
// Everything here is safe for concurrent use; Policy is a value.
// sandboxtest.Require gives tests the Status or skips them (fails under
// CI=true).
package sandbox
