package bashperm

import (
	"fmt"
	"strings"
)

// sedValueFlags take a value; sedSafeFlags take none and neither write
// nor run anything. -i edits in place, -f reads a script from a file
// (unchecked), so both ask, like every flag not listed.
var (
	sedValueFlags = map[string]bool{"-e": true, "--expression": true, "-l": true, "--line-length": true}
	sedSafeFlags  = map[string]bool{"-n": true, "--quiet": true, "--silent": true, "-E": true, "-r": true,
		"--regexp-extended": true, "-s": true, "--separate": true, "-u": true, "--unbuffered": true,
		"-z": true, "--null-data": true, "--posix": true, "--debug": true, "--sandbox": true}
)

// checkSed allows sed scripts made only of commands that print or edit
// the stream: no w/W (write a file), r/R (read another file), e (run a
// command) and no s///w or s///e. Operands after the script are read
// paths.
func checkSed(r *run, argv []field, cwd string) string {
	var scripts, ops []field
	explicit := false
	for i := 1; i < len(argv); i++ {
		w := argv[i].s
		if w == "--" {
			ops = append(ops, argv[i+1:]...)
			break
		}
		if w == "-" || !strings.HasPrefix(w, "-") {
			ops = append(ops, argv[i])
			continue
		}
		name, val, hasEq := strings.Cut(w, "=")
		switch {
		case sedSafeFlags[name] && !hasEq:
		case sedValueFlags[name]:
			if !hasEq {
				if i+1 >= len(argv) {
					return fmt.Sprintf("passes `%s` to `sed` without a value", w)
				}
				i++
				val = argv[i].s
			}
			if name == "-e" || name == "--expression" {
				explicit = true
				scripts = append(scripts, field{s: val, glob: argv[i].glob})
			}
		case !strings.HasPrefix(w, "--"):
			// Joined letters: safe ones, then maybe -e or -l with its value
			// (-ne '1p', -n -e1p, -l80).
			j := 1
			for j < len(w) && sedSafeFlags["-"+w[j:j+1]] {
				j++
			}
			if j == len(w) {
				continue
			}
			letter := w[j : j+1]
			if letter != "e" && letter != "l" {
				return fmt.Sprintf("uses `-%s`, which the rule for `sed` does not allow without asking (only -n, -E, -r, -s, -u, -z, -e and -l are)", letter)
			}
			val, glob := w[j+1:], argv[i].glob
			if val == "" {
				if i+1 >= len(argv) {
					return fmt.Sprintf("passes `%s` to `sed` without a value", w)
				}
				i++
				val, glob = argv[i].s, argv[i].glob
			}
			if letter == "e" {
				explicit = true
				scripts = append(scripts, field{s: val, glob: glob})
			}
		default:
			return fmt.Sprintf("uses `%s`, which the rule for `sed` does not allow without asking (only -n, -E, -r, -s, -u, -z, -e and -l are)", name)
		}
	}
	if !explicit {
		if len(ops) == 0 {
			return "runs `sed` without a script"
		}
		scripts, ops = ops[:1], ops[1:]
	}
	for _, s := range scripts {
		if s.glob {
			return "the script for `sed` comes from an unquoted glob"
		}
		if reason := sedScriptSafe(s.s); reason != "" {
			return reason
		}
	}
	for _, a := range ops {
		if reason := r.checkPath(a.s, cwd, modeRead); reason != "" {
			return reason
		}
	}
	return ""
}

// sedPlain are commands that take no argument and touch no file.
const sedPlain = "pPdDnNgGhHxzF=}"

// sedScriptSafe parses a sed script just far enough to know every command
// letter: addresses (numbers, $, /re/ and \cREc, with ,addr2, ~step or
// +n), then a command. Anything it does not understand asks.
func sedScriptSafe(script string) string {
	p := &sedParser{s: script}
	for {
		p.skip(" \t\n;")
		if p.eof() {
			return ""
		}
		if p.peek() == '#' {
			p.skipLine()
			continue
		}
		if !p.address() {
			return "passes a `sed` script with an address it cannot check"
		}
		if !p.eof() && p.peek() == ',' {
			p.i++
			p.skip(" \t")
			if !p.address() {
				return "passes a `sed` script with an address it cannot check"
			}
		}
		p.skip(" \t")
		for !p.eof() && p.peek() == '!' {
			p.i++
			p.skip(" \t")
		}
		if p.eof() {
			return "passes a `sed` script that ends after an address"
		}
		c := p.next()
		switch {
		case c == '{':
			continue // a block: its commands follow without a separator
		case c == ':' || c == 'b' || c == 't' || c == 'T':
			p.skipLabel() // labels and branches name only a label
		case c == 'a' || c == 'i' || c == 'c':
			if !p.skipText() {
				return "passes a `sed` text command it cannot check"
			}
		case c == 's':
			if !p.delimited(2) {
				return "passes a `sed` s command it cannot check"
			}
			for !p.eof() && strings.IndexByte("gpiImM0123456789", p.peek()) >= 0 {
				p.i++
			}
			if !p.eof() && strings.IndexByte(" \t\n;}", p.peek()) < 0 {
				return fmt.Sprintf("passes a `sed` s command with the flag `%c`, which writes a file or runs a command", p.peek())
			}
		case c == 'y':
			if !p.delimited(2) {
				return "passes a `sed` y command it cannot check"
			}
		case c == 'q' || c == 'Q' || c == 'l' || c == 'L':
			p.skip(" \t")
			for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
				p.i++
			}
		case strings.IndexByte(sedPlain, c) >= 0:
		default:
			return fmt.Sprintf("passes a `sed` script with the command `%c`, which reads or writes files, runs commands or is not known to be safe", c)
		}
		p.skip(" \t")
		if !p.eof() && strings.IndexByte("\n;}", p.peek()) < 0 {
			return "passes a `sed` script it cannot check"
		}
	}
}

type sedParser struct {
	s string
	i int
}

func (p *sedParser) eof() bool  { return p.i >= len(p.s) }
func (p *sedParser) peek() byte { return p.s[p.i] }
func (p *sedParser) next() byte { p.i++; return p.s[p.i-1] }

func (p *sedParser) skip(set string) {
	for !p.eof() && strings.IndexByte(set, p.peek()) >= 0 {
		p.i++
	}
}

func (p *sedParser) skipLine() {
	for !p.eof() && p.peek() != '\n' {
		p.i++
	}
}

// address consumes one optional address; false when it is malformed.
func (p *sedParser) address() bool {
	if p.eof() {
		return true
	}
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.digits()
		if !p.eof() && p.peek() == '~' {
			p.i++
			p.digits()
		}
	case c == '$':
		p.i++
	case c == '+' || c == '~':
		p.i++
		return p.digits()
	case c == '/':
		p.i++
		if !p.until('/', true) {
			return false
		}
		p.regexFlags()
	case c == '\\':
		p.i++
		if p.eof() {
			return false
		}
		d := p.next()
		if !p.until(d, true) {
			return false
		}
		p.regexFlags()
	}
	return true
}

func (p *sedParser) digits() bool {
	start := p.i
	for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
		p.i++
	}
	return p.i > start
}

func (p *sedParser) regexFlags() {
	for !p.eof() && (p.peek() == 'I' || p.peek() == 'M') {
		p.i++
	}
}

// until consumes up to and including the unescaped delimiter d. In a
// regex a bracket expression may hold the delimiter for GNU sed
// (s/[/]/x/); rather than follow every rule about brackets, a bracket
// holding the delimiter, a backslash or a newline makes the script
// uncheckable, so wherever a script is allowed both readings agree.
func (p *sedParser) until(d byte, regex bool) bool {
	for !p.eof() {
		c := p.next()
		switch {
		case c == '\\':
			if p.eof() {
				return false
			}
			p.i++
		case c == d:
			return true
		case c == '\n':
			return false
		case c == '[' && regex:
			if !p.bracket(d) {
				return false
			}
		}
	}
	return false
}

// bracket consumes a bracket expression after its '['.
func (p *sedParser) bracket(d byte) bool {
	if !p.eof() && p.peek() == '^' {
		p.i++
	}
	if !p.eof() && p.peek() == ']' {
		p.i++
	}
	for !p.eof() {
		c := p.next()
		switch {
		case c == d || c == '\\' || c == '\n':
			return false
		case c == ']':
			return true
		case c == '[' && !p.eof() && strings.IndexByte(":.=", p.peek()) >= 0:
			end := string(p.peek()) + "]"
			j := strings.Index(p.s[p.i+1:], end)
			if j < 0 || strings.IndexByte(p.s[p.i+1:p.i+1+j], d) >= 0 {
				return false
			}
			p.i += 1 + j + len(end)
		}
	}
	return false
}

// skipLabel consumes a label up to a newline or ';'.
func (p *sedParser) skipLabel() {
	for !p.eof() && p.peek() != '\n' && p.peek() != ';' {
		p.i++
	}
}

// skipText consumes the text of a, i or c: the rest of the line, where a
// backslash escapes the next character, newline included.
func (p *sedParser) skipText() bool {
	for !p.eof() && p.peek() != '\n' {
		if p.next() == '\\' {
			if p.eof() {
				return false
			}
			p.i++
		}
	}
	return true
}

// delimited consumes a delimiter and n delimited parts (s/a/b/, y/a/b/).
func (p *sedParser) delimited(n int) bool {
	if p.eof() {
		return false
	}
	d := p.next()
	if d == '\\' || d == '\n' {
		return false
	}
	for i := range n {
		if !p.until(d, i == 0) {
			return false
		}
	}
	return true
}
