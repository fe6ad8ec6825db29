# openrail's image: `openrail serve` as an unprivileged user, its data in the /data volume,
# configured by the environment variables of the README, healthy when GET /readyz answers 200.
# How to build it (on the usual node images, or on bases made of Debian packages with
# scripts/debian-base.sh) and run it: docs/deploy.md.
#
# BUILD_BASE compiles the dependencies, BASE runs the service: both need Node.js 20.19 or newer
# and a Debian-like system (apt-get, useradd); BUILD_BASE also needs npm, python3, make and g++,
# which are installed here when missing.
ARG BUILD_BASE=node:20-bookworm
ARG BASE=node:20-bookworm-slim

FROM ${BUILD_BASE} AS build
RUN set -eu; need=""; \
    for tool in npm python3 make g++; do command -v "$tool" >/dev/null || need="$need $tool"; done; \
    if [ -n "$need" ]; then \
      apt-get update -qq; \
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null; \
      rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /app
# The production dependencies alone, in a layer of their own (it changes with the lock file
# only). The package's own `prepare` wants the sources, so scripts are off for `npm ci`; `npm
# rebuild` then runs the dependencies' install scripts, which build better-sqlite3 and pkcs11js.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier && npm rebuild
# What the service never reads: TypeScript (--omit=dev keeps it, since valibot names it as an
# optional peer), and the native modules' SQLite sources and object files (their .node files stay).
RUN rm -rf node_modules/typescript node_modules/@typescript node_modules/.bin/tsc \
      node_modules/better-sqlite3/deps \
      node_modules/better-sqlite3/build/Release/obj node_modules/better-sqlite3/build/Release/obj.target \
      node_modules/pkcs11js/build/Release/obj.target
COPY scripts/record-build.ts scripts/
COPY bin bin
COPY src src
# What `prepare` does on `npm install`: records the commit and the sources' digest (GET /build).
# The context has no .git, so the commit comes from this argument (`git rev-parse HEAD`).
ARG OPENRAIL_COMMIT=unknown
RUN OPENRAIL_COMMIT="$OPENRAIL_COMMIT" node --import tsx scripts/record-build.ts

FROM ${BASE}
# pg_dump and pg_restore, which backups and restore drills run on PostgreSQL (docs/operations.md):
# the client's major version must be the server's or newer. `--build-arg PG_CLIENT=` leaves them out.
ARG PG_CLIENT=postgresql-client
RUN set -eu; \
    if [ -n "$PG_CLIENT" ] && ! command -v pg_dump >/dev/null; then \
      apt-get update -qq; \
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PG_CLIENT >/dev/null; \
      rm -rf /var/lib/apt/lists/*; \
    fi; \
    groupadd --gid 10001 openrail; \
    useradd --uid 10001 --gid openrail --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin openrail; \
    mkdir -p /data; chown openrail:openrail /data; chmod 0700 /data
# The code belongs to root and is read-only to the service; only /data is written.
WORKDIR /app
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/build-info.json ./
COPY package.json package-lock.json tsconfig.json README.md ./
COPY bin bin
COPY src src
COPY docs docs
# What `prepare` does next: the bundle bin/openrail.js runs (build/), made here beside the very
# files it is stamped with, so that it is current (docs/decisions/0028-run-the-bundle-built-from-the-sources.md).
COPY scripts/build.ts scripts/
RUN node --import tsx scripts/build.ts
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    OPENRAIL_DATA_DIR=/data
USER 10001:10001
# The SQLite file, the master key when generated, backups and the mail outbox (OPENRAIL_DATA_DIR).
VOLUME ["/data"]
EXPOSE 3000
# GET /readyz with node itself (the image has no curl): 200 is healthy, anything else is not.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const h = process.env.HOST; const host = !h || h === '0.0.0.0' || h === '::' ? '127.0.0.1' : h.includes(':') ? `[${h}]` : h; fetch(`http://${host}:${process.env.PORT || 3000}/readyz`, { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1));"]
# A young generation of 2 MB per semi-space rather than V8's 16: about 25 MB less resident from the
# start, at no CPU cost the issuance bench could measure (docs/scaling.md, "Memory").
ENTRYPOINT ["node", "--max-semi-space-size=2", "/app/bin/openrail.js"]
CMD ["serve"]
