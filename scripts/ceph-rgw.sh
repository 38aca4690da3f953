#!/usr/bin/env bash
# A real S3-compatible server for the tests: a single-node Ceph cluster (one monitor, one RAM-backed OSD) and its
# RADOS Gateway, on loopback only, everything inside one run folder (recipe: ../shared/recipes/ceph-rgw.md).
#
#   scripts/ceph-rgw.sh start   installs radosgw/ceph-mon/ceph-osd with apt-get if missing, starts the cluster, creates
#                               a user, waits for the gateway and writes $CEPH_RGW_DIR/env:
#                                 TEST_S3_ENDPOINT=http://127.0.0.1:PORT TEST_S3_ACCESS_KEY=... TEST_S3_SECRET_KEY=...
#                               (test/support/s3.ts reads that file when the variables are not set). Idempotent: when
#                               a gateway from this folder already answers, it is reused.
#   scripts/ceph-rgw.sh stop    kills the daemons (the pids in the run folder) and removes the folder.
#   scripts/ceph-rgw.sh env     prints the env file (for: set -a; eval "$(scripts/ceph-rgw.sh env)"; set +a).
#   scripts/ceph-rgw.sh status  exit status 0 when a gateway from the run folder answers.
#
# Variables: CEPH_RGW_DIR (default /tmp/chute-ceph-rgw), CEPH_RGW_PORT (default 7480), CEPH_MON_PORT (default 6789),
# CEPH_MON_V2_PORT (default 3300).
set -euo pipefail

DIR=${CEPH_RGW_DIR:-/tmp/chute-ceph-rgw}
RGW_PORT=${CEPH_RGW_PORT:-7480}
MON_PORT=${CEPH_MON_PORT:-6789}
MON_V2_PORT=${CEPH_MON_V2_PORT:-3300}
CONF="$DIR/ceph.conf"
ENV_FILE="$DIR/env"
ACCESS_KEY=chutetestaccesskey
SECRET_KEY=chutetestsecretkey0123456789abcdefghij

log() { echo "ceph-rgw: $*" >&2; }

answers() { curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$RGW_PORT/"; }

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

install_packages() {
  if command -v radosgw >/dev/null && command -v ceph-mon >/dev/null && command -v ceph-osd >/dev/null \
    && command -v radosgw-admin >/dev/null && command -v curl >/dev/null; then
    return
  fi
  log "installing radosgw ceph-mon ceph-osd (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends radosgw ceph-mon ceph-osd curl >/dev/null
}

stop() {
  if [ -d "$DIR" ]; then
    for pidfile in "$DIR"/run/*.pid; do
      [ -e "$pidfile" ] || continue
      pid=$(cat "$pidfile")
      kill "$pid" 2>/dev/null || true
    done
    for pidfile in "$DIR"/run/*.pid; do
      [ -e "$pidfile" ] || continue
      pid=$(cat "$pidfile")
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    done
    rm -rf "$DIR"
  fi
  log "stopped"
}

write_conf() {
  local fsid=$1
  mkdir -p "$DIR/run" "$DIR/log" "$DIR/mon/a" "$DIR/osd/0" "$DIR/rgw"
  cat >"$CONF" <<EOF
[global]
fsid = $fsid
mon_host = [v2:127.0.0.1:$MON_V2_PORT,v1:127.0.0.1:$MON_PORT]
mon_initial_members = a
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
ms_mon_client_mode = crc
ms_client_mode = crc
ms_bind_ipv6 = false
public_network = 127.0.0.0/8
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
mon_max_pg_per_osd = 1000
osd_crush_chooseleaf_type = 0
osd_objectstore = memstore
memstore_device_bytes = 2147483648
run_dir = $DIR/run
admin_socket = $DIR/run/\$cluster-\$name.asok
log_file = $DIR/log/\$cluster-\$name.log
pid_file = $DIR/run/\$cluster-\$name.pid

[mon.a]
mon_data = $DIR/mon/a
public_addr = 127.0.0.1

[osd.0]
osd_data = $DIR/osd/0

[client.rgw.a]
rgw_frontends = beast endpoint=127.0.0.1:$RGW_PORT
rgw_data = $DIR/rgw
# Free the RAM of deleted objects and aborted multipart parts within seconds (the default waits 2 hours), so that
# repeated test runs do not fill the RAM-backed OSD (a full OSD blocks every write).
rgw_gc_obj_min_wait = 0
rgw_gc_processor_period = 5
rgw_gc_processor_max_time = 5
EOF
}

start() {
  install_packages
  mkdir -p "$(dirname "$DIR")"
  # A gateway that already answers is reused without waiting for the lock (daemons started by an older copy of this
  # script inherited the lock's descriptor and hold it for as long as they run).
  if [ -f "$ENV_FILE" ] && answers; then
    log "already running at http://127.0.0.1:$RGW_PORT (reusing)"
    cat "$ENV_FILE"
    return
  fi
  exec 9>"$DIR.lock"
  if ! flock -w 300 9; then
    log "another start has held $DIR.lock for 5 minutes; giving up"
    exit 1
  fi
  if [ -f "$ENV_FILE" ] && answers; then
    log "already running at http://127.0.0.1:$RGW_PORT (reusing)"
    cat "$ENV_FILE"
    return
  fi
  [ -d "$DIR" ] && stop
  for port in "$RGW_PORT" "$MON_PORT" "$MON_V2_PORT"; do
    if port_busy "$port"; then
      log "port $port on 127.0.0.1 is already in use (set CEPH_RGW_PORT / CEPH_MON_PORT / CEPH_MON_V2_PORT)"
      exit 1
    fi
  done
  local fsid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  write_conf "$fsid"
  local started=$SECONDS
  trap 'log "start failed; logs in $DIR/log"; tail -n 20 "$DIR"/log/*.log >&2 || true' ERR

  log "monitor"
  monmaptool --create --clobber --addv a "[v2:127.0.0.1:$MON_V2_PORT,v1:127.0.0.1:$MON_PORT]" --fsid "$fsid" \
    "$DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap"
  ceph-mon -c "$CONF" -i a 9>&-

  log "osd"
  ceph -c "$CONF" osd create >/dev/null
  ceph-osd -c "$CONF" -i 0 --mkfs 2>/dev/null
  ceph-osd -c "$CONF" -i 0 2>>"$DIR/log/osd-start.log" 9>&-

  log "gateway on 127.0.0.1:$RGW_PORT"
  radosgw -c "$CONF" -n client.rgw.a 9>&-
  for _ in $(seq 1 120); do
    answers && break
    sleep 0.5
  done
  if ! answers; then
    log "the gateway did not answer within 60 s"
    false
  fi

  radosgw-admin -c "$CONF" user create --uid=test --display-name=test \
    --access-key="$ACCESS_KEY" --secret="$SECRET_KEY" >/dev/null
  cat >"$ENV_FILE.partial" <<EOF
TEST_S3_ENDPOINT=http://127.0.0.1:$RGW_PORT
TEST_S3_ACCESS_KEY=$ACCESS_KEY
TEST_S3_SECRET_KEY=$SECRET_KEY
EOF
  mv "$ENV_FILE.partial" "$ENV_FILE"
  trap - ERR
  log "ready in $((SECONDS - started)) s; env in $ENV_FILE"
  cat "$ENV_FILE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) cat "$ENV_FILE" ;;
  status) [ -f "$ENV_FILE" ] && answers ;;
  *)
    echo "usage: $0 start|stop|env|status" >&2
    exit 2
    ;;
esac
