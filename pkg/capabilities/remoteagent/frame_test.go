package remoteagent

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encode is frames written by a frameWriter.
func encode(t testing.TB, frames ...frame) []byte {
	t.Helper()
	var b bytes.Buffer
	fw := &frameWriter{w: &b}
	for _, f := range frames {
		require.NoError(t, fw.send(f.kind, f.id, f.payload))
	}
	return b.Bytes()
}

func TestFrameRoundTrip(t *testing.T) {
	frames := []frame{
		{kindHello, 0, []byte(Version)},
		{kindStart, 1, []byte(`{"argv":["true"],"dir":"/","marker":"m"}`)},
		{kindSignal, 1, []byte{15}},
		{kindStdout, 0xfffffffe, nil},
		{kindStderr, 7, bytes.Repeat([]byte{'x'}, readSize)},
		{kindExit, 7, []byte{0, 0, 3, 0}},
		{kindStdout, 8, make([]byte, maxPayload)},
	}
	fr := &frameReader{r: bytes.NewReader(encode(t, frames...))}
	for _, want := range frames {
		got, err := fr.next()
		require.NoError(t, err)
		assert.Equal(t, want.kind, got.kind)
		assert.Equal(t, want.id, got.id)
		assert.Equal(t, len(want.payload), len(got.payload))
		assert.True(t, bytes.Equal(want.payload, got.payload))
	}
	_, err := fr.next()
	assert.ErrorIs(t, err, io.EOF)

	err = (&frameWriter{w: io.Discard}).send(kindStdout, 1, make([]byte, maxPayload+1))
	assert.Error(t, err, "a frame over the limit is refused")
}

func TestFrameReaderErrors(t *testing.T) {
	hello := encode(t, frame{kindHello, 0, []byte(Version)})
	for name, tc := range map[string]struct {
		in   []byte
		want error
	}{
		"empty":            {nil, io.EOF},
		"truncated header": {hello[:5], io.ErrUnexpectedEOF},
		"truncated body":   {hello[:len(hello)-1], io.ErrUnexpectedEOF},
		"header only":      {hello[:headerLen], io.ErrUnexpectedEOF},
		"over the limit":   {binary.BigEndian.AppendUint32([]byte{kindStdout, 0, 0, 0, 1}, maxPayload+1), errFrame},
		"huge length":      {[]byte{kindStdout, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}, errFrame},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := (&frameReader{r: bytes.NewReader(tc.in)}).next()
			assert.ErrorIs(t, err, tc.want)
		})
	}
}

// FuzzFrameReader: any byte stream is read as frames until an error,
// without a panic, with no frame (nor the reader's buffer) over
// maxPayload, and the frames read are exactly the bytes they came from.
func FuzzFrameReader(f *testing.F) {
	hello := encode(f, frame{kindHello, 0, []byte(Version)})
	f.Add(hello)
	f.Add(encode(f,
		frame{kindHello, 0, []byte(Version)},
		frame{kindStdout, 3, []byte("some output\n")},
		frame{kindStderr, 3, nil},
		frame{kindExit, 3, []byte{0, 0, 1, 0}}))
	f.Add(hello[:4])                                                          // a truncated header
	f.Add(hello[:headerLen+2])                                                // a truncated payload
	f.Add([]byte{kindStart, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff})              // a huge length
	f.Add(binary.BigEndian.AppendUint32([]byte{'O', 1, 2, 3, 4}, maxPayload)) // the limit, no payload
	f.Add([]byte("hello\nWelcome to the machine\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := &frameReader{r: bytes.NewReader(data)}
		var consumed int
		var reencoded bytes.Buffer
		fw := &frameWriter{w: &reencoded}
		for {
			fm, err := fr.next()
			if cap(fr.buf) > maxPayload {
				t.Fatalf("the reader's buffer grew to %d bytes", cap(fr.buf))
			}
			if err != nil {
				switch {
				case errors.Is(err, io.EOF):
					if consumed != len(data) {
						t.Fatalf("EOF after %d of %d bytes", consumed, len(data))
					}
				case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, errFrame):
				default:
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
			if len(fm.payload) > maxPayload {
				t.Fatalf("a %d-byte payload", len(fm.payload))
			}
			consumed += headerLen + len(fm.payload)
			if err := fw.send(fm.kind, fm.id, fm.payload); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(reencoded.Bytes(), data[:min(len(data), reencoded.Len())]) {
			t.Fatal("the frames read do not re-encode to the bytes they were read from")
		}
	})
}
