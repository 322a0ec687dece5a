#!/usr/bin/env bash
# Install companion as a service: a virtual environment under /opt, the systemd unit, the udev rule for the
# reader hub, a dedicated user, and the default config (kept if one is there already). Safe to run twice.
#
#   sudo make install                 # or: sudo systemd/install.sh
#
# DESTDIR installs into another root (for packaging and tests); there, no user is made and systemctl and udevadm
# are not called.
set -euo pipefail

SOURCE="$(cd "$(dirname "$0")/.." && pwd)"
DESTDIR="${DESTDIR:-}"
PREFIX="${PREFIX:-/opt/companion}"
PYTHON="${PYTHON:-python3}"
SKIP_VENV="${SKIP_VENV:-}"

say() { printf 'companion install: %s\n' "$*"; }

if [[ -z "$DESTDIR" && $EUID -ne 0 ]]; then
    say "run me as root: sudo make install" >&2
    exit 1
fi

if [[ -z "$DESTDIR" ]]; then
    if ! id companion >/dev/null 2>&1; then
        say "adding the system user companion"
        useradd --system --home-dir /var/lib/companion --shell /usr/sbin/nologin companion
    fi
    for group in gpio spi i2c dialout; do
        getent group "$group" >/dev/null || groupadd --system "$group"
        usermod --append --groups "$group" companion
    done
fi

install -d -m 0755 "$DESTDIR$PREFIX"
if [[ -z "$SKIP_VENV" ]]; then
    say "installing into $PREFIX/venv"
    [[ -x "$DESTDIR$PREFIX/venv/bin/python" ]] || "$PYTHON" -m venv "$DESTDIR$PREFIX/venv"
    "$DESTDIR$PREFIX/venv/bin/python" -m pip install --quiet --upgrade "$SOURCE"
fi
install -m 0644 "$SOURCE/README.md" "$DESTDIR$PREFIX/README.md"
install -d -m 0755 "$DESTDIR/usr/local/bin"
ln -sfn "$PREFIX/venv/bin/companion" "$DESTDIR/usr/local/bin/companion"

install -d -m 0755 "$DESTDIR/etc/systemd/system" "$DESTDIR/etc/udev/rules.d" "$DESTDIR/etc/companion"
install -m 0644 "$SOURCE/systemd/companion.service" "$DESTDIR/etc/systemd/system/companion.service"
if [[ -f "$SOURCE/systemd/99-companion-hub.rules" ]]; then
    install -m 0644 "$SOURCE/systemd/99-companion-hub.rules" "$DESTDIR/etc/udev/rules.d/99-companion-hub.rules"
fi
if [[ -f "$DESTDIR/etc/companion/config.toml" ]]; then
    say "keeping /etc/companion/config.toml (the new default is config.toml.new)"
    install -m 0644 "$SOURCE/systemd/config.toml" "$DESTDIR/etc/companion/config.toml.new"
else
    install -m 0644 "$SOURCE/systemd/config.toml" "$DESTDIR/etc/companion/config.toml"
fi

if [[ -z "$DESTDIR" ]]; then
    udevadm control --reload-rules && udevadm trigger || say "udev not reloaded: plug the hub in again"
    systemctl daemon-reload
    systemctl enable --now companion.service
    say "done: journalctl -u companion -f shows the log; companion doctor checks the hardware"
fi
