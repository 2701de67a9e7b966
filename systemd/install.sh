#!/usr/bin/env bash
# Install boardref on Raspberry Pi OS (Bookworm or later) from this checkout: the
# referee service, the Pico's udev rule and, unless --no-kiosk, the touchscreen kiosk.
#
#   sudo systemd/install.sh [--no-kiosk]
#
# Safe to run again to upgrade: it reinstalls the code and units and restarts the
# service, and keeps /etc/boardref/config.toml and the event log in /var/lib/boardref.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
checkout="$(dirname "$here")"
venv=/opt/boardref/.venv
config=/etc/boardref/config.toml

kiosk=yes
for arg in "$@"; do
    case "$arg" in
        --no-kiosk) kiosk=no ;;
        *) echo "usage: $0 [--no-kiosk]" >&2; exit 2 ;;
    esac
done

if [[ $EUID -ne 0 ]]; then
    echo "boardref install needs root: sudo $0 $*" >&2
    exit 1
fi
if [[ ! -f "$here/config.example.toml" ]]; then
    echo "missing $here/config.example.toml: is this a complete boardref checkout?" >&2
    exit 1
fi

step() { printf '\n== %s\n' "$*"; }

step "packages"
# python3-lgpio is gpiozero's pin factory on a Pi (also for the Pi 5's RP1 chip); the
# venv sees it through --system-site-packages instead of building it from source.
packages=(python3-venv python3-lgpio)
if [[ $kiosk == yes ]]; then
    packages+=(cage chromium)
fi
apt-get update
apt-get install -y --no-install-recommends "${packages[@]}"

step "users and groups"
# Raspberry Pi OS's udev rules give /dev/gpiochip* to the group gpio; the unit names
# it, so it must exist even where nothing uses it.
getent group gpio >/dev/null || groupadd --system gpio
if ! id -u boardref >/dev/null 2>&1; then
    useradd --system --user-group --home-dir /var/lib/boardref --no-create-home \
        --shell /usr/sbin/nologin boardref
fi
# The unit adds these groups by itself; membership also lets an admin run
# `sudo -u boardref boardref ...` against the real devices.
usermod --append --groups dialout,gpio,video boardref
if [[ $kiosk == yes ]] && ! id -u kiosk >/dev/null 2>&1; then
    # Chromium keeps its profile in the home directory.
    useradd --user-group --create-home --shell /usr/sbin/nologin kiosk
fi
if [[ $kiosk == yes ]]; then
    usermod --append --groups video,render,input kiosk
fi

step "boardref into $venv"
if [[ ! -x $venv/bin/python ]]; then
    install -d -m 0755 "$(dirname "$venv")"
    python3 -m venv --system-site-packages "$venv"
fi
# A copy, not an editable install: the service may not read home directories
# (ProtectHome), and a checkout being edited must not change a running table.
"$venv/bin/python" -m pip install --quiet --upgrade "${checkout}[pi]"

step "configuration"
install -d -m 0755 "$(dirname "$config")"
if [[ ! -e $config ]]; then
    # Readable by the service's group only: it holds the referee PIN's hash.
    install -m 0640 -o root -g boardref "$here/config.example.toml" "$config"
    echo "wrote $config from the example; edit it for this table"
else
    echo "kept $config"
fi

step "udev rule for the Pico"
install -m 0644 "$here/99-boardref-pico.rules" /etc/udev/rules.d/99-boardref-pico.rules
udevadm control --reload
udevadm trigger --subsystem-match=tty --action=add

step "systemd units"
install -m 0644 "$here/boardref.service" /etc/systemd/system/boardref.service
if [[ $kiosk == yes ]]; then
    install -m 0644 "$here/boardref-kiosk.service" /etc/systemd/system/boardref-kiosk.service
fi
systemctl daemon-reload
# enable, then restart rather than `enable --now`, so that a second run also restarts
# a running service onto the code just installed.
systemctl enable boardref.service
systemctl restart boardref.service
if [[ $kiosk == yes ]]; then
    # The kiosk owns tty1, so its login prompt goes; Ctrl+Alt+F2 still gives one.
    systemctl disable getty@tty1.service
    # Raspberry Pi OS Lite boots to multi-user; the kiosk belongs to graphical.
    systemctl set-default graphical.target
    systemctl enable boardref-kiosk.service
    systemctl restart boardref-kiosk.service
fi

step "done"
systemctl --no-pager --lines=0 status boardref.service || true
echo "logs: journalctl -u boardref -f"
