package memfs

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/capabilitytest"
)

var bg = context.Background()

func TestContract(t *testing.T) {
	capabilitytest.FileIO(t, func(t *testing.T) (capabilities.FileIO, string) {
		fs := New()
		require.NoError(t, fs.MkdirAll(bg, "/mem"))
		return fs, "/mem"
	})
}

func TestPutCreatesParentsAndFilesSnapshots(t *testing.T) {
	fs := New()
	data := []byte("package main\n")
	fs.Put("/p/cmd/main.go", data)
	data[0] = 'X'
	fs.Put("/p/README", nil)

	info, err := fs.Stat(bg, "/p/cmd")
	require.NoError(t, err)
	assert.True(t, info.IsDir)
	require.NoError(t, fs.WriteFile(bg, "/p/cmd/other.go", []byte("x")), "parents of Put files exist")

	files := fs.Files()
	assert.Equal(t, map[string][]byte{
		"/p/cmd/main.go":  []byte("package main\n"),
		"/p/README":       {},
		"/p/cmd/other.go": []byte("x"),
	}, files)
	files["/p/README"] = []byte("changed")
	files["/p/cmd/main.go"][0] = 'Y'
	got, err := fs.ReadFile(bg, "/p/cmd/main.go")
	require.NoError(t, err)
	assert.Equal(t, "package main\n", string(got))
	got, err = fs.ReadFile(bg, "/p/README")
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestPutMisuse(t *testing.T) {
	fs := New()
	fs.Put("/a/file", []byte("x"))
	assert.Panics(t, func() { fs.Put("relative", nil) })
	assert.Panics(t, func() { fs.Put("/a", nil) }, "a directory")
	assert.Panics(t, func() { fs.Put("/a/file/under", nil) }, "under a file")
}

func TestErrorsAndPaths(t *testing.T) {
	fs := New()
	fs.Put("/a/f", []byte("x"))
	_, err := fs.ReadFile(bg, "/x/y")
	assert.EqualError(t, err, "read /x/y: does not exist")
	_, err = fs.Open(bg, "/a")
	assert.EqualError(t, err, "open /a: is a directory")
	assert.EqualError(t, fs.MkdirAll(bg, "/a/f/g/h"), "mkdir /a/f/g/h: /a/f: not a directory")
	ok, err := fs.Exists(bg, "/a/f/g")
	require.NoError(t, err)
	assert.False(t, ok, "a failed MkdirAll creates nothing")
	_, err = fs.ReadFile(bg, "a/f")
	assert.ErrorContains(t, err, "not an absolute path")
	got, err := fs.ReadFile(bg, "/a/./f")
	require.NoError(t, err, "paths are cleaned")
	assert.Equal(t, "x", string(got))
}
