#!/usr/bin/env bash
# Install companion as a service: a virtual environment under /opt, the systemd unit, the udev rule for the
# reader hub, a dedicated user, and the default config (kept if one is there already). Safe to run twice.
#
#   sudo make install                 # or: sudo systemd/install.sh
#
# DESTDIR installs into another root (for packaging and tests); there, no user is made, udevadm is not called and
# systemctl only when SYSTEMCTL names one (the tests give a recorder). PREFIX is where the program goes
# (/opt/companion): the unit's ExecStart= and the /usr/local/bin/companion link follow it. PYTHON is the interpreter
# the environment is made from (python3).
#
# A second run is an upgrade: the config, the pin map and the modes of /etc/companion and its files are the owner's
# and are kept (the new defaults go beside them as *.new); a running service is restarted on the new version.
set -euo pipefail

SOURCE="$(cd "$(dirname "$0")/.." && pwd)"
DESTDIR="${DESTDIR:-}"
PREFIX="${PREFIX:-/opt/companion}"
PYTHON="${PYTHON:-python3}"
SKIP_VENV="${SKIP_VENV:-}"
if [[ -z "$DESTDIR" ]]; then SYSTEMCTL="${SYSTEMCTL:-systemctl}"; else SYSTEMCTL="${SYSTEMCTL:-}"; fi

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

# apt_get PACKAGE...: install Debian packages the environment needs; under DESTDIR (another root) only say so.
apt_get() {
    if [[ -z "$DESTDIR" ]] && command -v apt-get >/dev/null; then
        say "apt-get update, then apt-get install $*"
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install --yes --no-install-recommends "$@"
    else
        say "install these first (then run me again): $*"
        return 1
    fi
}

if [[ -z "$SKIP_VENV" ]]; then
    VENV="$DESTDIR$PREFIX/venv"
    if [[ ! -x "$VENV/bin/python" ]]; then
        # Debian's python3 has venv but not ensurepip (the package python3-venv has it).
        "$PYTHON" -c 'import ensurepip' 2>/dev/null || apt_get python3-venv
        say "making the virtual environment $PREFIX/venv ($("$PYTHON" --version))"
        "$PYTHON" -m venv "$VENV"
    fi
    # pip says what it fetches and builds: on a Zero 2 W this is minutes, and they must not look like a hang.
    pip_install() { "$VENV/bin/python" -m pip install --upgrade --progress-bar off "$@" "$SOURCE"; }
    say "installing companion and its libraries into $PREFIX/venv (pip lists each)"
    # lgpio (gpiozero's pins on every Pi) is a pip dependency, never the apt package python3-lgpio, which a
    # virtual environment does not see. PyPI has wheels for Python 3.11 and 3.12 on aarch64 (Pi 4, Pi 5, Zero 2 W
    # on 64-bit Raspberry Pi OS) and Raspberry Pi OS's pip finds armv7l ones for 32-bit; for another Python it
    # builds from source, which needs swig, a C compiler, Python's headers and the C library liblgpio.
    if ! pip_install --only-binary=lgpio; then
        say "no lgpio wheel for $("$VENV/bin/python" --version) on $(uname -m): building lgpio from source"
        apt_get swig gcc python3-dev liblgpio-dev
        pip_install
    fi
fi
install -m 0644 "$SOURCE/README.md" "$DESTDIR$PREFIX/README.md"
install -d -m 0755 "$DESTDIR/usr/local/bin"
ln -sfn "$PREFIX/venv/bin/companion" "$DESTDIR/usr/local/bin/companion"

install -d -m 0755 "$DESTDIR/etc/systemd/system" "$DESTDIR/etc/udev/rules.d"
# /etc/companion may have been closed to others by its owner: made once, its mode never reset.
[[ -d "$DESTDIR/etc/companion" ]] || install -d -m 0755 "$DESTDIR/etc/companion"
# The unit names the program by its path: under another PREFIX, that one.
sed "s|/opt/companion/|$PREFIX/|g" "$SOURCE/systemd/companion.service" > "$DESTDIR/etc/systemd/system/companion.service"
chmod 0644 "$DESTDIR/etc/systemd/system/companion.service"
# The club's service (companion club), installed, never enabled: one machine of a club runs it (docs/CLUB.md).
sed "s|/opt/companion/|$PREFIX/|g" "$SOURCE/systemd/companion-club.service" \
    > "$DESTDIR/etc/systemd/system/companion-club.service"
chmod 0644 "$DESTDIR/etc/systemd/system/companion-club.service"
if [[ -f "$SOURCE/systemd/99-companion-hub.rules" ]]; then
    install -m 0644 "$SOURCE/systemd/99-companion-hub.rules" "$DESTDIR/etc/udev/rules.d/99-companion-hub.rules"
fi

# keep_or_install SOURCE NAME MODE [GROUP]: /etc/companion/NAME from SOURCE with MODE, owned by root and GROUP (root)
# (under DESTDIR, by whoever runs this), unless there is one (then NAME.new beside it, the same way).
keep_or_install() {
    local target="$DESTDIR/etc/companion/$2" owner=()
    [[ -n "$DESTDIR" ]] || owner=(-o root -g "${4:-root}")
    if [[ -f "$target" ]]; then
        say "keeping /etc/companion/$2 (the new default is $2.new)"
        install -m "$3" "${owner[@]}" "$1" "$target.new"
        if [[ "$3" == 0640 && -n "$(find "$target" -perm -o=r)" ]]; then
            say "/etc/companion/$2 is readable by every user, and may hold the broker's password:" \
                "sudo chmod 0640 /etc/companion/$2 && sudo chgrp companion /etc/companion/$2"
        fi
    else
        install -m "$3" "${owner[@]}" "$1" "$target"
    fi
}
# The config may hold the club's broker password ([mqtt] password): readable by the service's group, not by every
# user (docs/CLUB.md). Root owns it, so the service cannot rewrite its own config.
keep_or_install "$SOURCE/systemd/config.toml" config.toml 0640 companion
keep_or_install "$SOURCE/hardware/pinmap.toml" pinmap.toml 0644   # the wiring, for the owner to edit on the Pi

if [[ -z "$DESTDIR" ]]; then
    udevadm control --reload-rules && udevadm trigger || say "udev not reloaded: plug the hub in again"
fi
if [[ -n "$SYSTEMCTL" ]]; then
    "$SYSTEMCTL" daemon-reload
    "$SYSTEMCTL" enable companion.service
    if "$SYSTEMCTL" --quiet is-active companion.service; then
        say "restarting companion: the new version runs now"
        "$SYSTEMCTL" restart companion.service
    else
        "$SYSTEMCTL" start companion.service
    fi
    say "done: journalctl -u companion -f shows the log; companion doctor checks the hardware"
fi
