#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests of the matrix page
# (internal/site), and a Chinese font so its screenshots show the Chinese
# texts. Does nothing when both are there.
set -euo pipefail
if command -v chromium >/dev/null && fc-list :lang=zh | grep -q .; then
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium fonts-wqy-microhei
command -v chromium >/dev/null
