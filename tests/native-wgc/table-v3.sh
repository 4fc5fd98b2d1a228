#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# table-v3.sh: tables.sh for the v3 table of compiled work-group images.
exec sh "$(dirname "$0")/tables.sh" v3
