#!/bin/sh
# Hand a cgroup subtree to USER and run COMMAND as USER inside it, the way systemd delegates
# one to a user's services. For hosts (and CI) without systemd; run as root.
#   scripts/delegate-cgroup.sh USER COMMAND...
set -eu
user=$1
shift
root=/sys/fs/cgroup
if [ -f "$root/cgroup.controllers" ]; then
    # cgroup v2: one directory, its controllers passed down from the root.
    own=$(sed -n 's/^0:://p' /proc/self/cgroup)
    group=$root${own%/}/delegated-$user
    mkdir -p "$group"
    chown -R "$user" "$group"
    echo $$ > "$group/cgroup.procs"
else
    # cgroup v1: one directory in each hierarchy assay uses.
    for controller in memory pids cpuacct; do
        [ -d "$root/$controller" ] || continue
        # inside the group this shell is in, so the host's own limits keep holding
        own=$(awk -F: -v c="$controller" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' /proc/self/cgroup)
        group=$root/$controller${own%/}/delegated-$user
        mkdir -p "$group"
        chown -R "$user" "$group"
        echo $$ > "$group/cgroup.procs"
    done
fi
exec su "$user" -s /bin/sh -c 'exec "$@"' -- sh "$@"
