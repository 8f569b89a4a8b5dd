#!/usr/bin/env bash
# Check an installed tuios Debian package (.ci/run, after `dpkg -i`): the binary at the
# workspace's version, its man pages where man finds them, the completions, the documentation
# files Debian asks for, and the six systemd user units, verified by systemd-analyze.
# Usage: tools/check-installed-deb.sh VERSION
set -euo pipefail
version=$1

said=$(/usr/bin/tuios --version)
[ "$said" = "tuios $version" ] || { echo "error: /usr/bin/tuios --version says: $said" >&2; exit 1; }

man -w tuios | grep -qx '/usr/share/man/man1/tuios.1.gz'
man -w tuios-wait-for >/dev/null

for f in /usr/share/bash-completion/completions/tuios /usr/share/zsh/vendor-completions/_tuios \
  /usr/share/fish/vendor_completions.d/tuios.fish /usr/share/doc/tuios/copyright \
  /usr/share/doc/tuios/changelog.Debian.gz; do
  [ -s "$f" ] || { echo "error: the package did not install $f" >&2; exit 1; }
done

units=(/usr/lib/systemd/user/tuios*.service /usr/lib/systemd/user/tuios*.socket)
[ "${#units[@]}" -eq 6 ] || { echo "error: expected 6 units, found: ${units[*]}" >&2; exit 1; }
if grep -n '%h/\.cargo' "${units[@]}"; then
  echo "error: an installed unit still names ~/.cargo/bin" >&2
  exit 1
fi
# --user needs a runtime directory, which a CI container without a login session lacks.
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
  XDG_RUNTIME_DIR=$(mktemp -d)
  export XDG_RUNTIME_DIR
  trap 'rm -rf "$XDG_RUNTIME_DIR"' EXIT
fi
systemd-analyze verify --user "${units[@]}"
echo "the installed package checks out: tuios $version, man pages, completions, ${#units[@]} units"
