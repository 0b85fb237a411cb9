// Package ripgrep implements capabilities.Searcher with ripgrep (rg), and
// finds or installs the rg it runs.
//
// # Finding rg
//
// Locator.Find tries, in order: the path configured in the user's options
// (when set it is the only candidate: an unusable path is an error naming
// it, never a silent fallback), rg on PATH, a managed copy in
// <data dir>/magenta/ripgrep/<version>/rg, and, only when downloads are
// enabled, a download of the pinned release into that place. With none of
// these the error says how to fix it: install ripgrep, set the path
// option, or enable downloads. Locator.Install downloads unconditionally.
//
// # Download security
//
// The pinned release (Pinned, linux/amd64 only) is an https URL with its
// sha256. The archive is downloaded with a timeout and a size cap into
// memory, and its sha256 is compared BEFORE anything of it is parsed; a
// mismatch installs nothing and names both hashes. The whole tar.gz is
// then read (so truncation and a bad gzip checksum are caught); an entry
// with an absolute or ".." name rejects the archive, and only the member
// that is rg is used, as a regular file under a size cap. It is written to
// a temporary file beside its destination, made 0755, fsynced and renamed
// into place, so a concurrent install or a crash never leaves a partial
// binary at the final path; the last rename wins.
//
// # Running rg
//
// The argv is
//
//	rg --json --no-config --no-require-git --glob !.git [--ignore-case] \
//	  [--fixed-strings] [--context N] [--glob INCLUDE] \
//	  --iglob !SECRET... -e PATTERN -- PATH
//
// because:
//
//   - files that may hold secrets (secrets.Globs) are never opened; the
//     exclusions come last because a later rg glob overrides an earlier
//     one, results are checked again with secrets.InPath, and a second
//     `rg --files` pass counts the secret files left out
//     (SearchResult.SecretsSkipped) without reading them;
//   - the pattern always follows -e and the path follows --, so a pattern
//     such as "--pre=prog" is searched for, never read as a flag;
//   - --no-config, and RIPGREP_CONFIG_PATH removed from the environment,
//     so a config file cannot add flags (--pre runs a program per file);
//   - --no-require-git makes .gitignore count outside git repositories
//     too; hidden and ignored files are skipped (ripgrep's defaults), and
//     .git itself is excluded explicitly;
//   - the absolute path is passed and rg runs in that directory (the
//     file's directory for a file), so results are relative to the
//     requested directory after removing its prefix, and a glob with a
//     slash in INCLUDE is matched from the searched directory. A file
//     search reports the file's absolute path.
//
// rg runs in its own process group with stdin from /dev/null; the group is
// SIGKILLed when the search's timeout (the request's, else
// Options.DefaultTimeout, else 30s) passes, when the caller's context
// ends, or as soon as the searcher has MaxMatches matches and sees
// another one. Exit status 1 is "no matches", not an error; with status 2
// rg's stderr lines go into Errors (at most MaxErrors) and the matches
// found are kept; a fatal error such as an invalid regex, which rg reports
// before searching, becomes one multi-line entry. The first search runs
// `rg --version` once to fill SearchResult.Searcher ("rg 14.1.1 (PATH:
// /usr/bin/rg)").
//
// # Decoding
//
// `rg --json` prints one record per line: begin, match, context, end for
// each file with matches, then summary. Lines are read with a bufio.Reader
// that joins lines longer than its buffer up to MaxRecordBytes (a longer
// record is skipped with an entry in Errors). A path or line is either
// "text" or, when it is not valid UTF-8, base64 "bytes", which is decoded
// and has invalid sequences replaced by U+FFFD; the line terminator is
// removed, NUL becomes U+FFFD, and a line over MaxLineBytes loses its
// middle. A match is counted per matching line. Context lines before a
// match are held until that match is kept; once MaxMatches matches are
// kept only the after-context of the last one is still decoded, records
// are classified by their first bytes without JSON decoding, and the next
// match record sets Truncated and stops rg. Truncated is therefore exact:
// it is set only when a match beyond the cap exists.
package ripgrep
