#!/bin/sh
# The Debian packages some tests drive, installed where missing: chromium and chromium-driver (the report's browser
# tests) and tmux (the terminal tests of arena play). As root with apt-get; elsewhere it says which tests will skip.
#
#     tools/system-packages.sh     # make runs it beside the Python set-up
#
# Without the packages' recommends: 20 packages instead of 108 (a newer systemd and perl, printing, Samba, fonts),
# 9.6 s against 15.5 s on this machine kind with every package already downloaded. The browser tests pass with either.
set -e
need=""
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
	need="chromium chromium-driver"
fi
if ! command -v tmux >/dev/null; then
	need="${need:+$need }tmux"
fi
if [ -z "$need" ]; then
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	# a lock left by an apt-get that a Ctrl-C did not stop (a background job ignores SIGINT) is waited for
	apt-get update -qq -o DPkg::Lock::Timeout=300
	# shellcheck disable=SC2086 # one word per package
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends $need
else
	echo "missing: $need (apt-get install them as root): the tests that drive them (the report's browser tests," \
		"the terminal tests of arena play) will skip"
fi
