package sshenv

import "strings"

// quote makes s one word for the remote user's login shell, which
// parses the string ssh sends (sshd runs `$SHELL -c <string>`): nothing
// in s is expanded or split. Runs of ordinary characters go in single
// quotes; ' and \ go outside them, backslash-escaped. That spelling
// means the same to POSIX shells (sh, bash, dash, zsh, ksh) and to fish,
// whose single quotes treat \' and \\ as escapes where POSIX ones do
// not: the usual close-escape-reopen spelling of a quote inside single
// quotes would break on a backslash under fish.
func quote(s string) string {
	if s == "" {
		return "''"
	}
	var b strings.Builder
	open := false
	for _, r := range s {
		if r == '\'' || r == '\\' {
			if open {
				b.WriteByte('\'')
				open = false
			}
			b.WriteByte('\\')
			b.WriteRune(r)
			continue
		}
		if !open {
			b.WriteByte('\'')
			open = true
		}
		b.WriteRune(r)
	}
	if open {
		b.WriteByte('\'')
	}
	return b.String()
}

// remoteScript is the remote command that runs script with POSIX sh,
// args as its positional parameters ($1…): the login shell only starts
// sh, so the script's syntax does not depend on it.
func remoteScript(script string, args ...string) string {
	var b strings.Builder
	b.WriteString("exec sh -c ")
	b.WriteString(quote(script))
	b.WriteString(" sh")
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(quote(a))
	}
	return b.String()
}
