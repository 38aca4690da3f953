# Chute's container image (docs/install.md). Build: docker build -t chute .
#
# Stages: `node` (the base with Debian's Node.js), `build` (npm ci, the server and the dashboard built, then the
# development dependencies pruned) and the runtime stage, which carries only the built files, the production
# dependencies, Node.js and ffmpeg. Everything Chute keeps lives in the volume /data.
#
# The base is a build argument: any Debian-like image whose `nodejs` package is 20.19 or newer (debian:trixie-slim
# has 20.19). The classic builder builds it (no BuildKit features).
#
# Node.js: Debian's package, Node.js 20 on trixie. Node.js 20 reached its end of life upstream in April 2026, but
# Debian's security team keeps the nodejs of a stable release patched for that release's life (bookworm-security
# still ships fixes to its Node.js 18, upstream's end of life in April 2025), and a rebuild of the image picks them
# up. Chute's tests run on Node.js 20 and 24 (.ci/run), so a base whose nodejs is 24 works too.
ARG BASE_IMAGE=debian:trixie-slim

FROM ${BASE_IMAGE} AS node
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates nodejs \
 && rm -rf /var/lib/apt/lists/* \
 && node -e 'const [a, b] = process.versions.node.split(".").map(Number); if (a < 20 || (a === 20 && b < 19)) { console.error("Node.js " + process.versions.node + " is older than 20.19"); process.exit(1); }'

FROM node AS build
# npm, and what better-sqlite3 needs to compile when no prebuilt binary can be downloaded (Debian's node-gyp builds
# against Debian's Node.js headers, libnode-dev).
RUN apt-get update \
 && apt-get install -y --no-install-recommends npm python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Once more after emptying npm's cache when it fails: Debian's npm 9 races its own parallel downloads in its cache
# (EEXIST on a file in _cacache/tmp; seen in a clean-clone CI run, not again in the next build).
RUN npm ci --no-audit --no-fund \
 || { echo 'npm ci failed; emptying the npm cache and trying once more' >&2 \
      && npm cache clean --force && npm ci --no-audit --no-fund; }
COPY . .
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
           node_modules/better-sqlite3/build/Release/obj node_modules/better-sqlite3/build/Release/obj.target \
           node_modules/better-sqlite3/build/Release/test_extension.node \
           node_modules/better-sqlite3/build/Release/sqlite3.a \
 && find dist -name '*.map' -delete

FROM node
# ffmpeg makes the thumbnails of videos.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 1000 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin chute \
 && mkdir -p /data \
 && chown chute:chute /data \
 && ln -s /app/bin/chute.mjs /usr/local/bin/chute
WORKDIR /app
# package.json marks the installation's root: Chute finds its dashboard at web/dist next to it.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
# The list of common passwords new passwords are checked against (resources/README.md).
COPY --from=build /app/resources ./resources
# The chute command (docs/operations.md): `docker exec <container> chute doctor`; it runs the build (dist).
COPY --from=build /app/bin ./bin
COPY --from=build /app/web/dist ./web/dist
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=3000
USER chute
VOLUME /data
EXPOSE 3000
# Node.js is process 1 (exec form, no shell): `docker stop` sends SIGTERM straight to Chute, which closes cleanly.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/healthcheck').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
