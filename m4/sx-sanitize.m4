# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# sx-sanitize.m4: local macros of libsycl-ext (libtool's own go beside them).

# SX_ARG_SANITIZE: --enable-sanitize=LIST builds everything (core,
# adapters, tests, tools) with -fsanitize=LIST, e.g. address,undefined or
# thread, checking first that the compiler links it (the runtime libraries
# are separate packages: libasan8/libubsan1/libtsan2 for gcc,
# libclang-rt-14-dev for clang). tools/run-sanitizers.sh uses it.
AC_DEFUN([SX_ARG_SANITIZE], [
AC_ARG_ENABLE([sanitize],
  [AS_HELP_STRING([--enable-sanitize=LIST], [build with -fsanitize=LIST (address,undefined or thread) @<:@default=no@:>@])],
  [], [enable_sanitize=no])
AS_IF([test "x$enable_sanitize" != xno && test "x$enable_sanitize" != xyes && test -n "$enable_sanitize"], [
  sx_san_flags="-fsanitize=$enable_sanitize -fno-omit-frame-pointer -fno-sanitize-recover=all"
  CFLAGS="$CFLAGS $sx_san_flags"
  LDFLAGS="$LDFLAGS -fsanitize=$enable_sanitize"
  AC_MSG_CHECKING([whether $CC builds and links with -fsanitize=$enable_sanitize])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([-fsanitize=$enable_sanitize does not link: install the sanitizer runtime (tools/run-sanitizers.sh does)])])
], [AS_IF([test "x$enable_sanitize" = xyes], [AC_MSG_ERROR([--enable-sanitize needs a list, e.g. address,undefined])])])
])
