#!/bin/sh
# Installs Chromium, which the HTML report's tests render pages in (headless, offline), where
# the host's package manager allows; otherwise says how. Quick when it is already there.
set -e
command -v chromium >/dev/null 2>&1 && exit 0
packages="chromium fonts-liberation"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    # the package lists may be fresh already (install-bwrap.sh updates them): update only if not
    apt-get install -y -qq --no-install-recommends $packages >/dev/null 2>&1 || {
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends $packages >/dev/null
    }
    exit 0
fi
if command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo apt-get install -y --no-install-recommends $packages
    exit 0
fi
echo "chromium is missing (the HTML report's tests render in it): install it with your package manager (apt-get install chromium, dnf install chromium, pacman -S chromium)" >&2
exit 1
