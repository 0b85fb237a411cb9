package project

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// Visible is s as the trust question shows it: bare when it is made of
// plain characters only, otherwise double-quoted with newlines, control
// and format characters (bidi overrides, zero-width spaces), other
// Unicode spaces and invalid bytes escaped (\n, \x1b, \u202e), and runs
// of more than 3 spaces written as ␠×N — so nothing the program gets is
// hidden, drawn on another line, or pushed out of view.
func Visible(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		if s[i] == ' ' {
			n := 0
			for i+n < len(s) && s[i+n] == ' ' {
				n++
			}
			if n > 3 {
				fmt.Fprintf(&b, "␠×%d", n)
			} else {
				b.WriteString(s[i : i+n])
			}
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == '␠' || r > 0x7f && (!unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r)):
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// plain: non-empty and only letters, digits and _-./:@%+=,~^ (ASCII).
func plain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("_-./:@%+=,~^", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// Masked is a value as written, for the question: ${VAR} references stay
// (they name what is sent), literal words that look secret — every word
// of a value whose name says secret (TOKEN, KEY, PASSWORD, Authorization,
// …) but an auth scheme, or any token-shaped word — keep their first 4
// characters; credentials in a URL are redacted.
func Masked(name, written string) string {
	secretName := secretish(name)
	var b strings.Builder
	s := written
	for {
		i := strings.Index(s, "${")
		j := -1
		if i >= 0 {
			j = strings.IndexByte(s[i:], '}')
		}
		if i < 0 || j < 0 {
			b.WriteString(maskLiteral(s, secretName))
			break
		}
		b.WriteString(maskLiteral(s[:i], secretName))
		b.WriteString(s[i : i+j+1])
		s = s[i+j+1:]
	}
	return b.String()
}

// secretWords in a name say its value is secret; secretParts only as a
// whole part of it (PAT is not PATH).
var (
	secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "AUTH", "CREDENTIAL", "COOKIE",
		"SESSION", "PRIVATE", "SIGNATURE"}
	secretParts = map[string]bool{"KEY": true, "PASS": true, "PAT": true, "PWD": true, "DSN": true, "SIG": true}
)

func secretish(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(u, w) {
			return true
		}
	}
	parts := strings.FieldsFunc(u, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, p := range parts {
		if secretParts[p] && !(p == "PWD" && len(parts) == 1) && !(p == "PWD" && i == 0 && len(parts) == 2 && parts[0] == "OLD") {
			return true
		}
	}
	return false
}

var (
	tokenPrefixes = []string{"sk-", "sk_", "pk_", "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",
		"xoxb-", "xoxp-", "xapp-", "AKIA", "ASIA", "AIza", "eyJ", "ya29.", "npm_", "pypi-", "hf_", "dop_v1_"}
	authSchemes = map[string]bool{"bearer": true, "basic": true, "token": true, "digest": true, "apikey": true, "api-key": true}
	secretQuery = regexp.MustCompile(`(?i)([?&][^=&#]*(?:token|key|secret|password|passwd|auth|sig|signature|session)[^=&#]*=)([^&#]+)`)
)

// tokenLike: a word that looks like a credential whatever its name.
func tokenLike(w string) bool {
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(w, p) && len(w) > len(p)+6 {
			return true
		}
	}
	if len(w) < 24 || strings.ContainsAny(w, "/.") && !strings.ContainsAny(w, "+=") {
		return false
	}
	letters, digits := false, false
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
			letters = true
		case unicode.IsDigit(r):
			digits = true
		}
	}
	return letters && digits
}

func maskLiteral(s string, secretName bool) string {
	if s == "" {
		return s
	}
	// Word by word, keeping the separators as they are.
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i == 0 {
			_, size := utf8.DecodeRuneInString(s)
			b.WriteString(s[:size])
			s = s[size:]
			continue
		}
		w := s
		if i > 0 {
			w = s[:i]
		}
		s = s[len(w):]
		if strings.Contains(w, "://") { // a URL: its credentials and secret parameters
			if secrets.URLHasCredentials(w) {
				w = secrets.RedactURL(w)
			}
			w = secretQuery.ReplaceAllStringFunc(w, func(m string) string {
				sub := secretQuery.FindStringSubmatch(m)
				return sub[1] + mask(sub[2])
			})
		} else if (secretName && !authSchemes[strings.ToLower(w)] && len(w) > 4) || tokenLike(w) {
			w = mask(w)
		}
		b.WriteString(w)
	}
	return b.String()
}

// mask keeps the first 4 characters of a secret and says how long it is.
func mask(w string) string {
	n := utf8.RuneCountInString(w)
	if n <= 4 {
		return "****"
	}
	r := []rune(w)
	return fmt.Sprintf("%s…(%d chars)", string(r[:4]), n)
}

// Describe is the server as the trust question shows it: its kind and
// command with every argument (Visible) or URL, then one indented line
// per environment variable or header, values Masked — all as written in
// the file, ${VAR} references by name.
func (s Server) Describe() []string {
	w := s.written
	var lines []string
	switch s.Kind {
	case "stdio":
		words := []string{Visible(w.command)}
		for _, a := range w.args {
			words = append(words, Visible(a))
		}
		lines = append(lines, fmt.Sprintf("%s (stdio): %s", s.Name, strings.Join(words, " ")))
		for _, k := range sortedKeys(w.env) {
			lines = append(lines, fmt.Sprintf("  env %s=%s", Visible(k), Visible(Masked(k, w.env[k]))))
		}
	default:
		lines = append(lines, fmt.Sprintf("%s (%s): %s", s.Name, s.Kind, Visible(Masked("", w.url))))
		for _, k := range sortedKeys(w.headers) {
			lines = append(lines, fmt.Sprintf("  header %s: %s", Visible(k), Visible(Masked(k, w.headers[k]))))
		}
	}
	return lines
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// describeRuns is the line saying what a stdio server runs, as
// fingerprinted: the executable, then the workspace files.
func describeRuns(rs []Ran) string {
	if len(rs) == 0 {
		return ""
	}
	parts := make([]string, 0, len(rs))
	for _, x := range rs {
		p := Visible(x.Path)
		switch x.State {
		case stateMissing:
			p += " (missing)"
		case "not found":
			p += " (not found)"
		}
		parts = append(parts, p)
	}
	return "  runs " + strings.Join(parts, ", ")
}
