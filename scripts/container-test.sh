#!/usr/bin/env bash
# Builds Chute's container image (Dockerfile) and checks it from outside, as an admin runs it (docs/install.md):
# first-user setup, login and token, an upload downloaded byte-exact, the data kept across a restart and across a new
# container on the same volume, `docker stop` ending within 10 s, Node.js as a non-root process 1, nothing written
# outside the volume /data, the dashboard served, ffmpeg working. Once with SQLite on the volume, once against
# PostgreSQL. Validates the compose files and reports the image size and the cold start (docker run to a passing
# health check). .ci/run calls it.
#
# Needs Debian's docker.io (dockerd is started when it is not running, and stopped again at the end), debootstrap
# (only when the base image is missing), curl, node and psql. Every container uses the host network and listens on
# 127.0.0.1 only.
#
# Environment:
#   CHUTE_IMAGE                tag to build (default chute:test)
#   BASE_IMAGE                 the Dockerfile's base (default debian:trixie-slim; made here with debootstrap when
#                              missing, as this machine reaches no container registry)
#   DEBIAN_MIRROR              debootstrap's mirror (default http://deb.debian.org/debian)
#   CONTAINER_TEST_POSTGRES    PostgreSQL server whose user may create databases (default
#                              postgres://postgres@127.0.0.1:5432); empty skips the PostgreSQL run
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${CHUTE_IMAGE:-chute:test}
BASE_IMAGE=${BASE_IMAGE:-debian:trixie-slim}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
POSTGRES=${CONTAINER_TEST_POSTGRES-postgres://postgres@127.0.0.1:5432}

started=$(date +%s)
log() { echo "-- [$(($(date +%s) - started))s] $*"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
now() { date +%s.%N; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

work=$(mktemp -d)
run="ct$$"
dockerd_pid=""
containers=()
volumes=()
databases=()

cleanup() {
  local status=$?
  set +e
  if [ "$status" -ne 0 ]; then
    for c in "${containers[@]}"; do
      echo "--- docker logs $c (last 40 lines)" >&2
      docker logs --tail 40 "$c" >&2 2>&1
    done
  fi
  for c in "${containers[@]}"; do docker rm -f "$c" >/dev/null 2>&1; done
  for v in "${volumes[@]}"; do docker volume rm -f "$v" >/dev/null 2>&1; done
  for d in "${databases[@]}"; do psql "$POSTGRES/postgres" -qc "DROP DATABASE IF EXISTS $d" >/dev/null 2>&1; done
  if [ -n "$dockerd_pid" ]; then
    [ "$status" -eq 0 ] || tail -n 20 "$work/dockerd.log" >&2
    kill "$dockerd_pid" 2>/dev/null
    wait "$dockerd_pid" 2>/dev/null
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

# One field of the JSON on stdin, by a dotted path (files.0.name).
json() {
  node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      let v = JSON.parse(s);
      for (const k of process.argv[1].split(".")) v = v?.[k];
      console.log(typeof v === "object" ? JSON.stringify(v) : String(v));
    });' "$1"
}

free_port() {
  node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

# --- dockerd ---------------------------------------------------------------------------------------------------------
if ! docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null || fail "dockerd is missing (apt-get install docker.io)"
  log "starting dockerd"
  dockerd >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$dockerd_pid" 2>/dev/null || { cat "$work/dockerd.log" >&2; fail "dockerd exited"; }
    sleep 1
  done
  docker info >/dev/null 2>&1 || fail "dockerd did not answer within 60 s"
fi

# --- the base image ----------------------------------------------------------------------------------------------------
if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  [ "$BASE_IMAGE" = debian:trixie-slim ] || fail "the base image $BASE_IMAGE is missing"
  command -v debootstrap >/dev/null || fail "debootstrap is missing (apt-get install debootstrap)"
  log "making $BASE_IMAGE locally: debootstrap --variant=minbase trixie, then docker import"
  rootfs="$work/rootfs"
  debootstrap --variant=minbase trixie "$rootfs" "$DEBIAN_MIRROR" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 30 "$work/debootstrap.log" >&2; fail "debootstrap failed"; }
  # The host's own certificate authorities (e.g. a proxy's): `apt-get install ca-certificates` in the image trusts them.
  mkdir -p "$rootfs/usr/local/share/ca-certificates"
  if [ -d /usr/local/share/ca-certificates ]; then
    cp -r /usr/local/share/ca-certificates/. "$rootfs/usr/local/share/ca-certificates/"
  fi
  # The same sources as Debian's own image: the release, its updates and security.
  rm -f "$rootfs/etc/apt/sources.list"
  cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $DEBIAN_MIRROR
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${DEBIAN_MIRROR%/debian}/debian-security
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import --change 'CMD ["bash"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
fi

# --- build -------------------------------------------------------------------------------------------------------------
log "docker build -t $IMAGE (base $BASE_IMAGE)"
build_start=$(now)
if ! docker build --network host --build-arg BASE_IMAGE="$BASE_IMAGE" -t "$IMAGE" . >"$work/build.log" 2>&1; then
  tail -n 60 "$work/build.log" >&2
  fail "docker build failed"
fi
grep '^Step ' "$work/build.log" | cut -c1-110 || true
image_mb=$(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{ printf "%.0f", $1 / 1000000 }')
log "built in $(seconds_since "$build_start") s; image size: $image_mb MB"

user=$(docker image inspect -f '{{.Config.User}}' "$IMAGE")
[ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] || fail "the image runs as '$user', not as a non-root user"
docker image inspect -f '{{json .Config.Volumes}}' "$IMAGE" | grep -q '"/data"' || fail "the image declares no volume /data"

# --- one run: SQLite on the volume, or PostgreSQL ----------------------------------------------------------------------
port=""
base=""

# Starts a container on the volume; prints nothing. Extra arguments are docker run options (-e ...).
start_container() {
  local name=$1 volume=$2
  shift 2
  docker run -d --name "$name" --network host -v "$volume:/data" -e HOST=127.0.0.1 -e PORT="$port" \
    --health-interval 1s --health-start-period 60s "$@" "$IMAGE" >/dev/null
}

# Waits until the health check answers from outside, then until Docker's own HEALTHCHECK says healthy.
wait_healthy() {
  local name=$1 i
  for i in $(seq 1 600); do
    curl -sf "$base/api/healthcheck" >/dev/null 2>&1 && break
    [ "$(docker inspect -f '{{.State.Running}}' "$name")" = true ] || fail "$name exited before it was healthy"
    sleep 0.1
  done
  curl -sf "$base/api/healthcheck" >/dev/null || fail "$name: /api/healthcheck did not pass within 60 s"
  for i in $(seq 1 60); do
    [ "$(docker inspect -f '{{.State.Health.Status}}' "$name")" = healthy ] && return 0
    sleep 0.5
  done
  fail "$name: Docker's HEALTHCHECK did not report healthy"
}

# Downloads the uploaded file both ways and compares it byte for byte.
check_download() {
  local name=$1 what=$2
  curl -sf "$base/raw/$name" -o "$work/raw.out" || fail "$what: GET /raw/$name failed"
  cmp -s "$work/upload.bin" "$work/raw.out" || fail "$what: /raw/$name differs from the uploaded bytes"
  curl -sf "$base/u/$name" -o "$work/u.out" || fail "$what: GET /u/$name failed"
  cmp -s "$work/upload.bin" "$work/u.out" || fail "$what: /u/$name differs from the uploaded bytes"
}

check_run() {
  local label=$1 database_url=$2
  local name="chute-$run-$label" volume="chute-$run-$label-data"
  local env=()
  [ -z "$database_url" ] || env=(-e DATABASE_URL="$database_url")
  port=$(free_port)
  base="http://127.0.0.1:$port"
  volumes+=("$volume")
  docker volume create "$volume" >/dev/null

  log "$label: docker run (port $port)"
  containers+=("$name")
  local t0
  t0=$(now)
  start_container "$name" "$volume" "${env[@]}"
  wait_healthy "$name"
  log "$label: cold start to a passing health check: $(seconds_since "$t0") s"

  # Node.js is process 1 (no shell between docker and Chute) and runs as a non-root user.
  local pid uid comm
  pid=$(docker inspect -f '{{.State.Pid}}' "$name")
  comm=$(cat "/proc/$pid/comm")
  uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")
  [ "$comm" = node ] || fail "$label: process 1 is '$comm', not node"
  [ "$uid" != 0 ] || fail "$label: node runs as root"
  [ "$(docker exec "$name" id -u)" = "$uid" ] || fail "$label: docker exec sees another user"

  # First-user setup, login, the API token.
  [ "$(curl -sf "$base/api/setup" | json firstSetup)" = true ] || fail "$label: GET /api/setup is not in first setup"
  local answer
  answer=$(curl -sf -X POST "$base/api/setup" -H 'content-type: application/json' \
    -d '{"username":"admin","password":"container-test-password"}') || fail "$label: POST /api/setup failed"
  [ "$(echo "$answer" | json user.role)" = SUPERADMIN ] || fail "$label: setup did not make a SUPERADMIN: $answer"
  curl -sf -c "$work/cookies" -X POST "$base/api/auth/login" -H 'content-type: application/json' \
    -d '{"username":"admin","password":"container-test-password"}' >/dev/null || fail "$label: login failed"
  local token
  token=$(curl -sf -b "$work/cookies" "$base/api/user/token" | json token)
  [ -n "$token" ] && [ "$token" != undefined ] || fail "$label: no API token"

  # An upload, downloaded byte-exact.
  head -c 3000000 /dev/urandom >"$work/upload.bin"
  answer=$(curl -sf "$base/api/upload" -H "Authorization: $token" -F "file=@$work/upload.bin") \
    || fail "$label: upload failed"
  local file
  file=$(echo "$answer" | json files.0.name)
  [ "$(echo "$answer" | json files.0.size)" = 3000000 ] || fail "$label: upload answered $answer"
  check_download "$file" "$label"
  log "$label: setup, login, token, upload of 3 MB ($file) and download byte-exact: ok"

  # All state is in /data: the container's own filesystem is unchanged.
  local listing changed
  listing=$(docker exec "$name" ls -A /data | tr '\n' ' ')
  for f in uploads tmp secret; do
    [[ " $listing " == *" $f "* ]] || fail "$label: /data has no $f ($listing)"
  done
  if [ -z "$database_url" ]; then
    [[ " $listing " == *" chute.db "* ]] || fail "$label: the SQLite database is not in /data ($listing)"
  else
    [[ " $listing " != *" chute.db "* ]] || fail "$label: a SQLite database appeared in /data with DATABASE_URL set"
  fi
  # The dashboard (/ leads to /dashboard) is served from the image's web/dist, found next to package.json; ffmpeg runs.
  local page asset
  page=$(curl -sfL "$base/") || fail "$label: GET / failed"
  asset=$(echo "$page" | grep -o '/assets/[^"]*\.js' | head -n 1 || true)
  [ -n "$asset" ] || fail "$label: GET / is not the built dashboard: $(echo "$page" | head -c 300)"
  curl -sf "$base$asset" -o /dev/null || fail "$label: the dashboard's $asset is not served"
  docker exec "$name" ffmpeg -v error -f lavfi -i testsrc=duration=1:size=160x90:rate=10 -frames:v 1 \
    -f image2pipe -c:v png - >"$work/frame.png" || fail "$label: ffmpeg does not run in the container"
  [ "$(head -c 4 "$work/frame.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] || fail "$label: ffmpeg made no PNG"

  # The chute command runs in the container with its configuration, and writes nothing outside /data either.
  [ "$(docker exec "$name" chute user list)" = "admin SUPERADMIN" ] || fail "$label: chute user list is wrong"
  docker exec "$name" chute doctor >"$work/doctor.txt" || fail "$label: chute doctor failed: $(cat "$work/doctor.txt")"
  grep -q '^ok    storage: ' "$work/doctor.txt" || fail "$label: chute doctor did not check the storage"

  changed=$(docker diff "$name")
  [ -z "$changed" ] || fail "$label: files written outside /data: $changed"
  log "$label: /data holds: $listing; nothing written outside it; node runs as uid $uid; dashboard served; ffmpeg makes a frame: ok"

  # docker stop: SIGTERM reaches Node, which closes and exits 0 well within docker's 10 s.
  t0=$(now)
  docker stop "$name" >/dev/null
  local stop_s exit_code
  stop_s=$(seconds_since "$t0")
  exit_code=$(docker inspect -f '{{.State.ExitCode}}' "$name")
  [ "$exit_code" = 0 ] || fail "$label: after docker stop the exit code is $exit_code (137: killed after 10 s)"
  awk -v s="$stop_s" 'BEGIN { exit !(s < 10) }' || fail "$label: docker stop took $stop_s s"
  log "$label: docker stop took $stop_s s, exit code 0: ok"

  # The same container started again keeps the data, the token and the secret.
  docker start "$name" >/dev/null
  wait_healthy "$name"
  check_download "$file" "$label after a restart"
  curl -sf "$base/api/user" -H "Authorization: $token" >/dev/null || fail "$label: the token no longer works after a restart"

  # A new container on the same volume (what an upgrade does) keeps everything too.
  docker stop "$name" >/dev/null
  docker rm "$name" >/dev/null
  start_container "$name" "$volume" "${env[@]}"
  wait_healthy "$name"
  check_download "$file" "$label in a new container"
  curl -sf "$base/api/user" -H "Authorization: $token" >/dev/null || fail "$label: the token no longer works in a new container"
  [ "$(curl -sf "$base/api/setup" | json firstSetup)" = false ] || fail "$label: a new container is back in first setup"
  log "$label: data, token and setup kept across a restart and a new container on the volume: ok"

  docker stop "$name" >/dev/null
  docker rm "$name" >/dev/null
}

check_run sqlite ""

if [ -n "$POSTGRES" ]; then
  db="chute_container_test_$$"
  psql "$POSTGRES/postgres" -v ON_ERROR_STOP=1 -qc "CREATE DATABASE $db" >/dev/null || fail "cannot create $db on $POSTGRES"
  databases+=("$db")
  check_run postgres "$POSTGRES/$db"
else
  log "CONTAINER_TEST_POSTGRES is empty: the PostgreSQL run is skipped"
fi

# --- compose files ------------------------------------------------------------------------------------------------------
if command -v docker-compose >/dev/null; then
  compose=(docker-compose)
elif docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
else
  fail "neither docker-compose nor docker compose is installed"
fi
for f in compose.yaml compose.s3.yaml; do
  POSTGRES_PASSWORD=check S3_BUCKET=check S3_ACCESS_KEY_ID=check S3_SECRET_ACCESS_KEY=check \
    "${compose[@]}" -f "$f" config -q || fail "$f is not a valid compose file"
  COMPOSE_PROFILES=redis POSTGRES_PASSWORD=check REDIS_URL=redis://redis:6379 S3_BUCKET=check \
    S3_ACCESS_KEY_ID=check S3_SECRET_ACCESS_KEY=check "${compose[@]}" -f "$f" config -q \
    || fail "$f with the redis profile is not a valid compose file"
done
log "compose.yaml and compose.s3.yaml: valid (${compose[*]} config)"

log "container checks passed; image $IMAGE: $image_mb MB"
