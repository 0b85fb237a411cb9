package gitctl

import (
	"bytes"
	"errors"
	"strings"
)

// MaxConfigSize bounds the git config files read: a larger one is an error.
const MaxConfigSize = 1 << 20

var errConfigSyntax = errors.New("bad config syntax")

// Entry is one variable set in a config file.
type Entry struct {
	Key   string // "section.sub.key", section and key lower-cased
	Value string // after unquoting; "" for a bare boolean
}

// ParseConfig lists the variables set in a git config file, parsed like git's own reader:
// comments after # or ;, "[section]", "[section "sub"]" and "[section.sub]"
// headers (a key may follow on the same line), values with quotes,
// escapes and backslash-newline continuations. Anything git would reject
// is an error, and an error asks: a file git cannot read runs nothing,
// but a file read differently from git could hide a key.
func ParseConfig(data []byte) ([]Entry, error) {
	if len(data) > MaxConfigSize {
		return nil, errors.New("config file too large to check")
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	p := &cfgParser{b: data}
	var entries []Entry
	section := ""
	for !p.eof() {
		c := p.next()
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f':
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			s, err := p.header()
			if err != nil {
				return nil, err
			}
			section = s
		case isAlpha(c):
			if section == "" {
				return nil, errConfigSyntax
			}
			start := p.i - 1
			for !p.eof() && (isAlpha(p.peek()) || isDigit(p.peek()) || p.peek() == '-') {
				p.i++
			}
			key := section + "." + strings.ToLower(string(data[start:p.i]))
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			entries = append(entries, Entry{key, v})
		default:
			return nil, errConfigSyntax
		}
	}
	return entries, nil
}

type cfgParser struct {
	b []byte
	i int
}

func (p *cfgParser) eof() bool  { return p.i >= len(p.b) }
func (p *cfgParser) peek() byte { return p.b[p.i] }
func (p *cfgParser) next() byte { p.i++; return p.b[p.i-1] }

func (p *cfgParser) skipLine() {
	for !p.eof() && p.next() != '\n' {
	}
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// header parses a section header after its '['.
func (p *cfgParser) header() (string, error) {
	var name strings.Builder
	for {
		if p.eof() {
			return "", errConfigSyntax
		}
		c := p.next()
		switch {
		case c == ']':
			if name.Len() == 0 {
				return "", errConfigSyntax
			}
			return strings.ToLower(name.String()), nil
		case c == ' ' || c == '\t':
			for !p.eof() && (p.peek() == ' ' || p.peek() == '\t') {
				p.i++
			}
			if p.eof() || p.next() != '"' || name.Len() == 0 {
				return "", errConfigSyntax
			}
			var sub strings.Builder
			for {
				if p.eof() {
					return "", errConfigSyntax
				}
				c := p.next()
				switch c {
				case '\n':
					return "", errConfigSyntax
				case '\\':
					if p.eof() || p.peek() == '\n' {
						return "", errConfigSyntax
					}
					sub.WriteByte(p.next())
					continue
				case '"':
					if p.eof() || p.next() != ']' {
						return "", errConfigSyntax
					}
					return strings.ToLower(name.String()) + "." + sub.String(), nil
				}
				sub.WriteByte(c)
			}
		case isAlpha(c) || isDigit(c) || c == '-' || c == '.':
			name.WriteByte(c)
		default:
			return "", errConfigSyntax
		}
	}
}

// value parses what follows a key name: nothing (a boolean) or
// "= value", unquoted as git does (escapes \n \t \b \\ \", a backslash
// before a newline continues the line, unquoted spaces at the ends and
// comments dropped).
func (p *cfgParser) value() (string, error) {
	for !p.eof() && (p.peek() == ' ' || p.peek() == '\t') {
		p.i++
	}
	if p.eof() {
		return "", nil
	}
	switch p.next() {
	case '\n':
		return "", nil
	case '\r':
		if p.eof() || p.next() == '\n' {
			return "", nil
		}
		return "", errConfigSyntax
	case '#', ';':
		p.skipLine()
		return "", nil
	case '=':
	default:
		return "", errConfigSyntax
	}
	var v []byte
	quoted := false
	keep := 0 // length of v up to the last byte that is not unquoted space
	for !p.eof() {
		c := p.next()
		switch {
		case c == '\n' || (c == '\r' && !p.eof() && p.peek() == '\n'):
			if quoted {
				return "", errConfigSyntax
			}
			return string(v[:keep]), nil
		case c == '\\':
			if p.eof() {
				return "", errConfigSyntax
			}
			e := p.next()
			switch e {
			case '\n':
				continue
			case 'n':
				e = '\n'
			case 't':
				e = '\t'
			case 'b':
				e = '\b'
			case '\\', '"':
			default:
				return "", errConfigSyntax
			}
			v = append(v, e)
			keep = len(v)
		case c == '"':
			quoted = !quoted
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return string(v[:keep]), nil
		case !quoted && (c == ' ' || c == '\t'):
			if len(v) > 0 {
				v = append(v, c)
			}
		default:
			v = append(v, c)
			keep = len(v)
		}
	}
	if quoted {
		return "", errConfigSyntax
	}
	return string(v[:keep]), nil
}

// execSuffixes end the names of variables whose value is a program git
// may run, or a file that chooses one: gpg.program, diff.<x>.textconv,
// filter.<x>.clean/smudge/process, core.fsmonitor, core.hooksPath,
// core.sshCommand, gpg.ssh.defaultKeyCommand, merge.<x>.driver,
// credential.helper, uploadpack.packObjectsHook…
var execSuffixes = []string{"program", "command", "textconv", "clean", "smudge", "process", "fsmonitor",
	"hookspath", "pager", "editor", "askpass", "gitproxy", "driver", "helper", "hook", "external",
	"difffilter", "uploadpack", "receivepack"}

// ExecKey reports whether a repository's own config setting key could
// make a git command run a program or read another config file.
func ExecKey(key string) bool {
	// core.hooksPath is overridden by the shell (hooks go to /dev/null),
	// and Husky writes it into every repository it manages: asking for it
	// would ask on every git command there.
	if key == "core.hookspath" {
		return false
	}
	section, _, _ := strings.Cut(key, ".")
	if section == "include" || section == "includeif" || section == "pager" || section == "alias" {
		return true
	}
	name := key[strings.LastIndexByte(key, '.')+1:]
	for _, s := range execSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}
