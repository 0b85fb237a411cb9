package bashperm

import (
	"errors"
	"fmt"
	"github.com/magenta-nvim/magenta/pkg/gitctl"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// Git's configuration can hold credentials (issue 23, finding 9): a token
// in a remote URL, sendemail.smtpPass, an http.extraHeader with an
// Authorization header. A command that would print one asks: git config
// reads, git remote -v / get-url / show, and a direct read of a config
// file (cat .git/config). secrets.GitConfigCredential says what a
// credential is.

// maxIncludeDepth bounds include.path chains, as git does.
const maxIncludeDepth = 10

// systemGitConfigs are where git builds keep their system config.
var systemGitConfigs = []string{"/etc/gitconfig", "/usr/local/etc/gitconfig", "/opt/homebrew/etc/gitconfig"}

// configRead is what a git command prints of the configuration.
type configRead struct {
	all     bool     // any variable: --list, --get-regexp, an unknown form
	key     string   // one variable (canonical: section and name lower case)
	remotes bool     // remote URLs, after url.<base>.insteadOf rewriting
	store   bool     // git credential: the credential helpers' answers
	files   []string // --file: the config files read instead of the usual ones
}

// gitConfigRead says what a git command (argv after the global options)
// prints of the configuration; ok false: nothing.
func gitConfigRead(argv []field) (cr configRead, ok bool) {
	if len(argv) < 2 {
		return configRead{}, false
	}
	sub, args := argv[1], argv[2:]
	switch {
	case sub.glob:
		return configRead{all: true}, true
	case sub.s == "config":
		return configCommandRead(args)
	case sub.s == "remote":
		ops := operands(args)
		if len(ops) == 0 {
			for _, a := range args {
				if a.glob || len(a.s) > 3 && strings.HasPrefix("--verbose", a.s) || isShort(a.s) && strings.ContainsRune(a.s, 'v') {
					return configRead{remotes: true}, true
				}
			}
			return configRead{}, false // remote names only
		}
		switch ops[0].s {
		case "add", "set-url", "rename", "remove", "rm", "set-head", "set-branches":
			return configRead{}, false // they print no URL (and ask as writes)
		}
		return configRead{remotes: true}, true // -v, get-url, show, prune, update…
	case sub.s == "ls-remote":
		return configRead{remotes: true}, true // "From <url>"
	case sub.s == "var":
		for _, a := range args {
			if a.glob || a.s == "-l" {
				return configRead{all: true}, true
			}
		}
	case sub.s == "credential" || strings.HasPrefix(sub.s, "credential-"):
		return configRead{store: true}, true
	}
	return configRead{}, false
}

// configCommandRead reads the forms of git config: --get NAME, --get-all
// NAME, NAME, get NAME print one variable; --list, -l, --get-regexp,
// --get-urlmatch, --edit, list, get --regexp/--url, and any flag not
// known here may print any; writes print nothing.
func configCommandRead(args []field) (configRead, bool) {
	var cr configRead
	var ops []string
	get, all := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		w := a.s
		name, value, hasValue := strings.Cut(w, "=")
		switch {
		case a.glob:
			return configRead{all: true}, true
		case w == "--":
			for _, b := range args[i+1:] {
				ops = append(ops, b.s)
			}
			i = len(args)
		case !strings.HasPrefix(w, "-") || w == "-":
			ops = append(ops, w)
		case name == "-f" || name == "--file" || strings.HasPrefix(w, "-f") && len(w) > 2 && !strings.HasPrefix(w, "--"):
			switch {
			case hasValue:
			case len(w) > 2 && !strings.HasPrefix(w, "--"):
				value = w[2:]
			case i+1 < len(args):
				i++
				value = args[i].s
			}
			cr.files = append(cr.files, value)
		case name == "--blob" || name == "--type" || name == "--default" || name == "--comment" || name == "--value":
			if !hasValue {
				i++
			}
		case name == "--get" || name == "--get-all":
			get = true
		case name == "--list" || w == "-l" || name == "--get-regexp" || name == "--get-urlmatch" ||
			w == "-e" || name == "--edit" || name == "--regexp" || name == "--url":
			all = true
			if name == "--url" && !hasValue {
				i++
			}
		case name == "--add" || name == "--replace-all" || name == "--unset" || name == "--unset-all" ||
			name == "--rename-section" || name == "--remove-section" || name == "--get-color" || name == "--get-colorbool":
			return configRead{}, false
		case name == "--show-origin" || name == "--show-scope" || name == "--name-only" || w == "-z" || name == "--null" ||
			name == "--includes" || name == "--no-includes" || name == "--local" || name == "--global" ||
			name == "--system" || name == "--worktree" || name == "--bool" || name == "--int" ||
			name == "--bool-or-int" || name == "--path" || name == "--expiry-date" || name == "--fixed-value" ||
			name == "--no-type" || name == "--all":
		default:
			all = true // a flag not known here
		}
	}
	if len(ops) > 0 {
		switch ops[0] {
		case "list", "edit":
			all = true
		case "get":
			get, ops = true, ops[1:]
		case "set", "unset", "rename-section", "remove-section":
			return configRead{}, false
		}
	}
	switch {
	case all:
		cr.all = true
	case len(ops) == 0:
		return configRead{}, false // usage
	case get || len(ops) == 1:
		cr.key = canonicalKey(ops[0])
	default:
		return configRead{}, false // NAME VALUE sets it
	}
	return cr, true
}

// canonicalKey lower-cases a variable name's section and name, as git
// does; the subsection keeps its case.
func canonicalKey(key string) string {
	first := strings.IndexByte(key, '.')
	last := strings.LastIndexByte(key, '.')
	if first < 0 {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
}

// matches reports whether a config variable is one the read prints.
func (cr configRead) matches(key string) bool {
	switch {
	case cr.all:
		return true
	case cr.remotes:
		section, _, _ := strings.Cut(key, ".")
		return section == "remote" || section == "url"
	}
	return key == cr.key
}

// gitCredentialReason asks when a git command (argv after the global
// options, run from cwd in repo, nil outside one) would print a
// credential from the configuration: the repository's config and
// config.worktree, the user's ~/.gitconfig and $XDG_CONFIG_HOME/git/config
// (and $GIT_CONFIG_GLOBAL), the system's, and the files they include.
func (r *run) gitCredentialReason(repo *gitRepo, argv []field, cwd string) string {
	cr, ok := gitConfigRead(argv)
	if !ok {
		return ""
	}
	label := "`git " + argv[1].s + "`"
	if argv[1].glob {
		label = "git with a subcommand known only at run time"
	}
	if cr.store {
		return fmt.Sprintf("runs %s, which prints the credentials git's helpers store", label)
	}
	files := gitConfigFiles(repo, r.home)
	if len(cr.files) > 0 {
		files = nil
		for _, f := range cr.files {
			files = append(files, joinRaw(cwd, f))
		}
	}
	file, key, err := findGitCredential(files, r.home, cr.matches)
	switch {
	case err != nil:
		return fmt.Sprintf("runs %s, which prints git configuration that could not be checked for credentials (%v)", label, err)
	case key != "":
		return fmt.Sprintf("runs %s, which would print credentials from %s (%s)", label, file, key)
	}
	return ""
}

// gitConfigFiles lists the config files git reads in repo (nil: outside
// a repository), system first. home is the user's home ("" falls back to
// $HOME). Environment overrides are added, never substituted: reading
// more files can only ask more.
func gitConfigFiles(repo *gitRepo, home string) []string {
	if home == "" {
		home = os.Getenv("HOME")
	}
	files := append([]string(nil), systemGitConfigs...)
	if f := os.Getenv("GIT_CONFIG_SYSTEM"); f != "" {
		files = append(files, f)
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	if f := os.Getenv("GIT_CONFIG_GLOBAL"); f != "" {
		files = append(files, f)
	}
	if repo != nil {
		files = append(files, filepath.Join(repo.commonDir, "config"), filepath.Join(repo.gitDir, "config.worktree"))
	}
	return files
}

// findGitCredential returns the first variable in the config files (and
// the files their include.path and includeIf.*.path name, whatever the
// condition) that match accepts and that holds a credential. A file that
// does not exist is skipped, as git skips it; one that cannot be read or
// parsed is an error, since it could hide a credential.
func findGitCredential(files []string, home string, match func(key string) bool) (file, key string, err error) {
	if home == "" {
		home = os.Getenv("HOME")
	}
	type item struct {
		path  string
		depth int
	}
	queue := make([]item, 0, len(files))
	for _, f := range files {
		queue = append(queue, item{f, 0})
	}
	seen := map[string]bool{}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if seen[it.path] || it.depth > maxIncludeDepth {
			continue
		}
		seen[it.path] = true
		data, err := readSmall(it.path, gitctl.MaxConfigSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return it.path, "", err
		}
		entries, err := gitctl.ParseConfig(data)
		if err != nil {
			return it.path, "", fmt.Errorf("%s: %w", it.path, err)
		}
		for _, e := range entries {
			if match(e.Key) && secrets.GitConfigCredential(e.Key, e.Value) {
				return it.path, e.Key, nil
			}
			section, _, _ := strings.Cut(e.Key, ".")
			if (section == "include" || section == "includeif") && strings.HasSuffix(e.Key, ".path") && e.Value != "" {
				inc := e.Value
				switch {
				case strings.HasPrefix(inc, "~/") && home != "":
					inc = filepath.Join(home, inc[2:])
				case !filepath.IsAbs(inc):
					inc = filepath.Join(filepath.Dir(it.path), inc)
				}
				queue = append(queue, item{inc, it.depth + 1})
			}
		}
	}
	return "", "", nil
}

// gitConfigFileReason is why reading the file or directory at res (a
// resolved path) would show a credential from git's configuration, as a
// clause ("which holds a credential…") to follow the path: res
// is a config file (a .git directory's config or config.worktree, a bare
// repository's config, ~/.gitconfig, git/config under XDG_CONFIG_HOME,
// gitconfig, .gitmodules) or a git directory, whose config a recursive
// reader would open (a directory named .git or *.git), and it holds a
// credential. "" otherwise.
func gitConfigFileReason(res string) string {
	base := strings.ToLower(filepath.Base(res))
	if base != ".git" && !strings.HasSuffix(base, ".git") && !isGitConfigName(base) {
		return "" // most reads: no stat
	}
	fi, err := os.Stat(res)
	if err != nil {
		return ""
	}
	var files []string
	switch {
	case fi.IsDir():
		if !isGitDir(res) {
			return ""
		}
		files = []string{filepath.Join(res, "config"), filepath.Join(res, "config.worktree")}
	case fi.Mode().IsRegular() && isGitConfigFile(res):
		files = []string{res}
	default:
		return ""
	}
	for _, f := range files {
		data, err := readSmall(f, gitctl.MaxConfigSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Sprintf("which holds git configuration that cannot be checked for credentials (%v)", err)
		}
		entries, err := gitctl.ParseConfig(data)
		if err != nil {
			return fmt.Sprintf("which holds git configuration that cannot be checked for credentials (%s: %v)", f, err)
		}
		for _, e := range entries {
			if secrets.GitConfigCredential(e.Key, e.Value) {
				return fmt.Sprintf("which holds a credential in git's configuration (%s)", e.Key)
			}
		}
	}
	return ""
}

func isGitConfigName(base string) bool {
	switch base {
	case ".gitconfig", "gitconfig", ".gitmodules", "config", "config.worktree":
		return true
	}
	return false
}

// isGitConfigFile: by name and place, a file git reads as configuration.
func isGitConfigFile(p string) bool {
	switch strings.ToLower(filepath.Base(p)) {
	case ".gitconfig", "gitconfig", ".gitmodules":
		return true
	case "config", "config.worktree":
		dir := filepath.Dir(p)
		if strings.EqualFold(filepath.Base(dir), "git") || isGitDir(dir) {
			return true
		}
		for _, part := range strings.Split(dir, "/") {
			if strings.EqualFold(part, ".git") {
				return true
			}
		}
	}
	return false
}
