package posixremote

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

// FileIO reads and writes files on a Remote with the sh scripts of
// scripts.go. It is safe for concurrent use. Update holds a per-path
// lock in this process: the machine's files are expected to be changed
// through this host only (another process there writing the same file
// at the same moment is not excluded).
type FileIO struct {
	m     *Remote
	locks pathlock.Table
}

var _ capabilities.FileIO = (*FileIO)(nil)

// NewFileIO returns the FileIO of m.
func NewFileIO(m *Remote) *FileIO { return &FileIO{m: m} }

// fail turns a script's exit into an error naming path.
func (f *FileIO) fail(path string, code int, stderr string) error {
	switch code {
	case CodeNotExist:
		return fmt.Errorf("%s: %w", path, capabilities.ErrNotExist)
	case CodeIsDir:
		return fmt.Errorf("%s: %w", path, capabilities.ErrIsDirectory)
	case CodeNotRegular:
		return fmt.Errorf("%s: %w", path, capabilities.ErrNotRegular)
	}
	if stderr == "" {
		stderr = "exit status " + strconv.Itoa(code)
	}
	return fmt.Errorf("%s: %s: %s", path, f.m.Where, stderr)
}

// script is Remote.Run of a script on path ($1) and args; a failure or
// a non-zero exit is an error naming path.
func (f *FileIO) script(ctx context.Context, stdin io.Reader, script, path string, args ...string) ([]byte, error) {
	out, code, stderr, err := f.m.Run(ctx, stdin, script, append([]string{path}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if code != 0 {
		return nil, f.fail(path, code, stderr)
	}
	return out, nil
}

// Open implements capabilities.FileIO: the content streams from `cat`
// on the machine; Close stops it.
func (f *FileIO) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, _, err := f.open(ctx, path, -1)
	return r, err
}

// open starts ReadScript; with max >= 0 a larger file gives a nil reader
// and its size.
func (f *FileIO) open(ctx context.Context, path string, max int64) (*stream, int64, error) {
	cmd, err := f.m.Command(ctx, false, ReadScript, path, strconv.FormatInt(max, 10))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	s := &stream{m: f.m, cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("%s: %s: %w", path, f.m.Program, err)
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
		return nil, 0, fmt.Errorf("%s: %s: %w", path, f.m.Program, errors.Join(rerr, werr))
	}
	code := cmd.ProcessState.ExitCode()
	stderr := strings.TrimSpace(s.stderr.String())
	if ferr := f.m.Failure(ctx, code, stderr, werr); code != 0 && ferr != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, ferr)
	}
	if code == CodeTooLarge {
		size, perr := strconv.ParseInt(strings.TrimSpace(head), 10, 64)
		if perr == nil {
			return nil, size, nil
		}
	}
	return nil, 0, f.fail(path, code, stderr)
}

// stream is the content of one file being read; at EOF it reports a
// failure of cat (an I/O error there) or of the transport instead of a
// short read passing as the whole file.
type stream struct {
	m      *Remote
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
			return 0, fmt.Errorf("%s: the reader is closed", s.m.Reading)
		}
		return 0, s.end
	}
	n, err := s.r.Read(p)
	if err == io.EOF {
		s.done = true
		s.end = io.EOF
		if werr := s.cmd.Wait(); werr != nil {
			stderr := strings.TrimSpace(s.stderr.String())
			s.end = fmt.Errorf("%s: %v: %s", s.m.Reading, werr, stderr)
			if st := s.cmd.ProcessState; st != nil && st.ExitCode() > 0 {
				if ferr := s.m.Failure(context.Background(), st.ExitCode(), stderr, werr); ferr != nil {
					s.end = fmt.Errorf("%s: %w", s.m.Reading, ferr)
				}
			}
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

// locked runs fn under path's lock, unless ctx has ended.
func (f *FileIO) locked(ctx context.Context, path string, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	unlock, err := f.locks.Lock(ctx, path)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// WriteFile implements capabilities.FileIO; it waits for an Update of
// the same path to finish.
func (f *FileIO) WriteFile(ctx context.Context, path string, data []byte) error {
	return f.locked(ctx, path, func() error { return f.write(ctx, path, data) })
}

func (f *FileIO) write(ctx context.Context, path string, data []byte) error {
	var suffix [8]byte
	_, _ = rand.Read(suffix[:])
	_, err := f.script(ctx, bytes.NewReader(data), WriteScript, path, strconv.Itoa(len(data)), hex.EncodeToString(suffix[:]))
	return err
}

// Update implements capabilities.FileIO: read, change and write under
// the path's lock.
func (f *FileIO) Update(ctx context.Context, path string, maxBytes int64, change func(old []byte) ([]byte, error)) error {
	return f.locked(ctx, path, func() error {
		old, err := f.read(ctx, path, max(maxBytes, 0))
		if err != nil {
			return err
		}
		data, err := change(old)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return f.write(ctx, path, data)
	})
}

// Stat implements capabilities.FileIO. ModTime has the resolution of
// `stat -c %Y`: seconds.
func (f *FileIO) Stat(ctx context.Context, path string) (capabilities.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return capabilities.FileInfo{}, err
	}
	out, err := f.script(ctx, nil, StatScript, path)
	if err != nil {
		return capabilities.FileInfo{}, err
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
	_, err := f.script(ctx, nil, ExistsScript, path)
	if errors.Is(err, capabilities.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// MkdirAll implements capabilities.FileIO.
func (f *FileIO) MkdirAll(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := f.script(ctx, nil, MkdirScript, path)
	return err
}
