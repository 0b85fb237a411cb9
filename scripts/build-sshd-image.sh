#!/usr/bin/env bash
# build-sshd-image.sh [WORKDIR] [TAG]
#
# Build a Docker image with a real OpenSSH server FROM NOTHING (no registry,
# no base image, nothing downloaded): the root filesystem is assembled from
# this machine's own installed binaries (sshd, bash, coreutils, grep, sed,
# procps, util-linux's setsid, rg when present) and the shared libraries
# ldd says they need, plus a minimal /etc, then loaded with `docker import`.
# The SSH environment's tests (pkg/capabilities/sshenv) run against it.
#
#   WORKDIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/magenta-sshd-image)
#     rootfs/       the root filesystem
#     rootfs.tar    what is imported (uid/gid 0)
#   TAG (default localtest/sshd:latest)
#
# Needs on this machine: openssh-server (sshd, ssh-keygen), coreutils, grep,
# sed, procps, util-linux, docker. On Debian:
#   apt-get install -y openssh-server openssh-client
#
# The image:
#   - user dev (uid 1000, home /home/dev, shell /bin/bash) and root;
#   - sshd on port 22: public keys only (no passwords, no keyboard-interactive,
#     UsePAM no), keys read from /etc/ssh/authorized_keys/%u;
#   - one ed25519 host key generated at build (every container of one build
#     has the same key; the tests read its public half with docker exec);
#   - its CMD writes $AUTHORIZED_KEYS (if set) to /etc/ssh/authorized_keys/dev
#     and runs `sshd -D -e` as PID 1 (sshd reaps the orphans re-parented to it):
#       docker run -d -p 127.0.0.1::22 -e AUTHORIZED_KEYS="$(cat id.pub)" localtest/sshd
#
# Idempotent and fast (a couple of seconds): when the image exists and was
# built from the same inputs (the binaries' list, this script), nothing is
# done; FORCE=1 rebuilds.
set -euo pipefail

WORK=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/magenta-sshd-image}
TAG=${2:-localtest/sshd:latest}
DOCKER=${DOCKER:-docker}

log() { printf '[build-sshd-image] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

SSHD=$(command -v sshd || true)
[ -n "$SSHD" ] || SSHD=/usr/sbin/sshd
[ -x "$SSHD" ] || die "no sshd on this machine: apt-get install -y openssh-server openssh-client"
command -v ssh-keygen >/dev/null || die "no ssh-keygen: apt-get install -y openssh-client"
command -v "$DOCKER" >/dev/null || die "no docker CLI"
"$DOCKER" info >/dev/null 2>&1 || die "the Docker daemon does not answer"

# What the image holds. Required: sshd's session needs bash; FileIO's scripts
# (package posixremote) need sh, cat, stat, mkdir, chmod, chown, mv, rm,
# readlink, grep; the shell's sweep needs grep, sleep and /proc; the tests
# (package remotetest) use setsid, stty, mkfifo, ln and find; sha256sum lets
# an ssh environment check the remote agent it uploaded before it runs it
# (without it the agent is uploaded again each time). The rest serves a
# human poking around. Optional ones are skipped when this machine lacks
# them.
REQUIRED="bash sh cat stat mkdir chmod chown mv rm readlink grep sleep env setsid stty mkfifo ln find"
OPTIONAL="ls cp head tail tr wc touch sed xargs timeout id ps kill true false
dirname basename sort uname date seq rg tee pwd realpath nproc sha256sum"

bins=()
for b in $REQUIRED; do
  p=$(type -P "$b" || true)
  [ -n "$p" ] || die "$b is missing on this machine"
  bins+=("$p")
done
for b in $OPTIONAL; do
  p=$(type -P "$b" || true)
  [ -n "$p" ] && bins+=("$p")
done
bins+=("$SSHD")

# The stamp: the inputs' identities. Same stamp and the image exists: done.
stamp=$( { for p in "${bins[@]}"; do ls -lL "$p"; done; cat "$0"; } | sha256sum | cut -c1-16)
if [ "${FORCE:-0}" != 1 ] && [ "$("$DOCKER" image inspect --format '{{index .Config.Labels "magenta.stamp"}}' "$TAG" 2>/dev/null || true)" = "$stamp" ]; then
  log "image $TAG is up to date ($stamp)"
  exit 0
fi

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd -P)
R=$WORK/rootfs
rm -rf "$R"
# A merged-/usr layout, like the machine the binaries come from: /bin, /sbin
# and /lib* are links into /usr, so a library ldd names as /lib/... lands in
# /usr/lib/... and is found under either name.
mkdir -p "$R"/usr/{bin,sbin,lib,lib64} "$R"/{etc/ssh/authorized_keys,home/dev,root,run/sshd,tmp,var/tmp,var/empty,dev,proc,sys}
ln -s usr/bin "$R/bin"; ln -s usr/sbin "$R/sbin"; ln -s usr/lib "$R/lib"; ln -s usr/lib64 "$R/lib64"

# copy_file SRC: SRC (symlinks followed) at the same path in the rootfs.
copy_file() {
  local src=$1 dst=$R$1
  [ -e "$dst" ] && return 0
  mkdir -p "$(dirname "$dst")"
  cp -L "$src" "$dst"
}
declare -A libs=()
for p in "${bins[@]}"; do
  copy_file "$p"
  # ldd's lines: "libx.so => /path (0x...)" and "/lib64/ld-linux... (0x...)".
  while read -r lib; do libs[$lib]=1; done < <(ldd "$p" 2>/dev/null | awk '
    $2 == "=>" && $3 ~ /^\// { print $3 }
    $1 ~ /^\// { print $1 }')
done
for lib in "${!libs[@]}"; do copy_file "$lib"; done
# sh is dash on Debian; keep the name the scripts use.
[ -e "$R/usr/bin/sh" ] || ln -s bash "$R/usr/bin/sh"

cat > "$R/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/bash
dev:x:1000:1000:dev:/home/dev:/bin/bash
sshd:x:100:65534:sshd privilege separation:/run/sshd:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat > "$R/etc/group" <<'EOF'
root:x:0:
tty:x:5:
dev:x:1000:
nogroup:x:65534:
EOF
# "*": no password can match, yet the account is not locked ("!" would
# refuse public keys too when UsePAM is off).
printf 'root:*:19000:0:99999:7:::\ndev:*:19000:0:99999:7:::\nsshd:*:19000:0:99999:7:::\n' > "$R/etc/shadow"
chmod 0640 "$R/etc/shadow"
printf '/bin/sh\n/bin/bash\n/usr/bin/bash\n' > "$R/etc/shells"
printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n' > "$R/etc/nsswitch.conf"
printf '127.0.0.1\tlocalhost\n' > "$R/etc/hosts"

cat > "$R/etc/ssh/sshd_config" <<'EOF'
# localtest/sshd: public keys only, nothing interactive.
Port 22
HostKey /etc/ssh/ssh_host_ed25519_key
PubkeyAuthentication yes
AuthorizedKeysFile /etc/ssh/authorized_keys/%u
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitEmptyPasswords no
UsePAM no
PermitRootLogin prohibit-password
PrintMotd no
PrintLastLog no
UseDNS no
# The tests start many sessions at once on one master connection.
MaxSessions 64
MaxStartups 64:30:128
# Enough for a test's temp paths in the environment: none.
AcceptEnv none
LogLevel INFO
EOF
ssh-keygen -q -t ed25519 -N '' -C localtest-sshd -f "$R/etc/ssh/ssh_host_ed25519_key"
chmod 0600 "$R/etc/ssh/ssh_host_ed25519_key"

# PID 1: install the key the test passes, then sshd in the foreground,
# logging to stderr (docker logs).
cat > "$R/usr/sbin/start-sshd" <<'EOF'
#!/bin/sh
if [ -n "${AUTHORIZED_KEYS:-}" ]; then
	printf '%s\n' "$AUTHORIZED_KEYS" > /etc/ssh/authorized_keys/dev
	chmod 0644 /etc/ssh/authorized_keys/dev
fi
unset AUTHORIZED_KEYS
# The tar is all root's: dev's home becomes dev's here.
chown 1000:1000 /home/dev
exec /usr/sbin/sshd -D -e
EOF
chmod 0755 "$R/usr/sbin/start-sshd"

chmod 1777 "$R/tmp" "$R/var/tmp"
chmod 0700 "$R/root"
chmod 0755 "$R/run/sshd" "$R/var/empty"

# Everything root's (start-sshd gives dev its home).
tar --numeric-owner --owner=0 --group=0 --sort=name --mtime='2000-01-01 00:00:00Z' \
  -C "$R" -cf "$WORK/rootfs.tar.new" .
mv "$WORK/rootfs.tar.new" "$WORK/rootfs.tar"
log "rootfs: ${#bins[@]} binaries, ${#libs[@]} libraries, $(du -sh "$WORK/rootfs.tar" | cut -f1)"

"$DOCKER" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'EXPOSE 22' \
  --change "LABEL magenta.stamp=$stamp" \
  --change 'CMD ["/usr/sbin/start-sshd"]' \
  "$WORK/rootfs.tar" "$TAG" >/dev/null || die "docker import failed"

# Smoke test: sshd accepts its config.
c=sshd-build-$$
trap '"$DOCKER" rm -f "$c" >/dev/null 2>&1 || true' EXIT
"$DOCKER" run -d --name "$c" "$TAG" >/dev/null
"$DOCKER" exec "$c" /usr/sbin/sshd -t || die "sshd -t failed in the image"
"$DOCKER" exec "$c" bash -c 'test -d /proc/1 && echo "sshd -t ok; $(ls /usr/bin | wc -l) programs"' >&2
log "image $TAG built ($stamp)"
