package posixremote

// The shell scripts FileIO runs on the machine with `sh -c`. They need
// only POSIX sh, cat, stat, mkdir, chmod, mv, rm and readlink (busybox
// has them all). Paths arrive as arguments, never inside the script
// text.

// Script exit codes. The transports' own failures use others: the docker
// CLI 1 and 125–127, ssh 255.
const (
	CodeNotExist   = 10
	CodeIsDir      = 11
	CodeNotRegular = 12
	CodeTooLarge   = 13
)

// ReadScript $1=path $2=max bytes (-1: no cap): "ok\n" then the content,
// or the size and CodeTooLarge. A FIFO or device is refused before it
// is opened, so nothing blocks on it.
const ReadScript = `p=$1
if [ -d "$p" ]; then exit 11; fi
if [ ! -e "$p" ]; then exit 10; fi
if [ ! -f "$p" ]; then exit 12; fi
if [ "$2" -ge 0 ]; then
	s=$(stat -L -c %s -- "$p") || exit 1
	if [ "$s" -gt "$2" ]; then echo "$s"; exit 13; fi
fi
echo ok
exec cat -- "$p"`

// WriteScript $1=path $2=length $3=unique suffix: stdin to a temporary
// file beside the target (through a symlink, beside its target), checked
// to hold exactly $2 bytes (a cancelled write is cut short and must not
// replace the file), given the old file's mode and owner (0644 for a new
// one), then renamed over the target: readers see the old or the new
// content, never a mix.
const WriteScript = `p=$1
if [ -d "$p" ]; then exit 11; fi
if [ -L "$p" ] && [ -e "$p" ]; then p=$(readlink -f -- "$p") || exit 1; fi
case $p in */*) d=${p%/*} ;; *) d=. ;; esac
[ -n "$d" ] || d=/
if [ ! -d "$d" ]; then exit 10; fi
if [ -e "$p" ] && [ ! -f "$p" ]; then exit 12; fi
t=$d/.${p##*/}.$3.magenta-tmp
cat > "$t" || { rm -f -- "$t"; exit 1; }
s=$(stat -c %s -- "$t") || { rm -f -- "$t"; exit 1; }
if [ "$s" != "$2" ]; then rm -f -- "$t"; echo "short write: $s of $2 bytes" >&2; exit 1; fi
if [ -f "$p" ]; then
	m=$(stat -c %a -- "$p") && chmod "$m" "$t"
	o=$(stat -c %u:%g -- "$p") && chown "$o" "$t" 2>/dev/null
else
	chmod 644 "$t"
fi
mv -f -- "$t" "$p" || { rm -f -- "$t"; exit 1; }`

// StatScript $1=path: "<isdir 0|1> <size> <mtime seconds>".
const StatScript = `p=$1
if [ ! -e "$p" ]; then exit 10; fi
if [ -d "$p" ]; then d=1; else d=0; fi
s=$(stat -L -c '%s %Y' -- "$p") || exit 1
echo "$d $s"`

// ExistsScript $1=path: exit 0 when it exists (a dangling symlink too).
const ExistsScript = `[ -e "$1" ] || [ -L "$1" ] || exit 10`

// MkdirScript $1=path: mkdir -p (an existing directory is fine).
const MkdirScript = `[ -d "$1" ] || mkdir -p -- "$1"`

// ProbeScript $1=cwd (may be empty): prints the cwd (resolved), $HOME,
// whether bash exists, and rg's version line, one per line; exits
// CodeNotExist when the cwd is not a directory.
const ProbeScript = `if [ -n "$1" ]; then cd -- "$1" 2>/dev/null || exit 10; fi
pwd
printf '%s\n' "$HOME"
if command -v bash >/dev/null 2>&1; then echo bash; else echo sh; fi
rg --version 2>/dev/null | { read -r l; echo "$l"; }`

// realPathScript $1=path: the number of trailing components that do not
// exist, on a line, then `readlink -f` of what is left (the deepest
// existing ancestor; "." for a relative path none of whose components
// exists).
const realPathScript = `p=$1
n=0
while [ ! -e "$p" ] && [ ! -L "$p" ]; do
	case $p in
	/) break ;;
	*/*) p=${p%/*}; [ -n "$p" ] || p=/ ;;
	*) p=. ;;
	esac
	n=$((n+1))
done
printf '%s\n' "$n"
exec readlink -f -- "$p"`
