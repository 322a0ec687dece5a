#!/usr/bin/env bash
# Install companion as a service: a virtual environment under /opt, the systemd unit, the udev rule for the
# reader hub, a dedicated user, and the default config (kept if one is there already). Safe to run twice.
#
#   sudo make install                 # or: sudo systemd/install.sh
#
# DESTDIR installs into another root (for packaging and tests); there, no user is made, udevadm is not called, and
# systemctl and apt-get only when SYSTEMCTL and APT_GET name them (the tests give fakes). PREFIX is where the program goes
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
if [[ -z "$DESTDIR" ]]; then
    SYSTEMCTL="${SYSTEMCTL:-systemctl}" APT_GET="${APT_GET:-apt-get}"
else
    SYSTEMCTL="${SYSTEMCTL:-}" APT_GET="${APT_GET:-}"
fi
# pip's and apt-get's last words, read to name what failed (they are shown as they come, too)
PIP_LOG="$(mktemp)" APT_LOG="$(mktemp)"
trap 'rm -f "$PIP_LOG" "$APT_LOG"' EXIT

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
    for group in gpio spi i2c dialout audio; do  # audio: /dev/snd/*, the table's voice
        getent group "$group" >/dev/null || groupadd --system "$group"
        usermod --append --groups "$group" companion
    done
fi

install -d -m 0755 "$DESTDIR$PREFIX"

# apt_get PACKAGE...: install Debian packages the environment needs; with no apt-get (under DESTDIR, another root,
# unless APT_GET names one) only say so. Its output is kept in APT_LOG.
apt_get() {
    if [[ -n "$APT_GET" ]] && command -v "$APT_GET" >/dev/null; then
        say "apt-get update, then apt-get install $*"
        "$APT_GET" update
        local status=0
        DEBIAN_FRONTEND=noninteractive "$APT_GET" install --yes --no-install-recommends "$@" 2>&1 | tee "$APT_LOG" \
            || status=$?
        return "$status"
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
    pip_install() {
        local status=0
        "$VENV/bin/python" -m pip install --upgrade --progress-bar off "$@" "$SOURCE" 2>&1 | tee "$PIP_LOG" \
            || status=$?
        return "$status"
    }
    # What pip failed on, in its own words (pip/_internal: DistributionNotFound's "No matching distribution found
    # for lgpio>=0.2.2", a source build's "Failed building wheel for spidev"; urllib3's "connection broken by"
    # when PyPI cannot be reached).
    unreachable() { grep -q "connection broken by\|Failed to establish a new connection" "$PIP_LOG"; }
    no_lgpio_wheel() { grep -q "No matching distribution found for lgpio" "$PIP_LOG"; }
    not_built() { grep -o "Failed building wheel for [A-Za-z0-9_.-]*" "$PIP_LOG" | sed 's/.* //' | sort -u | xargs; }
    say "installing companion and its libraries into $PREFIX/venv (pip lists each)"
    # lgpio (gpiozero's pins on every Pi) is a pip dependency, never the apt package python3-lgpio, which a
    # virtual environment does not see. PyPI has wheels for Python 3.11 and 3.12 on aarch64 (Pi 4, Pi 5, Zero 2 W
    # on 64-bit Raspberry Pi OS) and Raspberry Pi OS's pip finds armv7l ones for 32-bit; for another Python (3.13,
    # Debian Trixie's) it builds from source, which needs swig, a C compiler, Python's headers and the C library
    # liblgpio. spidev and RPi.GPIO have no aarch64 wheels at all: pip builds them, with a C compiler and Python's
    # headers.
    if ! pip_install --only-binary=lgpio; then
        python="$("$VENV/bin/python" --version) on $(uname -m)"
        if unreachable; then
            say "pip could not reach the package index (its error is above): check the network, then run me again"
            exit 1
        elif no_lgpio_wheel; then
            say "no lgpio wheel for $python: building lgpio from source"
            if ! apt_get swig gcc python3-dev liblgpio-dev; then
                if grep -q "Unable to locate package liblgpio-dev" "$APT_LOG"; then
                    say "this system's apt has no liblgpio-dev (Raspberry Pi OS's archive has it, Debian's not):" \
                        "install the C library lg from its source (github.com/joan2937/lg: make, then sudo make" \
                        "install) and run me again, or make the environment with a Python that has lgpio wheels" \
                        "(3.11, 3.12): sudo make install PYTHON=python3.12"
                fi
                exit 1
            fi
            pip_install || { say "pip failed building lgpio (its error is above)"; exit 1; }
        elif [[ -n "$(not_built)" ]]; then
            say "no wheel of $(not_built) for $python, and building them failed: they need a C compiler and" \
                "Python's headers (gcc, python3-dev)"
            apt_get gcc python3-dev || exit 1
            pip_install --only-binary=lgpio || { say "pip failed again (its error is above)"; exit 1; }
        else
            say "pip failed (its error is above): nothing was installed; run me again once it is fixed"
            exit 1
        fi
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
