package zygote

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func socketPair(t *testing.T) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "pair")
		defer f.Close()
		c, err := net.FileConn(f)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c.(*net.UnixConn)
	}
	return conn(fds[0]), conn(fds[1])
}

// Bad requests get a reply saying what is wrong, and start nothing (the
// spares are never asked for an init).
func TestHandleRefusesBadRequests(t *testing.T) {
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	for name, tc := range map[string]struct {
		raw   []byte
		req   *request
		files int
		want  string
	}{
		"malformed JSON":     {raw: []byte("{not json"), want: "malformed message"},
		"no streams":         {req: &request{Argv: []string{"true"}, Cwd: "/"}, want: "carries 0 descriptors"},
		"one stream":         {req: &request{Argv: []string{"true"}, Cwd: "/"}, files: 1, want: "carries 1 descriptors"},
		"no command":         {req: &request{Cwd: "/"}, files: 3, want: "without a command"},
		"relative directory": {req: &request{Argv: []string{"true"}, Cwd: "w"}, files: 3, want: "not absolute"},
		"foreign mount":      {req: &request{Argv: []string{"true"}, Cwd: "/", Ops: []string{"--cap-add", "ALL"}}, files: 3, want: "not one the confinement parent makes"},
	} {
		t.Run(name, func(t *testing.T) {
			host, parent := socketPair(t)
			files := make([]*os.File, tc.files)
			for i := range files {
				files[i] = null
			}
			if tc.raw != nil {
				_, _, err := host.WriteMsgUnix(tc.raw, nil, nil)
				require.NoError(t, err)
			} else {
				require.NoError(t, send(host, *tc.req, files...))
			}
			done := make(chan struct{})
			go func() { handle(parent, &spares{self: "/nonexistent", next: make(chan *initProc, 1)}); close(done) }()
			var r reply
			_, err := receive(host, &r)
			require.NoError(t, err)
			assert.Contains(t, r.Error, tc.want)
			<-done
		})
	}
}

// A parent that is gone before the request reaches it did not take the
// command (ErrNotTaken: the caller may start it another way).
func TestRunOnADeadParentIsNotTaken(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "parent.sock")
	l, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: sock, Net: "unixpacket"})
	require.NoError(t, err)
	l.SetUnlinkOnClose(false)
	require.NoError(t, l.Close()) // the socket file stays; nobody listens
	_, err = runOn(sock, []string{"true"}, nil, "/", nil, nil, nil, nil)
	require.ErrorIs(t, err, ErrNotTaken)
	_, err = runOn(filepath.Join(t.TempDir(), "missing.sock"), []string{"true"}, nil, "/", nil, nil, nil, nil)
	require.ErrorIs(t, err, ErrNotTaken)
}

// A parent that dies with the request unread (its listener closed with
// the connection still waiting to be accepted) did not take it; one that
// read the request and then died may have run it, and says so.
func TestRunOnAParentDyingBeforeOrAfterReading(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "parent.sock")
	l, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: sock, Net: "unixpacket"})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := runOn(sock, []string{"true"}, nil, "/", nil, nil, nil, nil)
		done <- err
	}()
	// Whether the close comes before the dial, or after the request was
	// queued unread, nothing ran.
	require.NoError(t, l.Close())
	require.ErrorIs(t, <-done, ErrNotTaken)

	l, err = net.ListenUnix("unixpacket", &net.UnixAddr{Name: sock, Net: "unixpacket"})
	require.NoError(t, err)
	defer l.Close()
	go func() {
		_, err := runOn(sock, []string{"true"}, nil, "/", nil, nil, nil, nil)
		done <- err
	}()
	c, err := l.AcceptUnix()
	require.NoError(t, err)
	var req request
	extra, err := receive(c, &req)
	require.NoError(t, err)
	closeAll(extra)
	require.NoError(t, c.Close())
	err = <-done
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrNotTaken, "a request read may have run")
}
