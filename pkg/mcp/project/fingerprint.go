package project

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/mcp"
)

// A Fingerprint is what a trust covers: the project file's content and,
// for each stdio server, what it runs — the executable its command
// resolves to and the workspace files an interpreter or launcher runs
// (see Runs). A trust holds while the fingerprint is the same.
type Fingerprint struct {
	// File is the SHA-256 of the file's content.
	File string `json:"sha256"`
	// Runs maps "<server>: <what>" (what: "command bash", "file
	// tools/server.sh") to "<path shown>\t<state>", the state being
	// "sha256:…", "missing", or "size … modified …" for a file too big
	// to hash.
	Runs map[string]string `json:"runs,omitempty"`
}

// Digest is one hash of the whole fingerprint.
func (f Fingerprint) Digest() string {
	return digest(f.File, f.Runs)
}

func digest(file string, runs map[string]string) string {
	keys := make([]string, 0, len(runs))
	for k := range runs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", file)
	for _, k := range keys {
		fmt.Fprintf(h, "%s\x00%s\n", k, runs[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Changes says, one line each, what differs from old (the fingerprint
// the user trusted): the file, and what its servers run.
func (f Fingerprint) Changes(old Fingerprint) []string {
	var out []string
	if f.File != old.File {
		out = append(out, FileName+" changed since you trusted it")
	}
	if old.Runs == nil && len(f.Runs) > 0 && f.File == old.File {
		return append(out, "what its servers run was not recorded when you trusted it")
	}
	keys := make([]string, 0, len(f.Runs))
	for k := range f.Runs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		was, ok := old.Runs[k]
		now := f.Runs[k]
		if !ok {
			if f.File == old.File {
				out = append(out, shownKey(k)+" was not recorded when you trusted it")
			}
			continue
		}
		if was == now {
			continue
		}
		server, what, _ := strings.Cut(k, ": ")
		wasPath, wasState, _ := strings.Cut(was, "\t")
		nowPath, nowState, _ := strings.Cut(now, "\t")
		kind, name, _ := strings.Cut(what, " ")
		switch {
		case kind == "command" && wasPath != nowPath:
			out = append(out, fmt.Sprintf("%s: the command %s now runs %s (was %s)", server, Visible(name), Visible(nowPath), Visible(wasPath)))
		case wasState == stateMissing:
			out = append(out, fmt.Sprintf("%s: %s appeared since you trusted it", server, Visible(nowPath)))
		case nowState == stateMissing:
			out = append(out, fmt.Sprintf("%s: %s is gone since you trusted it", server, Visible(wasPath)))
		default:
			out = append(out, fmt.Sprintf("%s: %s changed since you trusted it", server, Visible(nowPath)))
		}
	}
	if f.File == old.File {
		for k := range old.Runs {
			if _, ok := f.Runs[k]; !ok {
				out = append(out, shownKey(k)+" is no longer run")
			}
		}
	}
	return out
}

// shownKey is a Runs key for the question, "server: command x" with x
// Visible (a file name may hold a newline).
func shownKey(k string) string {
	server, what, _ := strings.Cut(k, ": ")
	kind, name, _ := strings.Cut(what, " ")
	return server + ": " + kind + " " + Visible(name)
}

// Ran is one thing a server runs.
type Ran struct {
	// What is "command <command>" or "file <path>".
	What string
	// Path is where it is: the resolved executable, or the file
	// relative to the workspace when inside it.
	Path string
	// State is "sha256:<hex>", "missing", "size … modified …" (too big
	// to hash) or "" (an executable outside the workspace, too big to
	// hash: its path is what is trusted).
	State string
}

const (
	stateMissing = "missing"
	// maxHashBytes: a bigger file is fingerprinted by size and time.
	maxHashBytes = 256 << 20
	// maxOutsideBytes: an executable outside the workspace is hashed
	// when at most this big (a script); a bigger one (a binary the
	// system installed) is trusted by its path.
	maxOutsideBytes = 256 << 10
	// cacheFrom: files at least this big are hashed again only when
	// their size, time or inode change (small ones always are).
	cacheFrom = 1 << 20
	// maxRuns bounds what one server records.
	maxRuns = 64
)

// hasher hashes files, remembering big ones by size, time and inode.
// Safe for concurrent use.
type hasher struct {
	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	size  int64
	mtime time.Time
	ino   uint64
	sum   string
}

func newHasher() *hasher { return &hasher{cache: map[string]cached{}} }

// forget drops the cache: the next sums read every file.
func (h *hasher) forget() {
	h.mu.Lock()
	h.cache = map[string]cached{}
	h.mu.Unlock()
}

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// sum is the state of the regular file at path (symlinks followed);
// fresh ignores the cache.
func (h *hasher) sum(path string, limit int64, fresh bool) string {
	fi, err := os.Stat(path)
	if err != nil {
		return stateMissing
	}
	if !fi.Mode().IsRegular() {
		return "not a regular file"
	}
	if fi.Size() > limit {
		return fmt.Sprintf("size %d modified %s", fi.Size(), fi.ModTime().UTC().Format(time.RFC3339Nano))
	}
	c := cached{size: fi.Size(), mtime: fi.ModTime(), ino: inode(fi)}
	if h != nil && !fresh && fi.Size() >= cacheFrom {
		h.mu.Lock()
		old, ok := h.cache[path]
		h.mu.Unlock()
		if ok && old.size == c.size && old.mtime.Equal(c.mtime) && old.ino == c.ino {
			return old.sum
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer f.Close()
	d := sha256.New()
	if _, err := io.Copy(d, io.LimitReader(f, limit+1)); err != nil {
		return "unreadable: " + err.Error()
	}
	c.sum = "sha256:" + hex.EncodeToString(d.Sum(nil))
	if h != nil && fi.Size() >= cacheFrom {
		h.mu.Lock()
		h.cache[path] = c
		h.mu.Unlock()
	}
	return c.sum
}

// runs lists what a stdio server runs. ws is the workspace's real path;
// fresh hashes every file again. A URL server runs nothing here.
func runs(cfg mcp.ServerConfig, ws string, h *hasher, fresh bool) []Ran {
	if cfg.Command == "" {
		return nil
	}
	r := &runner{ws: ws, dir: cfg.Cwd, h: h, fresh: fresh, seen: map[string]bool{}}
	if r.dir == "" {
		r.dir = ws
	}
	r.command(cfg.Command, cfg.Args, 0)
	return r.out
}

type runner struct {
	ws, dir string
	h       *hasher
	fresh   bool
	out     []Ran
	seen    map[string]bool
}

func (r *runner) add(x Ran) {
	if r.seen[x.What] || len(r.out) >= maxRuns {
		return
	}
	r.seen[x.What] = true
	r.out = append(r.out, x)
}

// inside reports whether p (absolute, clean) is in the workspace.
func (r *runner) inside(p string) bool {
	rel, err := filepath.Rel(r.ws, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// shown is p relative to the workspace when inside it.
func (r *runner) shown(p string) string {
	if rel, err := filepath.Rel(r.ws, p); err == nil && r.inside(p) {
		return rel
	}
	return p
}

// resolve finds the executable as exec.Command will: a name with a slash
// relative to the server's directory, a bare name on the host's PATH.
func (r *runner) resolve(command string) (string, error) {
	p := command
	if !strings.Contains(command, "/") {
		lp, err := exec.LookPath(command)
		if err != nil {
			return "", err
		}
		p = lp
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.dir, p)
	}
	return filepath.Clean(p), nil
}

// command records the executable and, for interpreters and launchers,
// the workspace files they run.
func (r *runner) command(command string, args []string, depth int) {
	what := "command " + command
	p, err := r.resolve(command)
	if err != nil {
		r.add(Ran{What: what, Path: command, State: "not found"})
		return
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		r.add(Ran{What: what, Path: p, State: stateMissing})
		return
	}
	shown := r.shown(real)
	if r.inside(p) && p != real {
		shown = r.shown(p) + " -> " + real
	}
	switch {
	case r.inside(p) || r.inside(real):
		r.add(Ran{What: what, Path: shown, State: r.h.sum(real, maxHashBytes, r.fresh)})
	default:
		state := ""
		if fi, err := os.Stat(real); err == nil && fi.Size() <= maxOutsideBytes {
			state = r.h.sum(real, maxOutsideBytes, r.fresh)
		}
		r.add(Ran{What: what, Path: shown, State: state})
	}
	base := filepath.Base(command)
	realBase := filepath.Base(real)
	is := func(names ...string) bool {
		for _, n := range names {
			if base == n || realBase == n {
				return true
			}
		}
		return false
	}
	first := func(n string) bool { return len(args) > 0 && args[0] == n }
	switch {
	case is("env") && depth == 0:
		// env [-i] [-u NAME] [NAME=value]... command args
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a == "-u" || a == "--unset" || a == "-C" || a == "--chdir" {
				i++
				continue
			}
			if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
				continue
			}
			r.command(a, args[i+1:], depth+1)
			return
		}
	case is("npx", "bunx", "pnpx"):
		r.npm(args)
	case (is("pnpm", "yarn", "npm") && (first("dlx") || first("exec") || first("x"))) || (is("bun") && first("x")):
		r.npm(args[1:])
	case is("uvx") || (is("uv") && len(args) > 1 && args[0] == "tool" && args[1] == "run") || (is("pipx") && first("run")):
		r.file("uv.toml", true)
		r.python(args)
	case is("uv") && first("run"):
		r.file("uv.toml", true)
		r.file("pyproject.toml", true)
		r.scripts(args[1:])
	case interpreter(base) || interpreter(realBase):
		r.scripts(args)
	}
}

// interpreter reports whether the named program runs a script it is
// given as an argument.
func interpreter(name string) bool {
	switch name {
	case "bash", "sh", "dash", "zsh", "ksh", "mksh", "fish", "node", "nodejs", "deno", "bun", "tsx", "ts-node",
		"ruby", "perl", "php", "lua", "luajit", "Rscript", "osascript", "pwsh":
		return true
	}
	return strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy")
}

var scriptExt = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".js": true, ".mjs": true, ".cjs": true,
	".ts": true, ".mts": true, ".cts": true, ".tsx": true, ".jsx": true, ".py": true, ".rb": true, ".pl": true,
	".php": true, ".lua": true, ".r": true, ".R": true, ".ps1": true}

// scripts records the workspace files an interpreter's arguments name:
// every argument (and every word of one, and the value after "=") that
// is an existing file in the workspace, or that looks like a script
// path there even when it is missing (a planted one would run); python's
// -m module as its files.
func (r *runner) scripts(args []string) {
	for i, a := range args {
		if (a == "-m") && i+1 < len(args) {
			mod := strings.ReplaceAll(args[i+1], ".", "/")
			r.file(mod+".py", true)
			r.file(filepath.Join(mod, "__main__.py"), true)
			r.file(filepath.Join(mod, "__init__.py"), true)
		}
		words := strings.Fields(a)
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			words = append(words, v)
		}
		for _, w := range words {
			w = strings.Trim(w, `"'`)
			r.file(w, scriptExt[filepath.Ext(w)] && !strings.HasPrefix(w, "-"))
		}
	}
}

// python records, for uvx / pipx run, local sources given with --from,
// --with or --spec (a directory: its build files) and files named.
func (r *runner) python(args []string) {
	for i, a := range args {
		v := ""
		switch {
		case (a == "--from" || a == "--with" || a == "--spec" || a == "--with-editable") && i+1 < len(args):
			v = args[i+1]
		case strings.HasPrefix(a, "--from="), strings.HasPrefix(a, "--with="), strings.HasPrefix(a, "--spec="):
			_, v, _ = strings.Cut(a, "=")
		}
		if v != "" && (strings.HasPrefix(v, ".") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "file:")) {
			v = strings.TrimPrefix(v, "file:")
			if fi, err := os.Stat(r.abs(v)); err == nil && fi.IsDir() {
				for _, f := range []string{"pyproject.toml", "setup.py", "setup.cfg"} {
					r.file(filepath.Join(v, f), true)
				}
				continue
			}
			r.file(v, true)
		}
	}
	r.scripts(args)
}

// npm records what an npx-like launcher would run from the workspace:
// node_modules/.bin/<bin> and the package's package.json and declared
// bin scripts (recorded missing when not installed: a package planted
// later runs instead of the registry's), and the workspace's .npmrc.
func (r *runner) npm(args []string) {
	r.file(".npmrc", true)
	var pkgs []string
	bin := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				bin = args[i+1]
			}
			i = len(args)
		case a == "-p" || a == "--package":
			if i+1 < len(args) {
				pkgs = append(pkgs, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "--package="):
			pkgs = append(pkgs, strings.TrimPrefix(a, "--package="))
		case a == "-c" || a == "--call":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			bin = a
			i = len(args)
		}
	}
	if len(pkgs) == 0 && bin != "" {
		pkgs = []string{bin}
		bin = binName(packageName(bin))
	}
	for _, spec := range pkgs {
		if strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, "file:") {
			dir := strings.TrimPrefix(spec, "file:")
			r.pkg(dir)
			continue
		}
		if name := packageName(spec); name != "" && !strings.Contains(name, "..") && !strings.Contains(spec, ":") {
			r.pkg(filepath.Join("node_modules", name))
		}
	}
	if bin != "" && !strings.ContainsAny(bin, "/\\") && bin != ".." {
		r.file(filepath.Join("node_modules", ".bin", bin), true)
	}
}

// pkg records a package directory's package.json and its bin scripts.
func (r *runner) pkg(dir string) {
	manifest := filepath.Join(dir, "package.json")
	r.file(manifest, true)
	data, err := os.ReadFile(r.abs(manifest))
	if err != nil || len(data) > MaxFileBytes {
		return
	}
	var m struct {
		Bin json.RawMessage `json:"bin"`
	}
	if json.Unmarshal(data, &m) != nil {
		return
	}
	var one string
	var many map[string]string
	if json.Unmarshal(m.Bin, &one) == nil && one != "" {
		r.file(filepath.Join(dir, one), true)
	} else if json.Unmarshal(m.Bin, &many) == nil {
		names := make([]string, 0, len(many))
		for k := range many {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			r.file(filepath.Join(dir, many[k]), true)
		}
	}
}

func (r *runner) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(r.dir, p)
}

// file records p (relative to the server's directory) when it lies in
// the workspace (or links out of it): hashed when it exists, "missing"
// when it does not and always is set, skipped otherwise.
func (r *runner) file(p string, always bool) {
	if p == "" || strings.ContainsRune(p, 0) {
		return
	}
	abs := r.abs(p)
	if !r.inside(abs) || abs == r.ws {
		return
	}
	what := "file " + r.shown(abs)
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		_, lerr := os.Lstat(abs)
		if always || lerr == nil { // a dangling link is recorded too
			r.add(Ran{What: what, Path: r.shown(abs), State: stateMissing})
		}
		return
	case !fi.Mode().IsRegular():
		return
	}
	shown := r.shown(abs)
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		shown += " -> " + r.shown(real)
		abs = real
	}
	r.add(Ran{What: what, Path: shown, State: r.h.sum(abs, maxHashBytes, r.fresh)})
}

// packageName is an npm package spec without its version:
// "@scope/name@1.2" → "@scope/name".
func packageName(spec string) string {
	if strings.HasPrefix(spec, "@") {
		if i := strings.Index(spec[1:], "@"); i >= 0 {
			return spec[:i+1]
		}
		return spec
	}
	name, _, _ := strings.Cut(spec, "@")
	return name
}

// binName is the bin npx runs for a package by default: its name
// without the scope.
func binName(name string) string {
	if i := strings.LastIndex(name, "/"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// fingerprint computes the fingerprint of a parsed file; per server, what
// it runs.
func fingerprint(fileHash string, servers []Server, ws string, h *hasher) (Fingerprint, map[string][]Ran) {
	fp := Fingerprint{File: fileHash, Runs: map[string]string{}}
	per := map[string][]Ran{}
	for _, s := range servers {
		rs := runs(s.Config, ws, h, false)
		per[s.Name] = rs
		for _, x := range rs {
			fp.Runs[s.Name+": "+x.What] = x.Path + "\t" + x.State
		}
	}
	if len(fp.Runs) == 0 {
		fp.Runs = nil
	}
	return fp, per
}

// serverDigest is the hash of what one server runs, which the manager
// checks before each start (mcp.ServerConfig.Trusted).
func serverDigest(rs []Ran) string {
	m := make(map[string]string, len(rs))
	for _, x := range rs {
		m[x.What] = x.Path + "\t" + x.State
	}
	return digest("", m)
}
