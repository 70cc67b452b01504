#!/usr/bin/env bash
# with-redis-cluster.sh runs a command with a private Redis Cluster of three
# primaries (no replicas) on free loopback ports, its URL in E2E_REDIS_URL
# (redis+cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3), and removes the
# cluster afterwards, whatever the command's outcome:
#
#   e2e/with-redis-cluster.sh npm run test-cluster
#
# Each node's cluster bus port is given explicitly (--cluster-port): by
# default it is the port + 10000, which a free port above 55535 cannot have.
# Needs redis-server and redis-cli (Redis 7, for sharded pub/sub) and node,
# which picks the free ports.
set -euo pipefail

PRIMARIES=3
dir=$(mktemp -d "${TMPDIR:-/tmp}/roost-redis-cluster.XXXXXX")
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT

# Free ports: two per node (client and bus), chosen by the kernel at once so
# that none repeats.
read -ra ports < <(node -e '
  const net = require("node:net");
  const n = Number(process.argv[1]);
  const servers = Array.from({ length: n }, () => net.createServer());
  Promise.all(servers.map((s) => new Promise((ok) => s.listen(0, "127.0.0.1", ok)))).then(() => {
    console.log(servers.map((s) => s.address().port).join(" "));
    servers.forEach((s) => s.close());
  });' $((2 * PRIMARIES)))

seeds=()
for i in $(seq 0 $((PRIMARIES - 1))); do
  port=${ports[$((2 * i))]} bus=${ports[$((2 * i + 1))]}
  mkdir -p "$dir/$port"
  redis-server --bind 127.0.0.1 --port "$port" --cluster-enabled yes --cluster-port "$bus" \
    --cluster-config-file nodes.conf --cluster-node-timeout 2000 --dir "$dir/$port" \
    --save "" --appendonly no --logfile "$dir/$port/redis.log" &
  pids+=($!)
  seeds+=("127.0.0.1:$port")
done

up() { redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null | grep -q PONG; }
for s in "${seeds[@]}"; do
  for _ in $(seq 100); do up "${s#*:}" && break; sleep 0.1; done
  up "${s#*:}" || { echo "redis-server on $s did not start:" >&2; cat "$dir/${s#*:}/redis.log" >&2; exit 1; }
done

redis-cli --cluster create "${seeds[@]}" --cluster-replicas 0 --cluster-yes >"$dir/create.log" 2>&1 ||
  { echo "redis-cli --cluster create failed:" >&2; cat "$dir/create.log" >&2; exit 1; }

# Every node must see the cluster ok (every slot served) before roost joins.
ok() {
  for s in "${seeds[@]}"; do
    redis-cli -h 127.0.0.1 -p "${s#*:}" cluster info 2>/dev/null | grep -q 'cluster_state:ok' || return 1
  done
}
for _ in $(seq 300); do ok && break; sleep 0.1; done
ok || { echo "the Redis Cluster on ${seeds[*]} never reported cluster_state:ok" >&2; exit 1; }

E2E_REDIS_URL="redis+cluster://$(IFS=,; echo "${seeds[*]}")"
export E2E_REDIS_URL
echo "with-redis-cluster: E2E_REDIS_URL=$E2E_REDIS_URL" >&2
"$@"
