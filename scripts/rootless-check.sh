#!/bin/sh
# Run the demo and the isolation tests (the sandbox's, and each family's
# attacks) as a normal user, as most users run assay, then the sandbox tests again as a user
# without subordinate ids. (The whole suite runs as root just before; running it twice would
# double CI's time for little.) Prepares what such a user's host gives
# it: newuidmap and subordinate ids (the uidmap package), and a cgroup subtree handed to the user
# (scripts/delegate-cgroup.sh, as systemd delegates one). Run as root, from a checkout.
set -eu
user=${ASSAY_CI_USER:-assay-ci}
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v newuidmap >/dev/null 2>&1; then
    apt-get install -y -q uidmap >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q uidmap >/dev/null; }
fi
id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/sh "$user"
grep -q "^$user:" /etc/subuid || usermod --add-subuids 300000-365535 "$user"
grep -q "^$user:" /etc/subgid || usermod --add-subgids 300000-365535 "$user"
home=$(getent passwd "$user" | cut -d: -f6)
rm -rf "$home/assay"
git clone --quiet "$here" "$home/assay"  # by root, who can read the checkout wherever it is
chown -R "$user": "$home/assay"
"$here/scripts/delegate-cgroup.sh" "$user" sh -c '
    set -e
    cd ~/assay
    make demo
    echo "== the isolation tests as this user: the sandbox and the attacks on each family =="
    .venv/bin/pytest -q -n 2 --dist worksteal tests/sandbox tests/families/code tests/audit/test_redteam.py \
        tests/families/sql/test_adversarial.py tests/families/config/test_adversarial.py \
        tests/families/workflow/test_channel.py tests/families/workflow/test_exploits.py
    echo "== the sandbox tests again, without subordinate ids =="
    ASSAY_TEST_WITHOUT_SUBIDS=1 .venv/bin/pytest -q tests/sandbox
'
