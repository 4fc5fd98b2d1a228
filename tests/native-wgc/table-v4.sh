#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# table-v4.sh: tables.sh for the v4 table of compiled work-group images.
exec sh "$(dirname "$0")/tables.sh" v4
