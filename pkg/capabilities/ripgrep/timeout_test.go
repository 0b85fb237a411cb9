package ripgrep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// bound is how long a killed search may take to return.
const bound = 10 * time.Second

func TestSearchTimeoutOnLargeTree(t *testing.T) {
	needRG(t)
	files := map[string]string{}
	body := strings.Repeat("hay hay hay needle hay\n", 400)
	for i := range 600 {
		files[fmt.Sprintf("d%02d/f%03d.txt", i%20, i)] = body
	}
	dir := tree(t, files)
	s := New(Options{})
	// Warm up: find rg and read its version outside the timed search.
	_, err := s.Search(context.Background(), req(t.TempDir(), "x"))
	require.NoError(t, err)

	r := req(dir, "needle")
	r.Timeout = time.Millisecond
	start := time.Now()
	res, err := s.Search(context.Background(), r)
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Less(t, time.Since(start), bound)
	assert.Less(t, res.Matches, 600*400)
}

// blockedFIFO makes a named pipe that rg blocks on, and returns it with a
// function that waits (with a deadline) until a reader has opened it and
// then holds the write end open until the test ends.
func blockedFIFO(t *testing.T) (string, func()) {
	p := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	waitReader := func() {
		t.Helper()
		deadline := time.Now().Add(bound)
		for {
			// O_NONBLOCK write-open fails with ENXIO until a reader has it.
			f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err == nil {
				t.Cleanup(func() { f.Close() })
				return
			}
			require.ErrorIs(t, err, syscall.ENXIO)
			require.True(t, time.Now().Before(deadline), "rg never opened the fifo")
			<-time.After(5 * time.Millisecond)
		}
	}
	return p, waitReader
}

type outcome struct {
	res *capabilities.SearchResult
	err error
}

func TestSearchTimeoutKillsRunningRG(t *testing.T) {
	needRG(t)
	fifo, waitReader := blockedFIFO(t)
	r := req(fifo, "needle")
	r.Timeout = 500 * time.Millisecond
	done := make(chan outcome, 1)
	go func() {
		res, err := New(Options{}).Search(context.Background(), r)
		done <- outcome{res, err}
	}()
	waitReader()
	select {
	case o := <-done:
		require.NoError(t, o.err)
		assert.True(t, o.res.TimedOut)
		assert.Empty(t, o.res.Errors)
	case <-time.After(bound):
		t.Fatal("the search did not end at its timeout")
	}
}

func TestSearchDefaultTimeout(t *testing.T) {
	needRG(t)
	fifo, waitReader := blockedFIFO(t)
	done := make(chan outcome, 1)
	go func() {
		res, err := New(Options{DefaultTimeout: 300 * time.Millisecond}).Search(context.Background(), req(fifo, "x"))
		done <- outcome{res, err}
	}()
	waitReader()
	select {
	case o := <-done:
		require.NoError(t, o.err)
		assert.True(t, o.res.TimedOut)
	case <-time.After(bound):
		t.Fatal("the search did not end at the default timeout")
	}
}

func TestSearchCancel(t *testing.T) {
	needRG(t)
	fifo, waitReader := blockedFIFO(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan outcome, 1)
	go func() {
		res, err := New(Options{}).Search(ctx, req(fifo, "needle"))
		done <- outcome{res, err}
	}()
	waitReader()
	cancel()
	select {
	case o := <-done:
		require.Error(t, o.err)
		assert.True(t, errors.Is(o.err, context.Canceled), o.err)
		require.NotNil(t, o.res)
		assert.False(t, o.res.TimedOut)
	case <-time.After(bound):
		t.Fatal("the search did not end when cancelled")
	}
}

func TestSearchCancelledBeforeStart(t *testing.T) {
	needRG(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(Options{}).Search(ctx, req(t.TempDir(), "x"))
	assert.ErrorIs(t, err, context.Canceled)
}
