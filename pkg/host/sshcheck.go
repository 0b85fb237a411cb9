package host

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"

	"mvdan.cc/sh/v3/syntax"

	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv"
	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// The permission checker (bashperm) proves a command read-only by
// looking at the local disk: it follows symlinks, walks the trees a
// recursive reader would open for secrets, and reads a repository's
// configs and history before allowing git. On an ssh thread the paths
// are the remote machine's, which the local disk does not have: every
// link looks like a plain name, every tree is empty, every repository
// absent. So a command the checker allows runs unasked there only when
// what it could not see cannot matter (remoteChecks.allowed):
//
//   - no git: a repository's filters, drivers and history are not
//     checked remotely, so a command naming git asks;
//   - no word computed when it runs ($x, $(…), $'…'), which the checker
//     would expand against nothing;
//   - a remote workspace without a symbolic link that leads out of it,
//     to a secret, or through "..", and without a secret (by name, as
//     secrets.In) — listed just before, one `find` over a channel of the
//     connection, bounded by remoteCheckTimeout and remoteCheckEntries;
//     a listing that fails or does not end in time asks.
//
// A command that asks for any of these reasons says which.

// remoteCheckTimeout bounds the listing of the remote workspace before a
// command the checker allows; remoteCheckEntries the entries listed (a
// larger workspace asks).
const (
	remoteCheckTimeout = 5 * time.Second
	remoteCheckEntries = 50000
)

// remoteListScript lists the workspace @WS@: the physical workspace, then
// "L<path>\t<link target>" per symbolic link and "N<path>" per other
// entry, .git directories pruned, at most @LIMIT@ lines. GNU find prints
// in one pass; elsewhere (busybox) a loop reads each link. It is sent
// on stdin to `sh -s` (the only words the remote login shell parses),
// with @WS@ spelled in sh's single quotes.
const remoteListScript = `ws=@WS@
cd -- "$ws" 2>/dev/null || exit 3
pwd -P
if find . -maxdepth 0 -printf '' >/dev/null 2>&1; then
  find . -name .git -prune -o -type l -printf 'L%p\t%l\n' -o -printf 'N%p\n' 2>/dev/null
else
  find . -name .git -prune -o -print 2>/dev/null | while IFS= read -r p; do
    if [ -h "$p" ]; then printf 'L%s\t%s\n' "$p" "$(readlink -- "$p")"; else printf 'N%s\n' "$p"; fi
  done
fi | head -n @LIMIT@
`

// remoteChecks is what an ssh thread checks, beyond the checker, before
// a command the checker allows runs unasked. Safe for concurrent use.
type remoteChecks struct {
	ctx       context.Context // the host's: ends the listing when the host closes
	conn      *sshenv.Conn
	workspace string
}

// allowed returns "" when command, which the checker allowed, may run
// unasked on the remote machine, else why it asks.
func (r *remoteChecks) allowed(command string) string {
	if reason := remoteWordsReason(command); reason != "" {
		return reason
	}
	ctx, cancel := context.WithTimeout(r.ctx, remoteCheckTimeout)
	defer cancel()
	return r.workspaceReason(ctx)
}

// workspaceReason lists the remote workspace and says why it makes
// commands ask ("" when nothing does).
func (r *remoteChecks) workspaceReason(ctx context.Context) string {
	script := strings.NewReplacer("@WS@", shSingleQuoted(r.workspace), "@LIMIT@", strconv.Itoa(remoteCheckEntries+1)).Replace(remoteListScript)
	out, code, stderr, err := r.conn.Run(ctx, script)
	if ctx.Err() != nil {
		return fmt.Sprintf("the remote workspace could not be checked for links and secrets within %s", remoteCheckTimeout)
	}
	if err == nil && code != 0 {
		err = fmt.Errorf("exit status %d", code)
	}
	if err != nil {
		return fmt.Sprintf("the remote workspace could not be checked for links and secrets (%v: %s)", err, lastLine(stderr))
	}
	return listingReason(r.workspace, out)
}

// listingReason judges remoteListScript's output for workspace.
func listingReason(workspace string, listing []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	if !sc.Scan() {
		return "the remote workspace could not be listed"
	}
	ws := sc.Text() // physical
	if !path.IsAbs(ws) {
		return "the remote workspace could not be listed"
	}
	n := 0
	for sc.Scan() {
		if n++; n > remoteCheckEntries {
			return fmt.Sprintf("the remote workspace holds more than %d entries, too many to check for links and secrets", remoteCheckEntries)
		}
		line := sc.Text()
		kind, rest := byte(0), ""
		if line != "" {
			kind, rest = line[0], line[1:]
		}
		switch kind {
		case 'N':
			if name := secrets.In(strings.Split(strings.TrimPrefix(rest, "./"), "/")); name != "" {
				return fmt.Sprintf("the remote workspace holds a secret (%s), which a command could read there unseen by the checker", strings.TrimPrefix(rest, "./"))
			}
		case 'L':
			link, target, ok := strings.Cut(rest, "\t")
			if !ok {
				return "the remote workspace could not be listed"
			}
			if reason := linkReason(ws, strings.TrimPrefix(link, "./"), target); reason != "" {
				return reason
			}
		default:
			// A name with a line break in it: what follows cannot be
			// told apart from an entry.
			return "the remote workspace has a name with a line break in it, which cannot be checked"
		}
	}
	if sc.Err() != nil {
		return "the remote workspace could not be listed: " + sc.Err().Error()
	}
	return ""
}

// linkReason judges one link of the remote workspace ws (physical), at
// rel (a physical path: find does not enter links), to target: it must
// stay inside ws and not reach a secret. A ".." after another name in
// the target is not judged lexically (that name may be a link itself):
// it asks.
func linkReason(ws, rel, target string) string {
	climbs := false
	named := false
	for _, c := range strings.Split(target, "/") {
		switch c {
		case "", ".":
		case "..":
			climbs = climbs || named
		default:
			named = true
		}
	}
	if climbs {
		return fmt.Sprintf("the remote workspace has a symbolic link (%s → %s) the checker cannot follow there", rel, target)
	}
	dest := target
	if !path.IsAbs(dest) {
		dest = path.Join(ws, path.Dir(rel), target)
	}
	dest = path.Clean(dest)
	if dest != ws && !strings.HasPrefix(dest, strings.TrimSuffix(ws, "/")+"/") {
		return fmt.Sprintf("the remote workspace has a symbolic link leading out of it (%s → %s), which the checker cannot follow there", rel, target)
	}
	if name := secrets.In(strings.Split(strings.TrimPrefix(dest, ws+"/"), "/")); name != "" {
		return fmt.Sprintf("the remote workspace has a symbolic link to a secret (%s → %s)", rel, target)
	}
	return ""
}

// remoteWordsReason says why command asks on a remote machine whatever
// its files: it names git, or has a word computed when it runs. ""
// otherwise. A command that does not parse was refused by the checker
// already; it asks here too.
func remoteWordsReason(command string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return "the command does not parse"
	}
	reason := ""
	syntax.Walk(f, func(node syntax.Node) bool {
		if reason != "" {
			return false
		}
		w, ok := node.(*syntax.Word)
		if !ok {
			return true
		}
		text, static := staticWord(w)
		if !static {
			reason = "a word of it is computed when it runs, which the checker cannot judge against the remote machine's files"
			return false
		}
		if namesGit(text) {
			reason = "it runs git, whose repository configuration and history are not checked on a remote machine"
			return false
		}
		return true
	})
	return reason
}

// staticWord is w's text with its quotes and backslashes removed, and
// whether it is static (no expansion of any kind).
func staticWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(strings.ReplaceAll(p.Value, `\`, ""))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(strings.ReplaceAll(lit.Value, `\`, ""))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// namesGit reports whether s holds git as a word of its own (a program
// name, a path ending in /git, or inside a string a shell will run).
func namesGit(s string) bool {
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.' || r == '/')
	}) {
		if tok == "git" || strings.HasSuffix(tok, "/git") {
			return true
		}
	}
	return false
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// shSingleQuoted is s as one word of POSIX sh: in single quotes, a quote
// spelled '\”.
func shSingleQuoted(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
