#!/bin/sh
# Prints the release version of the checkout, a semantic version that
# `ctxd version`, the .vsix manifests and the archive names all carry:
#   on a tag vX.Y.Z                     X.Y.Z
#   N commits after the tag vX.Y.Z      X.Y.Z-N-gHASH
#   no vX.Y.Z tag in the history        0.0.0-N-gHASH (N: commits in HEAD)
# with "-dirty" appended when tracked files differ from HEAD. HASH is the
# 12-digit abbreviated commit. Nothing in it depends on the time or the machine.
set -eu
cd "$(dirname "$0")/../.."
dirty=""
git diff --quiet HEAD -- 2>/dev/null || dirty="-dirty"
if d=$(git describe --tags --abbrev=12 --match 'v[0-9]*.[0-9]*.[0-9]*' HEAD 2>/dev/null); then
  echo "${d#v}$dirty"
else
  echo "0.0.0-$(git rev-list --count HEAD)-g$(git rev-parse --short=12 HEAD)$dirty"
fi
