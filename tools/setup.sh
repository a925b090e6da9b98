#!/bin/sh
# The environment make's targets run in: .venv with the project installed (its test and dask extras), its bytecode
# compiled, and the Debian packages some tests drive. Run by make when pyproject.toml is newer than .venv.
#
#   1. uv installs the project (far faster than pip; fetched from PyPI into .venv/uv, alone: it has no
#      dependencies); where uv cannot be had or fails, pip does it. editable_mode=compat puts the checkout on
#      sys.path by a .pth line instead of setuptools' import hook, which every process would pay for at start.
#   2. tools/bytecode.py compiles what the arena's processes import: bots run under a uid of their own and cannot
#      write bytecode, and CI sets PYTHONDONTWRITEBYTECODE.
#   3. Meanwhile tools/system-packages.sh installs chromium and tmux where they are missing; either failing fails.
set -e
python=${PYTHON:-python3}
"$python" -m venv --without-pip .venv
tools/system-packages.sh >.venv/system-packages.log 2>&1 &
packages=$!

install_with_uv() {
	test -x .venv/uv/bin/uv || "$python" -m pip install --quiet --disable-pip-version-check \
		--root-user-action=ignore --no-deps --no-compile --no-cache-dir --target .venv/uv uv
	.venv/uv/bin/uv pip install --quiet --python .venv/bin/python --config-setting editable_mode=compat \
		-e '.[test,dask]'
}
install_with_pip() {
	.venv/bin/python -m ensurepip --upgrade --default-pip
	.venv/bin/pip install --quiet --config-settings editable_mode=compat -e '.[test,dask]'
}

status=0
{ install_with_uv || install_with_pip; } && .venv/bin/python tools/bytecode.py || status=$?
wait $packages || status=$?
cat .venv/system-packages.log
exit $status
