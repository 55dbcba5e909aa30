#!/usr/bin/env bash
# Install the system packages rplay needs on Debian 12, only those missing: MariaDB (local pairs),
# a Java runtime (Spark), docker.io and debootstrap (images built offline from Debian packages).
set -euo pipefail
need=()
command -v mariadbd >/dev/null 2>&1 || need+=(mariadb-server)
command -v mariadb >/dev/null 2>&1 || need+=(mariadb-client)
command -v mariadb-binlog >/dev/null 2>&1 || need+=(mariadb-client)
command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
if [ "${RPLAY_WITH_DOCKER:-1}" = 1 ]; then
    command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
    command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
fi
command -v python3 >/dev/null 2>&1 || need+=(python3)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
