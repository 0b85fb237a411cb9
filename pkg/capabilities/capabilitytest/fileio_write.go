package capabilitytest

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// exactContents are byte sequences WriteFile must store untouched: no
// newline added or normalised, no re-encoding.
var exactContents = []struct {
	name string
	data []byte
}{
	{"empty", []byte{}},
	{"binary", []byte{0, 1, 2, 0xff, 0xfe, 0, '\n', 0x7f, 0x80}},
	{"crlf", []byte("one\r\ntwo\r\nthree\r\n")},
	{"lone cr", []byte("a\rb\r")},
	{"no trailing newline", []byte("last line")},
	{"utf-8", []byte("héllo wörld — 日本語 🎉\n")},
	{"bom", []byte("\xef\xbb\xbfwith BOM\n")},
	{"invalid utf-8", []byte("bad \xc3\x28 and \xff\xfe end")},
}

func testWriteFile(t *testing.T, setup setupFunc) {
	t.Run("CreatesAndOverwrites", func(t *testing.T) {
		fs, root := setup(t)
		file := filepath.Join(root, "new.txt")
		ok, err := fs.Exists(bg, file)
		require.NoError(t, err)
		require.False(t, ok)

		require.NoError(t, fs.WriteFile(bg, file, []byte("first version, long\n")))
		ok, err = fs.Exists(bg, file)
		require.NoError(t, err)
		assert.True(t, ok)
		info, err := fs.Stat(bg, file)
		require.NoError(t, err)
		assert.False(t, info.IsDir)
		assert.Equal(t, int64(len("first version, long\n")), info.Size)

		require.NoError(t, fs.WriteFile(bg, file, []byte("short")))
		got, err := fs.ReadFile(bg, file)
		require.NoError(t, err)
		assert.Equal(t, "short", string(got), "an overwrite must not leave the old tail")
		info, err = fs.Stat(bg, file)
		require.NoError(t, err)
		assert.Equal(t, int64(5), info.Size)

		require.NoError(t, fs.WriteFile(bg, file, []byte("a longer third version\n")))
		got, err = fs.ReadFile(bg, file)
		require.NoError(t, err)
		assert.Equal(t, "a longer third version\n", string(got))
	})

	t.Run("ExactBytes", func(t *testing.T) {
		fs, root := setup(t)
		for _, c := range exactContents {
			file := filepath.Join(root, c.name)
			require.NoError(t, fs.WriteFile(bg, file, c.data), c.name)
			got, err := fs.ReadFile(bg, file)
			require.NoError(t, err, c.name)
			assert.Equal(t, c.data, nonNil(got), c.name)
			info, err := fs.Stat(bg, file)
			require.NoError(t, err, c.name)
			assert.Equal(t, int64(len(c.data)), info.Size, c.name)
		}
	})

	t.Run("CallerMayReuseBuffer", func(t *testing.T) {
		fs, root := setup(t)
		file := filepath.Join(root, "f")
		buf := []byte("original")
		require.NoError(t, fs.WriteFile(bg, file, buf))
		copy(buf, "XXXXXXXX")
		got, err := fs.ReadFile(bg, file)
		require.NoError(t, err)
		assert.Equal(t, "original", string(got), "WriteFile must not keep the caller's slice")
		got[0] = 'Y'
		again, err := fs.ReadFile(bg, file)
		require.NoError(t, err)
		assert.Equal(t, "original", string(again), "ReadFile must not hand out internal storage")
	})

	t.Run("MissingParent", func(t *testing.T) {
		fs, root := setup(t)
		holder := filepath.Join(root, "holder.txt")
		write(t, fs, holder, []byte("x"))
		for _, p := range []string{
			filepath.Join(root, "nodir", "f.txt"),
			filepath.Join(root, "no", "such", "f.txt"),
			filepath.Join(holder, "f.txt"),
		} {
			err := fs.WriteFile(bg, p, []byte("data"))
			requireErr(t, err, capabilities.ErrNotExist, p)
			ok, err := fs.Exists(bg, p)
			require.NoError(t, err)
			assert.False(t, ok, "%s was created", p)
		}
		ok, err := fs.Exists(bg, filepath.Join(root, "nodir"))
		require.NoError(t, err)
		assert.False(t, ok, "WriteFile created the missing parent")
	})

	t.Run("OntoDirectory", func(t *testing.T) {
		fs, root := setup(t)
		dir := filepath.Join(root, "dir")
		require.NoError(t, fs.MkdirAll(bg, dir))
		write(t, fs, filepath.Join(dir, "inside.txt"), []byte("kept"))
		err := fs.WriteFile(bg, dir, []byte("data"))
		requireErr(t, err, capabilities.ErrIsDirectory, dir)
		info, err := fs.Stat(bg, dir)
		require.NoError(t, err)
		assert.True(t, info.IsDir, "the directory was replaced")
		got, err := fs.ReadFile(bg, filepath.Join(dir, "inside.txt"))
		require.NoError(t, err)
		assert.Equal(t, "kept", string(got))
		err = fs.WriteFile(bg, root, []byte("data"))
		requireErr(t, err, capabilities.ErrIsDirectory, root)
	})
}

// nonNil makes an empty read compare equal to []byte{}.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
