#!/usr/bin/env bash
# The two base images of the Dockerfile made from Debian packages, for a machine that cannot pull
# node:20-bookworm and node:20-bookworm-slim from a registry (docs/deploy.md):
#
#   localhost/openrail-base:runtime   Debian minbase, nodejs, ca-certificates, postgresql-client
#   localhost/openrail-base:build     the same, plus python3, make, g++ and the Node.js headers
#                                     (libnode-dev) for node-gyp, and npm
#
#   scripts/debian-base.sh [cache-dir]
#   podman build --format docker --build-arg BASE=localhost/openrail-base:runtime \
#                --build-arg BUILD_BASE=localhost/openrail-base:build -t openrail .
#
# The suite is trixie (Debian 13): its nodejs is 20.19, bookworm's is 18, older than openrail
# needs. npm is the one Node.js 20.19 ships with, fetched from the npm registry (`npm pack`), as
# the node images carry it: Debian's own npm package brings some 350 packages with it, which took
# 2 min 40 s to install here.
#
# Both file systems come from one mmdebstrap run (the runtime one is a snapshot taken before the
# build tools go in) and are kept as tarballs in the cache directory (the argument, else
# $OPENRAIL_BASE_CACHE, else /tmp/openrail-debian-base): a later run only imports them. Delete the
# directory to make them again from the current packages.
#
# Certificate authorities this machine added to its trust store (/usr/local/share/ca-certificates,
# a proxy's for instance) are added to the bases' too: the build's npm must reach the registry as
# this machine does. Runs as root; needs mmdebstrap, podman and npm.
set -euo pipefail

SUITE=${DEBIAN_SUITE:-trixie}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
CACHE=${1:-${OPENRAIL_BASE_CACHE:-/tmp/openrail-debian-base}}
IMAGE=${OPENRAIL_BASE_IMAGE:-localhost/openrail-base}
NPM_VERSION=10.8.2
# Bump when the package lists or the hooks change, so that tarballs made by an older recipe are
# not used.
RECIPE=2
RUNTIME_PACKAGES=nodejs,ca-certificates,postgresql-client
BUILD_PACKAGES="python3 make g++ libnode-dev"

say() { printf 'debian-base: %s\n' "$*"; }
fail() {
  printf 'debian-base: %s\n' "$*" >&2
  exit 1
}

[ "$(id -u)" = 0 ] || fail "run as root (mmdebstrap and podman import)"
for tool in mmdebstrap podman npm; do
  command -v "$tool" >/dev/null || fail "$tool is missing"
done

mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
# One run at a time per cache (two test runs on one machine share it).
exec 9>"$CACHE/.lock"
flock 9
runtime_tar="$CACHE/$SUITE-r$RECIPE-runtime.tar"
build_tar="$CACHE/$SUITE-r$RECIPE-build.tar"
npm_tgz="$CACHE/npm-$NPM_VERSION.tgz"
started=$SECONDS

if [ ! -s "$runtime_tar" ] || [ ! -s "$build_tar" ]; then
  say "making $SUITE file systems from $MIRROR"
  rm -f "$runtime_tar" "$build_tar" "$runtime_tar.part" "$build_tar.part"
  if [ ! -s "$npm_tgz" ]; then
    (cd "$CACHE" && npm pack --silent "npm@$NPM_VERSION" >/dev/null)
  fi
  extra_cas=$(find /usr/local/share/ca-certificates -name '*.crt' 2>/dev/null | tr '\n' ' ')
  # The snapshot leaves out the package lists and caches (mmdebstrap cleans them at the end of
  # the run, after the snapshot), scratch files and the mount points' contents.
  snapshot='tar --numeric-owner --one-file-system -C "$1" --exclude=./proc/* --exclude=./sys/* --exclude=./dev/* --exclude=./tmp/* --exclude=./var/lib/apt/lists/* --exclude=./var/cache/apt/* -cf'
  install_npm='mkdir -p "$1/usr/local/lib/node_modules/npm" "$1/usr/local/bin"
    tar -xzf "'$npm_tgz'" -C "$1/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner
    ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"
    ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"'
  mmdebstrap --quiet --variant=minbase --format=tar --include="$RUNTIME_PACKAGES" \
    --customize-hook="for f in $extra_cas; do cp \"\$f\" \"\$1/usr/local/share/ca-certificates/\"; done" \
    --customize-hook='chroot "$1" update-ca-certificates >/dev/null 2>&1' \
    --customize-hook="$snapshot $runtime_tar.part ." \
    --customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $BUILD_PACKAGES >/dev/null" \
    --customize-hook="$install_npm" \
    "$SUITE" "$build_tar.part" "$MIRROR"
  mv "$runtime_tar.part" "$runtime_tar"
  mv "$build_tar.part" "$build_tar"
  say "file systems made in $((SECONDS - started)) s"
fi

# An image already imported from the same tarball is kept: a new import would be a new image, and
# every layer built on the old one would have to be built again.
import_base() {
  local tag=$1 tar=$2 stamp have
  shift 2
  stamp="$(basename "$tar")-$(stat -c '%s-%Y' "$tar")"
  have=$(podman image inspect --format '{{index .Labels "org.openrail.base-tarball"}}' "$tag" 2>/dev/null || true)
  [ "$have" = "$stamp" ] && return 0
  podman import --quiet --change "LABEL org.openrail.base-tarball=$stamp" --change 'ENV LANG=C.UTF-8' "$@" "$tar" "$tag" >/dev/null
}

import_base "$IMAGE:runtime" "$runtime_tar" --change 'CMD ["node"]'
# node-gyp builds against the headers libnode-dev put under /usr/include/node, not ones it
# would download from nodejs.org.
import_base "$IMAGE:build" "$build_tar" --change 'ENV npm_config_nodedir=/usr' --change 'CMD ["bash"]'
say "$IMAGE:runtime and $IMAGE:build ready in $((SECONDS - started)) s"
