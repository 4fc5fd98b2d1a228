#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# table-base.sh: tables.sh for the base table of compiled work-group images.
exec sh "$(dirname "$0")/tables.sh" base
