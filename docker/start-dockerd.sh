#!/bin/sh
# Start dockerd in the background, idempotently, with no bridge and no iptables rules: every rplay
# container uses host networking and binds 127.0.0.1, so the engine needs no network of its own.
# Waits until `docker info` answers. Safe to call when dockerd already runs.
set -eu

LOG=${RPLAY_DOCKERD_LOG:-/var/log/rplay-dockerd.log}
PIDFILE=${RPLAY_DOCKERD_PIDFILE:-/var/run/rplay-dockerd.pid}
TIMEOUT=${RPLAY_DOCKERD_TIMEOUT:-60}

if docker info >/dev/null 2>&1; then
    echo "dockerd already running"
    exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
    echo "dockerd not found: apt-get install -y docker.io" >&2
    exit 1
fi

# A stale pid file from a dead daemon would make dockerd refuse to start.
if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
    rm -f /var/run/docker.pid
fi

nohup dockerd --bridge=none --iptables=false --ip6tables=false >"$LOG" 2>&1 &
echo $! >"$PIDFILE"

i=0
while ! docker info >/dev/null 2>&1; do
    i=$((i + 1))
    if [ "$i" -gt $((TIMEOUT * 4)) ]; then
        echo "dockerd did not answer within ${TIMEOUT}s; log tail:" >&2
        tail -n 30 "$LOG" >&2 || true
        exit 1
    fi
    if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
        echo "dockerd exited; log tail:" >&2
        tail -n 30 "$LOG" >&2 || true
        exit 1
    fi
    sleep 0.25
done
echo "dockerd started (pid $(cat "$PIDFILE"), log $LOG)"
