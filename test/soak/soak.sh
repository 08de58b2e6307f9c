#!/usr/bin/env bash
# The attack-mix soak of issue 13 (docs/benchmarks.md, "Soak: a tenant under
# attack"): a two-tenant server with API keys on loopback; first the light
# tenant's normal traffic alone (the baseline), then the same traffic beside
# the heavy tenant's worst-case calls, an initialize flood on the heavy key,
# 150 idle connections and 20 requests that announce a body and never send
# it. Prints both runs' latency and the server's memory.
#
# usage: test/soak/soak.sh ADSMCP_BINARY DEMO_WAREHOUSE [SECONDS]
#   (the warehouse: adsmcp demo --anchor $(date +%F) --db /tmp/demo.duckdb)
set -euo pipefail
BIN=$1; DB=$2; DUR=${3:-40}; PORT=18080
dir=$(mktemp -d); cd "$dir"
key() { "$BIN" keygen --id "$1" --tenant "$1" > "$1.txt"; grep -o 'adsmcp_[A-Za-z0-9]*' "$1.txt" | head -1; }
HK=$(key heavy); LK=$(key light)
sha() { grep sha256 "$1.txt" | awk '{print $2}'; }
cat > soak.yaml <<YAML
database: $DB
http:
  listen: 127.0.0.1:$PORT
tenants:
  heavy: {accounts: ["*"]}
  light: {accounts: ["*"]}
auth:
  api_keys:
    - {id: heavy, sha256: $(sha heavy), tenant: heavy}
    - {id: light, sha256: $(sha light), tenant: light}
limits:
  requests_per_minute: 100000
  max_concurrent: 4
YAML
"$BIN" serve --config soak.yaml > server.log 2>&1 & PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.2; done
URL=http://127.0.0.1:$PORT/mcp
light() { "$BIN" load --url $URL --header "Authorization: Bearer $LK" --sessions 4 --duration "${DUR}s" --mix small=9,flagship=1 --pid $PID > "$1.txt" 2>&1 || true; }
light baseline
"$BIN" load --url $URL --header "Authorization: Bearer $HK" --sessions 4 --duration "${DUR}s" --mix worst=1 --client heavy-bot > heavy.txt 2>&1 &
python3 - "$PORT" "$DUR" > slow.txt <<'PY' &
import socket, sys, time
port, dur = int(sys.argv[1]), int(sys.argv[2])
conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(150)]
for _ in range(20):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n")
    conns.append(s)
time.sleep(dur + 5)
answered = 0
for s in conns:
    s.setblocking(False)
    try:
        s.recv(1); answered += 1   # closed ("" ) or answered (a status line)
    except BlockingIOError:
        pass
    except OSError:
        answered += 1
print(f"slow clients: {len(conns)} idle or silent connections; {answered} closed or answered by the server")
PY
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}'
( end=$((SECONDS+DUR)); n=0; c=0
  while [ $SECONDS -lt $end ]; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $HK" -H 'Content-Type: application/json' \
      -H 'Accept: application/json, text/event-stream' -d "$INIT" $URL); n=$((n+1)); [ "$code" = 429 ] && c=$((c+1))
  done; echo "session flood: $n initialize on the heavy key, $c refused 429" > flood.txt ) &
light attacked
wait $(jobs -p | grep -v "^$PID$") 2>/dev/null || true
for f in baseline attacked heavy; do echo "== $f"; sed -n 3,9p $f.txt; grep "^| RSS" $f.txt || true; done
cat flood.txt slow.txt
