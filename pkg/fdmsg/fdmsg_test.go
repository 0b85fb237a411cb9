package fdmsg

import (
	"io"
	"net"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pair(t *testing.T) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	a, b, err := Pair()
	require.NoError(t, err)
	ca, err := Conn(a)
	require.NoError(t, err)
	cb, err := Conn(b)
	require.NoError(t, err)
	t.Cleanup(func() { ca.Close(); cb.Close() })
	return ca, cb
}

type msg struct {
	Argv []string `json:"argv"`
}

// A message arrives whole with its files, which are usable on the other
// side.
func TestSendReceive(t *testing.T) {
	a, b := pair(t)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	require.NoError(t, Send(a, msg{Argv: []string{"echo", "hi"}}, 1<<10, w))
	w.Close()
	var got msg
	files, err := Receive(b, &got, 1<<10, 4)
	require.NoError(t, err)
	defer CloseAll(files)
	assert.Equal(t, []string{"echo", "hi"}, got.Argv)
	require.Len(t, files, 1)
	_, err = files[0].Write([]byte("through"))
	require.NoError(t, err)
	files[0].Close()
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "through", string(out))
}

// Too large to send, too large to receive, malformed, more files than
// room for, or the peer gone: an error, and no file is left open.
func TestBadMessages(t *testing.T) {
	a, b := pair(t)
	assert.ErrorContains(t, Send(a, msg{Argv: []string{"0123456789"}}, 8), "more than 8")

	require.NoError(t, Send(a, msg{Argv: []string{"0123456789"}}, 1<<10))
	_, err := Receive(b, &msg{}, 8, 1)
	assert.ErrorContains(t, err, "truncated")

	_, _, err = a.WriteMsgUnix([]byte("{not json"), nil, nil)
	require.NoError(t, err)
	_, err = Receive(b, &msg{}, 1<<10, 1)
	assert.ErrorContains(t, err, "malformed")

	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	require.NoError(t, Send(a, msg{}, 1<<10, null, null, null))
	_, err = Receive(b, &msg{}, 1<<10, 1)
	assert.ErrorContains(t, err, "truncated")

	a.Close()
	_, err = Receive(b, &msg{}, 1<<10, 1)
	assert.Error(t, err)
}

// Whatever arrives is parsed without panicking.
func FuzzReceive(f *testing.F) {
	f.Add([]byte(`{"argv":["a"]}`))
	f.Add([]byte(`{`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b, err := Pair()
		if err != nil {
			t.Skip(err)
		}
		ca, err := Conn(a)
		require.NoError(t, err)
		defer ca.Close()
		cb, err := Conn(b)
		require.NoError(t, err)
		defer cb.Close()
		if _, _, err := ca.WriteMsgUnix(data, nil, nil); err != nil {
			return
		}
		files, _ := Receive(cb, &msg{}, 1<<10, 1)
		CloseAll(files)
	})
}
