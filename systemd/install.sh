#!/usr/bin/env bash
# Install boardref on 64-bit Raspberry Pi OS (Bookworm or later) from this checkout: the
# referee service, `boardref` on the PATH, the Pico's udev rule, the Pi camera's
# picamera2 when the config names it and, unless --no-kiosk, the touchscreen kiosk.
#
#   sudo systemd/install.sh [--no-kiosk]
#
# Safe to run again to upgrade: it reinstalls the code and units and restarts the
# service, and keeps /etc/boardref/config.toml and the event log in /var/lib/boardref.
# BOARDREF_ROOT puts every file it writes under that folder instead of / (the tests run
# it so, with stand-ins for apt-get, systemctl and the user tools).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
checkout="$(dirname "$here")"
root="${BOARDREF_ROOT:-}"
venv=/opt/boardref/.venv
config=/etc/boardref/config.toml
bindir=/usr/local/bin
unitdir=/etc/systemd/system

kiosk=yes
for arg in "$@"; do
    case "$arg" in
        --no-kiosk) kiosk=no ;;
        *) echo "usage: $0 [--no-kiosk]" >&2; exit 2 ;;
    esac
done

# The packages' architecture, not the kernel's: 32-bit Raspberry Pi OS runs a 64-bit
# kernel on a Pi 4, so `uname -m` says aarch64 there too.
arch="$(dpkg --print-architecture)"
case "$arch" in
    armhf | armel | i386)
        echo "boardref needs 64-bit Raspberry Pi OS (arm64); this system is 32-bit ($arch):" \
            "numpy and OpenCV have no 32-bit wheels, so the install would stop half-built." \
            "Write Raspberry Pi OS (64-bit) to the card with Raspberry Pi Imager and run this" \
            "again; nothing was changed." >&2
        exit 1
        ;;
esac
if [[ $(id -u) -ne 0 ]]; then
    echo "boardref install needs root: sudo $0 $*" >&2
    exit 1
fi
if [[ ! -f "$here/config.example.toml" ]]; then
    echo "missing $here/config.example.toml: is this a complete boardref checkout?" >&2
    exit 1
fi

step() { printf '\n== %s\n' "$*"; }

# The config's [camera] source, read before anything is installed: the Pi camera's
# packages bring the system's numpy, which pip must see to keep it.
camera_source() {
    python3 -s - "$1" <<'EOF'
import sys, tomllib
try:
    with open(sys.argv[1], "rb") as file:
        print(tomllib.load(file).get("camera", {}).get("source", ""))
except (OSError, ValueError, AttributeError) as exc:  # ValueError: not TOML
    sys.exit(f"{sys.argv[1]} cannot be read ({exc}); fix it and run this again")
EOF
}
camera=""
if [[ -f $root$config ]]; then
    camera="$(camera_source "$root$config")"
fi

step "packages"
# python3-lgpio is gpiozero's pin factory on a Pi (also for the Pi 5's RP1 chip); the
# venv sees it through --system-site-packages instead of building it from source.
# espeak-ng speaks for the Pi itself and alsa-utils' aplay plays it ([speech.pi]); both
# are small, so a referee can turn the Pi's voice on later without installing anything.
packages=(python3-venv python3-lgpio espeak-ng alsa-utils)
if [[ $camera == picamera ]]; then
    # picamera2 and libcamera come only from apt, built against apt's numpy.
    packages+=(python3-picamera2)
fi
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
usermod --append --groups dialout,gpio,video,audio boardref
if [[ $kiosk == yes ]] && ! id -u kiosk >/dev/null 2>&1; then
    # Chromium keeps its profile in the home directory.
    useradd --user-group --create-home --shell /usr/sbin/nologin kiosk
fi
if [[ $kiosk == yes ]]; then
    usermod --append --groups video,render,input kiosk
fi

step "boardref into $venv"
if [[ ! -x $root$venv/bin/python ]]; then
    install -d -m 0755 "$(dirname "$root$venv")"
    python3 -m venv --system-site-packages "$root$venv"
fi
# Modules from apt (picamera2's simplejpeg, say) are built against the system's numpy:
# a newer one in the venv would hide it and break them. Held to the system's version,
# pip keeps the system's, and picks an OpenCV that accepts it.
pins="$(mktemp)"
trap 'rm -f "$pins"' EXIT
system_numpy="$(python3 -s -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true)"
if [[ -n $system_numpy ]]; then
    echo "keeping the system's numpy $system_numpy"
    echo "numpy==$system_numpy" >"$pins"
    if compgen -G "$root$venv/lib/python3*/site-packages/numpy" >/dev/null; then
        # An earlier install put a numpy of its own there, which hides the system's.
        "$root$venv/bin/python" -m pip uninstall --quiet --yes numpy
    fi
fi
# setuptools builds in the checkout's build/ and installs whatever it finds there: a
# module an older version had (and a newer one moved or removed) would come back.
rm -rf "${checkout}/build"
# A copy, not an editable install: the service may not read home directories
# (ProtectHome), and a checkout being edited must not change a running table.
"$root$venv/bin/python" -m pip install --quiet --upgrade --constraint "$pins" "${checkout}[pi]"

step "boardref on the PATH"
# A login shell's PATH (and sudo's) has /usr/local/bin: `boardref pin-hash` works as
# every doc writes it.
install -d -m 0755 "$root$bindir"
ln -sfn "$root$venv/bin/boardref" "$root$bindir/boardref"
echo "$bindir/boardref -> $venv/bin/boardref"

step "configuration"
install -d -m 0755 "$(dirname "$root$config")"
if [[ ! -e $root$config ]]; then
    install -m 0640 "$here/config.example.toml" "$root$config"
    # Readable by the service's group only: it holds the referee PIN's hash.
    chown root:boardref "$root$config"
    echo "wrote $config from the example; edit it for this table"
else
    echo "kept $config"
fi

step "udev rule for the Pico"
install -D -m 0644 "$here/99-boardref-pico.rules" "$root/etc/udev/rules.d/99-boardref-pico.rules"
udevadm control --reload
udevadm trigger --subsystem-match=tty --action=add

step "systemd units"
install -D -m 0644 "$here/boardref.service" "$root$unitdir/boardref.service"
if [[ $kiosk == yes ]]; then
    install -D -m 0644 "$here/boardref-kiosk.service" "$root$unitdir/boardref-kiosk.service"
fi
systemctl daemon-reload
# enable, then restart rather than `enable --now`, so that a second run also restarts
# a running service onto the code just installed.
systemctl enable boardref.service
# A service that does not start (a config it refuses, a port in use) must not stop the
# install before its next steps, which say why; it ends with status 1 then.
started=yes
systemctl restart boardref.service || started=no
if [[ $kiosk == yes ]]; then
    # The kiosk owns tty1, so its login prompt goes; Ctrl+Alt+F2 still gives one.
    systemctl disable getty@tty1.service
    # Raspberry Pi OS Lite boots to multi-user; the kiosk belongs to graphical.
    systemctl set-default graphical.target
    systemctl enable boardref-kiosk.service
    systemctl restart boardref-kiosk.service
fi
systemctl --no-pager --lines=0 status boardref.service || true

step "next steps"
# The settings as the service reads them, one a line: why it refuses the config (or
# nothing), whether a PIN is set, where phones are sent (the join QR codes' address)
# and whether that is this machine only, and the address phones would use on the LAN.
mapfile -t settings < <("$root$venv/bin/python" - "$root$config" <<'EOF'
import sys
from boardref.runtime.config import ConfigError, load_config
from boardref.outputs.panel.address import is_loopback, public_base
try:
    panel = load_config(sys.argv[1]).panel
except ConfigError as exc:
    print(exc, "", "", "", "", sep="\n")
else:
    phones = public_base(panel.public_url, panel.host, panel.port)
    lan = public_base(None, "0.0.0.0", panel.port)
    print("", panel.referee_pin_hash or "", phones, is_loopback(phones) or "", lan, sep="\n")
EOF
)
if [[ ${#settings[@]} -ne 5 ]]; then
    echo "boardref's Python could not read $config (see above); the install is broken." >&2
    exit 1
fi
refused="${settings[0]}" pin="${settings[1]}" phones="${settings[2]}"
loopback="${settings[3]}" lan="${settings[4]}"
if [[ -n $refused ]]; then
    echo "The service refuses its config: $refused"
    echo "Edit $config, then: sudo systemctl restart boardref"
    echo
fi
echo "The table's settings: $config (each key is explained in it)."
echo "After editing it: sudo systemctl restart boardref"
echo
if [[ -z $pin && -z $refused ]]; then
    echo "No referee PIN is set: the referee page stays shut until one is."
fi
echo "Referee PIN: run 'boardref pin-hash' (it asks twice), put the line it prints"
echo "under [panel] in $config as referee_pin_hash = \"scrypt\$...\","
echo "then restart."
echo
if [[ -n $loopback ]]; then
    echo "Phones: the panel answers on this machine only ($phones), so phones"
    echo "cannot reach it. To let them join by the table's QR codes, set under [panel]"
    echo "host = \"0.0.0.0\" and public_url = \"$lan\" (the address phones use),"
    echo "then restart."
    echo
elif [[ -z $refused ]]; then
    echo "Phones join by the QR codes on the table page, which lead to $phones."
    echo "If phones reach the table by another address or name, set that as"
    echo "public_url under [panel], then restart."
    echo
fi
echo "Commands that use this table's config or event log run as its user, e.g."
echo "'sudo -u boardref boardref games list'. Logs: journalctl -u boardref -f"

if [[ $camera == picamera ]]; then
    step "the Pi camera"
    if ! failure="$("$root$venv/bin/python" -c 'import picamera2' 2>&1)"; then
        echo "${failure##*$'\n'}"
        echo "The service cannot load picamera2, so the table runs without its camera."
        echo "Check the camera with 'rpicam-hello --list-cameras'. If"
        echo "'/usr/bin/python3 -c \"import picamera2\"' fails too, reinstall it with"
        echo "'sudo apt install --reinstall python3-picamera2'; if only boardref's fails, a"
        echo "numpy in $venv hides the system's: run this installer again."
        exit 1
    fi
    echo "picamera2 loads in boardref's Python: the camera is ready."
fi
if [[ $started == no ]]; then
    echo
    echo "The service did not start; 'journalctl -u boardref -e' says why."
    exit 1
fi
