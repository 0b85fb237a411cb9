package docker

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/pathlock"
)

// FileIO reads and writes files inside a container with `docker exec`
// and sh (see the scripts). It is safe for concurrent use. Update holds a
// per-path lock in this process: the container's files are expected to be
// changed through this host only (a process inside the container writing
// the same file at the same moment is not excluded).
type FileIO struct {
	c     *container
	locks pathlock.Table
}

var _ capabilities.FileIO = (*FileIO)(nil)

// newFileIO returns the FileIO of c.
func newFileIO(c *container) *FileIO { return &FileIO{c: c} }

// fail turns a script's exit into an error naming path.
func (f *FileIO) fail(path string, code int, stderr string) error {
	switch code {
	case codeNotExist:
		return fmt.Errorf("%s: %w", path, capabilities.ErrNotExist)
	case codeIsDir:
		return fmt.Errorf("%s: %w", path, capabilities.ErrIsDirectory)
	case codeNotRegular:
		return fmt.Errorf("%s: %w", path, capabilities.ErrNotRegular)
	}
	if err := f.c.refusal(stderr); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if stderr == "" {
		stderr = "exit status " + strconv.Itoa(code)
	}
	return fmt.Errorf("%s: in container %s: %s", path, f.c.name, stderr)
}

// Open implements capabilities.FileIO: the content streams from `cat`
// in the container; Close stops it.
func (f *FileIO) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, _, err := f.open(ctx, path, -1)
	return r, err
}

// open starts readScript; with max >= 0 a larger file gives a nil reader
// and its size.
func (f *FileIO) open(ctx context.Context, path string, max int64) (*stream, int64, error) {
	cmd := f.c.command(ctx, "exec", f.c.name, "sh", "-c", readScript, "sh", path, strconv.FormatInt(max, 10))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	s := &stream{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("%s: docker exec: %w", path, err)
	}
	s.r = bufio.NewReaderSize(stdout, 64<<10)
	head, rerr := s.r.ReadString('\n')
	if head == "ok\n" {
		return s, 0, nil
	}
	_, _ = io.Copy(io.Discard, s.r)
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return nil, 0, fmt.Errorf("%s: %w", path, ctx.Err())
	case cmd.ProcessState == nil:
		return nil, 0, fmt.Errorf("%s: docker exec: %w", path, errors.Join(rerr, werr))
	}
	code := cmd.ProcessState.ExitCode()
	if code == codeTooLarge {
		size, perr := strconv.ParseInt(strings.TrimSpace(head), 10, 64)
		if perr == nil {
			return nil, size, nil
		}
	}
	return nil, 0, f.fail(path, code, strings.TrimSpace(s.stderr.String()))
}

// stream is the content of one file being read; at EOF it reports a
// failure of cat (an I/O error in the container) instead of a short read
// passing as the whole file.
type stream struct {
	cmd    *exec.Cmd
	r      *bufio.Reader
	stderr *bytes.Buffer
	done   bool
	// end is what every Read returns once the content ended: io.EOF, or
	// cat's failure. Wait has closed the pipe by then, so reading it
	// again would fail with "file already closed".
	end error
}

func (s *stream) Read(p []byte) (int, error) {
	if s.done {
		if s.end == nil {
			return 0, errors.New("reading in the container: the reader is closed")
		}
		return 0, s.end
	}
	n, err := s.r.Read(p)
	if err == io.EOF {
		s.done = true
		s.end = io.EOF
		if werr := s.cmd.Wait(); werr != nil {
			s.end = fmt.Errorf("reading in the container: %v: %s", werr, strings.TrimSpace(s.stderr.String()))
		}
		return n, s.end
	}
	return n, err
}

// Close stops a read that did not reach the end.
func (s *stream) Close() error {
	if !s.done {
		s.done = true
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
	return nil
}

// ReadFile implements capabilities.FileIO.
func (f *FileIO) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return f.read(ctx, path, -1)
}

// read returns the content, or a *TooLargeError when max >= 0 and the
// file is larger.
func (f *FileIO) read(ctx context.Context, path string, max int64) ([]byte, error) {
	r, size, err := f.open(ctx, path, max)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("%s: %w", path, &capabilities.TooLargeError{Size: size, Max: max})
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// WriteFile implements capabilities.FileIO; it waits for an Update of
// the same path to finish.
func (f *FileIO) WriteFile(ctx context.Context, path string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	unlock, err := f.locks.Lock(ctx, path)
	if err != nil {
		return err
	}
	defer unlock()
	return f.write(ctx, path, data)
}

func (f *FileIO) write(ctx context.Context, path string, data []byte) error {
	var suffix [8]byte
	_, _ = rand.Read(suffix[:])
	_, code, stderr, err := f.c.script(ctx, bytes.NewReader(data), writeScript,
		path, strconv.Itoa(len(data)), hex.EncodeToString(suffix[:]))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if code != 0 {
		return f.fail(path, code, stderr)
	}
	return nil
}

// Update implements capabilities.FileIO: read, change and write under
// the path's lock.
func (f *FileIO) Update(ctx context.Context, path string, maxBytes int64, change func(old []byte) ([]byte, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	unlock, err := f.locks.Lock(ctx, path)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := f.read(ctx, path, max(maxBytes, 0))
	if err != nil {
		return err
	}
	data, err := change(old)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.write(ctx, path, data)
}

// Stat implements capabilities.FileIO. ModTime has the resolution of
// `stat -c %Y`: seconds.
func (f *FileIO) Stat(ctx context.Context, path string) (capabilities.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return capabilities.FileInfo{}, err
	}
	out, code, stderr, err := f.c.script(ctx, nil, statScript, path)
	if err != nil {
		return capabilities.FileInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	if code != 0 {
		return capabilities.FileInfo{}, f.fail(path, code, stderr)
	}
	fields := strings.Fields(string(out))
	if len(fields) != 3 {
		return capabilities.FileInfo{}, fmt.Errorf("%s: unexpected stat output %q", path, out)
	}
	size, err1 := strconv.ParseInt(fields[1], 10, 64)
	mtime, err2 := strconv.ParseInt(fields[2], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return capabilities.FileInfo{}, fmt.Errorf("%s: unexpected stat output %q: %w", path, out, err)
	}
	return capabilities.FileInfo{Size: size, ModTime: time.Unix(mtime, 0), IsDir: fields[0] == "1"}, nil
}

// Exists implements capabilities.FileIO.
func (f *FileIO) Exists(ctx context.Context, path string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	_, code, stderr, err := f.c.script(ctx, nil, existsScript, path)
	switch {
	case err != nil:
		return false, fmt.Errorf("%s: %w", path, err)
	case code == 0:
		return true, nil
	case code == codeNotExist:
		return false, nil
	}
	return false, f.fail(path, code, stderr)
}

// MkdirAll implements capabilities.FileIO.
func (f *FileIO) MkdirAll(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, code, stderr, err := f.c.script(ctx, nil, mkdirScript, path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if code != 0 {
		return f.fail(path, code, stderr)
	}
	return nil
}
