package secrets

import "strings"

// GitConfigCredential reports whether a git configuration variable holds
// a credential that printing the configuration would show. key is git's
// canonical name, "section.subsection.name" with section and name lower
// case and the subsection as written (git config --list prints it so);
// value is the value after unquoting.
//
// A credential is:
//   - a non-empty value of a password-like key: one whose name ends in
//     pass, passwd, password, passphrase, token, secret or apikey
//     (sendemail.smtpPass, imap.pass);
//   - a non-empty http.extraHeader or http.<url>.extraHeader, which
//     carries Authorization headers;
//   - an inline credential helper ("!f() { echo password=…; }; f");
//   - a URL with credentials (URLHasCredentials) as the value of any key
//     (remote.<name>.url and pushurl, submodule.<name>.url, http.proxy,
//     remote.<name>.proxy, lfs.url…) or as its subsection
//     (url."https://user:token@host/".insteadOf, credential.<url>.*,
//     http.<url>.*).
func GitConfigCredential(key, value string) bool {
	section, rest, _ := strings.Cut(key, ".")
	name := strings.ToLower(key[strings.LastIndexByte(key, '.')+1:])
	if i := strings.LastIndexByte(rest, '.'); i >= 0 && URLHasCredentials(rest[:i]) {
		return true
	}
	if strings.TrimSpace(value) == "" {
		return false
	}
	for _, s := range []string{"pass", "passwd", "password", "passphrase", "token", "secret", "apikey", "api-key"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	switch {
	case name == "extraheader":
		return true
	case strings.EqualFold(section, "credential") && name == "helper" &&
		strings.HasPrefix(strings.TrimSpace(value), "!") && strings.Contains(strings.ToLower(value), "password="):
		return true
	}
	return URLHasCredentials(value)
}

// URLHasCredentials reports whether a URL as git takes it carries a
// secret in its userinfo: a password (https://user:pass@host,
// socks5://u:p@proxy, user:pass@proxy:3128 as http.proxy allows), or any
// userinfo of an http, https, ftp or ftps URL, where a lone user name is
// how tokens are passed (https://ghp_TOKEN@github.com). A user name for
// ssh (ssh://git@host/x, git@host:x) is not a secret.
func URLHasCredentials(value string) bool {
	_, user, pass, hasPass, web := userinfo(value)
	if hasPass && pass != "" {
		return true
	}
	return web && (user != "" || hasPass)
}

// RedactURL returns value with the secret part of its userinfo replaced
// by "***": the password (https://user:***@host), or for a web URL
// without one the user name, which is then the token
// (https://***@github.com). A user name that looks like a token is
// replaced too (https://***:***@github.com for ghp_…:x-oauth-basic). A
// value without credentials is returned unchanged.
func RedactURL(value string) string {
	start, user, pass, hasPass, web := userinfo(value)
	if start < 0 || !URLHasCredentials(value) {
		return value
	}
	end := start + len(user)
	if hasPass {
		end += 1 + len(pass)
	}
	redacted := "***"
	if hasPass {
		shown := user
		if looksLikeToken(user) || web && pass == "" {
			shown = "***"
		}
		redacted = shown + ":***"
		if pass == "" {
			redacted = shown + ":"
		}
	}
	return value[:start] + redacted + value[end:]
}

// userinfo finds the userinfo of a URL (scheme://userinfo@host/…) or of
// a scheme-less address (userinfo@host:…, as proxies and scp-like
// remotes are written): start is its offset in value (-1 when there is
// none), split at the first colon into user and pass. Like git, the
// authority ends at the first slash; the last "@" before it ends the
// userinfo (a password may hold an unescaped "@"). web: the scheme is
// http, https, ftp or ftps.
func userinfo(value string) (start int, user, pass string, hasPass, web bool) {
	auth := 0
	if i := strings.Index(value, "://"); i > 0 && validScheme(value[:i]) {
		auth = i + 3
		switch strings.ToLower(value[:i]) {
		case "http", "https", "ftp", "ftps":
			web = true
		}
	}
	end := len(value)
	if j := strings.IndexByte(value[auth:], '/'); j >= 0 {
		end = auth + j
	}
	at := strings.LastIndexByte(value[auth:end], '@')
	if at < 0 {
		return -1, "", "", false, web
	}
	info := value[auth : auth+at]
	if auth == 0 && strings.ContainsAny(info, " \t") {
		return -1, "", "", false, web // prose ("Name <a@b>"), not an address
	}
	user, pass, hasPass = strings.Cut(info, ":")
	return auth, user, pass, hasPass, web
}

func validScheme(s string) bool {
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// looksLikeToken: a user name that is a token rather than a login (GitHub
// and GitLab tokens used as the user name, with a dummy password).
func looksLikeToken(user string) bool {
	l := strings.ToLower(user)
	for _, p := range []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return len(user) >= 32
}
