#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The Debian packages the tests need, installed when they are missing:
#   tools/debian_deps.sh PACKAGE:PROGRAM ... PACKAGE:@FILE ...
# PROGRAM is the command the package provides (on PATH or in /usr/games,
# /usr/sbin); a package with no program (a font) names a file it installs
# instead, after an @ (checked with test -e). As root with apt-get, this
# installs what is missing (apt-get update first if the lists are stale);
# otherwise it prints the one command to run and fails.
missing=""
for pair in "$@"; do
  pkg=${pair%%:*}
  prog=${pair#*:}
  case $prog in
  @*)
    if test -e "${prog#@}"; then continue; fi
    ;;
  *)
    if command -v "$prog" >/dev/null 2>&1 || [ -x "/usr/games/$prog" ] || [ -x "/usr/sbin/$prog" ]; then
      continue
    fi
    ;;
  esac
  missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u 2>/dev/null)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian packages the tests need:$missing"
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086
  if apt-get install -y -qq $missing </dev/null >/dev/null 2>&1 ||
    { apt-get update -qq </dev/null >/dev/null 2>&1 && apt-get install -y -qq $missing </dev/null >/dev/null; }; then
    exit 0
  fi
  echo "could not install$missing with apt-get: run 'apt-get update && apt-get install -y$missing', then make test again" >&2
  exit 1
fi
echo "make test needs Debian packages:$missing. Run: sudo apt-get install$missing" >&2
exit 1
