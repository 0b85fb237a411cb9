package sshenv

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// maxIncludeDepth bounds nested Include directives, as ssh does.
const maxIncludeDepth = 16

// Hosts lists the concrete host aliases of the ssh_config file at
// sshConfigPath (for completion): the names of its Host lines, in
// order, without duplicates, leaving out patterns (names with *, ? or a
// leading !). Include directives are followed, their relative paths
// taken from ~/.ssh as ssh takes them in a user's config, globs
// expanded; an include that cannot be read is passed over. Match blocks
// name no host. A missing sshConfigPath is an error (os.ErrNotExist).
func Hosts(sshConfigPath string) ([]string, error) {
	f, err := os.Open(sshConfigPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := hostLister{seen: map[string]bool{}}
	if home, err := os.UserHomeDir(); err == nil {
		h.sshDir = filepath.Join(home, ".ssh")
	}
	if err := h.read(f, 0); err != nil {
		return nil, err
	}
	return h.hosts, nil
}

type hostLister struct {
	sshDir string // where relative includes are; "" when there is no home
	hosts  []string
	seen   map[string]bool
}

func (h *hostLister) read(f *os.File, depth int) error {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		key, args := configLine(sc.Text())
		switch key {
		case "host":
			for _, a := range args {
				if a == "" || strings.ContainsAny(a, "*?") || strings.HasPrefix(a, "!") || h.seen[a] {
					continue
				}
				h.seen[a] = true
				h.hosts = append(h.hosts, a)
			}
		case "include":
			if depth < maxIncludeDepth {
				for _, a := range args {
					h.include(a, depth+1)
				}
			}
		}
	}
	return sc.Err()
}

// include reads the files pattern names, if it can.
func (h *hostLister) include(pattern string, depth int) {
	if rest, ok := strings.CutPrefix(pattern, "~/"); ok && h.sshDir != "" {
		pattern = filepath.Join(filepath.Dir(h.sshDir), rest)
	} else if !filepath.IsAbs(pattern) {
		if h.sshDir == "" {
			return
		}
		pattern = filepath.Join(h.sshDir, pattern)
	}
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		_ = h.read(f, depth) // unreadable: as far as it went
		f.Close()
	}
}

// configLine splits an ssh_config line into its lowercased keyword and
// its arguments ("Keyword arg…" or "Keyword=arg…"; double quotes group
// an argument); a blank or comment line gives "".
func configLine(line string) (string, []string) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return "", nil
	}
	i := strings.IndexAny(line, " \t=")
	if i < 0 {
		return strings.ToLower(line), nil
	}
	key := strings.ToLower(line[:i])
	rest := strings.TrimLeft(line[i:], " \t")
	rest = strings.TrimLeft(strings.TrimPrefix(rest, "="), " \t")
	var args []string
	for rest != "" {
		var a string
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				a, rest = rest[1:], ""
			} else {
				a, rest = rest[1:1+end], rest[2+end:]
			}
		} else if j := strings.IndexAny(rest, " \t"); j >= 0 {
			a, rest = rest[:j], rest[j:]
		} else {
			a, rest = rest, ""
		}
		if strings.HasPrefix(a, "#") {
			break
		}
		args = append(args, a)
		rest = strings.TrimLeft(rest, " \t")
	}
	return key, args
}
