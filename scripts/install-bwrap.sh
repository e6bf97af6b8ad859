#!/bin/sh
# Installs bubblewrap where the host's package manager allows; otherwise says how.
set -e
command -v bwrap >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing bubblewrap with apt-get" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
    exit 0
fi
if command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo apt-get install -y bubblewrap
    exit 0
fi
echo "bubblewrap (bwrap) is missing: install it with your package manager (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap)" >&2
exit 1
