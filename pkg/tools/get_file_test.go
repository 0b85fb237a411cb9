package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
)

func getFileWith(fs capabilities.FileIO, input string) Result {
	env := &capabilities.Environment{Cwd: "/ws", Files: fs}
	return Builtin(Config{}).Run(context.Background(), "get_file", Call{ID: "tu", ThreadID: "th", Input: json.RawMessage(input), Env: env})
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestGetFileLinesAndRanges(t *testing.T) {
	fs := memfs.New()
	fs.Put("/ws/small.go", []byte("package main\r\n\nfunc main() {}\n"))
	fs.Put("/ws/big.txt", []byte(numbered(1, 2500)))
	fs.Put("/ws/empty", nil)

	res := getFileWith(fs, `{"path":"small.go"}`)
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, "1\tpackage main\n2\t\n3\tfunc main() {}", res.Text)

	res = getFileWith(fs, `{"path":"big.txt"}`)
	assert.True(t, strings.HasPrefix(res.Text, "1\tline 1\n"))
	assert.Contains(t, res.Text, fmt.Sprintf("%d\tline %d\n", GetFileMaxLines, GetFileMaxLines))
	assert.Contains(t, res.Text, fmt.Sprintf("(/ws/big.txt continues; read from startLine %d for more)", GetFileMaxLines+1))

	res = getFileWith(fs, `{"path":"big.txt","startLine":2490,"numLines":5}`)
	assert.Equal(t, "2490\tline 2490\n2491\tline 2491\n2492\tline 2492\n2493\tline 2493\n2494\tline 2494\n(/ws/big.txt continues; read from startLine 2495 for more)", res.Text)

	res = getFileWith(fs, `{"path":"big.txt","startLine":2499}`)
	assert.Equal(t, "2499\tline 2499\n2500\tline 2500", res.Text)

	res = getFileWith(fs, `{"path":"big.txt","startLine":3000}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "has 2500 lines; startLine 3000 is past the end")

	assert.Equal(t, "/ws/empty is empty.", getFileWith(fs, `{"path":"empty"}`).Text)
}

func TestGetFileCapsLongLinesAndBytes(t *testing.T) {
	fs := memfs.New()
	fs.Put("/ws/long.txt", []byte(strings.Repeat("x", 1<<20)+"\nnext\n"))
	res := getFileWith(fs, `{"path":"long.txt"}`)
	assert.Contains(t, res.Text, "chars cut")
	assert.Contains(t, res.Text, "2\tnext")
	assert.Less(t, len(res.Text), 3*GetFileLineChars)
}

func TestGetFileBinaryImagesAndErrors(t *testing.T) {
	fs := memfs.New()
	fs.Put("/ws/blob.bin", []byte{0x7f, 'E', 'L', 'F', 0, 0, 1, 2})
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var png1 bytes.Buffer
	require.NoError(t, png.Encode(&png1, img))
	fs.Put("/ws/pic.png", png1.Bytes())
	require.NoError(t, fs.MkdirAll(context.Background(), "/ws/dir"))

	res := getFileWith(fs, `{"path":"blob.bin"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "is a binary file")

	res = getFileWith(fs, `{"path":"pic.png"}`)
	require.False(t, res.IsError, res.Text)
	require.Len(t, res.Images, 1)
	assert.Equal(t, "image/png", res.Images[0].MediaType)

	assert.Contains(t, getFileWith(fs, `{"path":"missing.txt"}`).Text, "/ws/missing.txt does not exist")
	assert.Contains(t, getFileWith(fs, `{"path":"dir"}`).Text, "is a directory")
	assert.Contains(t, getFileWith(fs, `{"path":""}`).Text, "must not be empty")
}

func TestGetFileDescriptionUsesTheConstants(t *testing.T) {
	tool, ok := Builtin(Config{}).Tool("get_file")
	require.True(t, ok)
	d := tool.Spec().Description
	for _, want := range []string{"at most 1000 lines", "about 100 KB", "longer than 2000 characters", "over 2000 pixels a side or 3.75 MB is scaled down to 1568 pixels", "over 50 MB is refused"} {
		assert.Contains(t, d, want)
	}
}
