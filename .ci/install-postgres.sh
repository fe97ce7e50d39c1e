#!/usr/bin/env bash
# Installs PostgreSQL 15 (server and client programs) for the tests that start
# their own throwaway server (internal/pgtest). Does nothing when it is already
# there; never starts the Debian cluster service, since the tests run their own.
set -euo pipefail
if [ -x /usr/lib/postgresql/15/bin/postgres ]; then
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# policy-rc.d exit 101 tells invoke-rc.d not to start services during the install.
policy=/usr/sbin/policy-rc.d
created_policy=
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod +x "$policy"
	created_policy=1
fi
trap 'if [ -n "$created_policy" ]; then rm -f "$policy"; fi' EXIT
apt-get update
# Do not let postgresql-common create and start the default "main" cluster.
mkdir -p /etc/postgresql-common/createcluster.d
echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/pgspec-no-main.conf
apt-get install -y --no-install-recommends postgresql-15 postgresql-client-15
test -x /usr/lib/postgresql/15/bin/postgres
