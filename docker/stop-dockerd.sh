#!/bin/sh
# Stop the dockerd started by start-dockerd.sh (only that one, by its pid), and wait for it to exit.
set -eu

PIDFILE=${RPLAY_DOCKERD_PIDFILE:-/var/run/rplay-dockerd.pid}

if [ ! -f "$PIDFILE" ]; then
    echo "no $PIDFILE: dockerd was not started by start-dockerd.sh"
    exit 0
fi
PID=$(cat "$PIDFILE")
if kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID"
    i=0
    while kill -0 "$PID" 2>/dev/null; do
        i=$((i + 1))
        if [ "$i" -gt 120 ]; then
            echo "dockerd (pid $PID) did not stop within 30s" >&2
            exit 1
        fi
        sleep 0.25
    done
    echo "dockerd (pid $PID) stopped"
else
    echo "dockerd (pid $PID) was not running"
fi
rm -f "$PIDFILE"
