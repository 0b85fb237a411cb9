package ripgrep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// DefaultTimeout ends a search whose request and Options set none.
const DefaultTimeout = 30 * time.Second

// Options configures a Searcher.
type Options struct {
	// Locator finds rg; nil means rg from PATH only.
	Locator *Locator
	// DefaultTimeout applies when a request has no Timeout; 0 means
	// DefaultTimeout (30s).
	DefaultTimeout time.Duration
}

// Searcher runs ripgrep. It implements capabilities.Searcher and is safe
// for concurrent use.
type Searcher struct {
	opts Options
	lock chan struct{} // held while finding rg
	prog *program      // rg once found; guarded by lock
}

var _ capabilities.Searcher = (*Searcher)(nil)

// program is a located rg and its description for SearchResult.Searcher.
type program struct {
	path, name string
}

// New returns a Searcher. Nothing is run until the first search.
func New(opts Options) *Searcher {
	if opts.Locator == nil {
		opts.Locator = &Locator{}
	}
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	return &Searcher{opts: opts, lock: make(chan struct{}, 1)}
}

// program finds rg and reads its version once; a failure is not cached,
// so installing rg later fixes the next search.
func (s *Searcher) program(ctx context.Context) (*program, error) {
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.lock }()
	if s.prog != nil {
		return s.prog, nil
	}
	path, source, err := s.opts.Locator.Find(ctx)
	if err != nil {
		return nil, err
	}
	version, err := rgVersion(ctx, path)
	if err != nil {
		return nil, err
	}
	s.prog = &program{path: path, name: fmt.Sprintf("rg %s (%s: %s)", version, source, path)}
	return s.prog, nil
}

// Search implements capabilities.Searcher. An invalid pattern, unreadable
// files and the like are reported in the result's Errors; an error means
// the search could not run (no rg, a missing path) or ctx ended, in which
// case the result holds what was collected before.
func (s *Searcher) Search(ctx context.Context, req capabilities.SearchRequest) (*capabilities.SearchResult, error) {
	if !filepath.IsAbs(req.Path) {
		return nil, fmt.Errorf("search path %q is not absolute", req.Path)
	}
	root := filepath.Clean(req.Path)
	fi, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", root, capabilities.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	prog, err := s.program(ctx)
	if err != nil {
		return nil, err
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = s.opts.DefaultTimeout
	}
	start := func(ctx context.Context, dir string, args []string) *exec.Cmd {
		cmd := command(ctx, prog.path, args...)
		cmd.Dir = dir
		return cmd
	}
	return Run(ctx, req, root, fi.IsDir(), prog.name, timeout, start)
}

// Starter makes the rg process of one search, not started: rg with args
// in dir. The local Searcher runs it on this machine; a Docker
// environment runs it inside its container. Cancelling ctx must end it.
type Starter func(ctx context.Context, dir string, args []string) *exec.Cmd

// Run runs one search of root (a directory when isDir, else a file),
// cleaned and absolute, with the rg that start makes, and parses its
// --json output into the result, secrets left out and counted; name goes
// in SearchResult.Searcher and timeout ends the search (TimedOut).
// Errors are as for Search.
func Run(ctx context.Context, req capabilities.SearchRequest, root string, isDir bool, name string, timeout time.Duration, start Starter) (*capabilities.SearchResult, error) {
	dir, prefix := root, root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !isDir {
		dir, prefix = filepath.Dir(root), ""
	}
	res := &capabilities.SearchResult{Searcher: name}
	if secrets.In([]string{filepath.Base(root)}) != "" {
		// The path itself is a secret: nothing under it is searched. (Its
		// parents are the caller's to judge: a workspace may well sit
		// under a directory named "credentials"; the grep tool checks the
		// part inside the workspace.)
		res.SecretsSkipped = 1
		return res, nil
	}
	col := newCollector(res, req.MaxMatches, max(req.Context, 0), prefix)
	began := time.Now()
	if err := run(ctx, timeout, start, dir, buildArgs(req, root), col); err != nil {
		return res, err
	}
	dropSecretFiles(res)
	if isDir {
		res.SecretsSkipped += countSecretFiles(ctx, timeout-time.Since(began), start, root, req.Include)
	}
	return res, nil
}

// buildArgs is rg's argv (without the program). The pattern always
// follows -e and the path follows --, so neither can be read as a flag.
func buildArgs(req capabilities.SearchRequest, root string) []string {
	args := []string{"--json", "--no-config", "--no-require-git", "--glob", "!.git"}
	if req.IgnoreCase {
		args = append(args, "--ignore-case")
	}
	if req.FixedStrings {
		args = append(args, "--fixed-strings")
	}
	if req.Context > 0 {
		args = append(args, "--context", strconv.Itoa(req.Context))
	}
	if req.Include != "" {
		args = append(args, "--glob", req.Include)
	}
	// Secrets are never opened, whatever the request says. They come after
	// INCLUDE because in rg a later glob overrides an earlier one:
	// include "*.key" must not bring the keys back.
	for _, g := range secrets.Globs() {
		args = append(args, "--iglob", "!"+g)
	}
	return append(args, "-e", req.Pattern, "--", root)
}

// rgEnv is the environment rg runs with: the host's, without
// RIPGREP_CONFIG_PATH (a config file could add flags such as --pre).
func rgEnv() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "RIPGREP_CONFIG_PATH=") {
			out = append(out, kv)
		}
	}
	return out
}

// rgVersion runs `rg --version` and returns the version ("13.0.0"). A
// just-installed binary can briefly fail with ETXTBSY while another
// goroutine's fork still holds it open for writing; that is retried.
func rgVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		out, err := versionOutput(ctx, path)
		if errors.Is(err, syscall.ETXTBSY) && ctx.Err() == nil {
			select {
			case <-time.After(20 * time.Millisecond):
				continue
			case <-ctx.Done():
			}
		}
		if err != nil {
			return "", fmt.Errorf("%s --version: %w", path, err)
		}
		first, _, _ := strings.Cut(string(out), "\n")
		f := strings.Fields(first)
		if len(f) < 2 || f[0] != "ripgrep" {
			return "", fmt.Errorf("%s is not ripgrep: --version printed %q", path, first)
		}
		return f[1], nil
	}
}
