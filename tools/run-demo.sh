#!/bin/sh
# run-demo.sh: install what is missing, build, run the demo on the default device.
set -eu
. "$(dirname "$0")/deps.sh"
sx_install_deps
sx_build
./tools/sx-info
make demo
