#!/usr/bin/env bash
# Several RoPE Explorer processes behind nginx, with sticky sessions, in the foreground.
#
#   deploy/serve.sh [PROCESSES]        # default: one per CPU core (nproc)
#
# Starts PROCESSES `streamlit run app.py` servers on 127.0.0.1 (ports BACKEND_PORT, BACKEND_PORT+1, ...)
# and nginx on LISTEN (deploy/nginx.conf, filled in), waits until every process answers its health
# check, then runs until one of them ends or it is stopped (Ctrl-C, SIGTERM): everything it started
# stops together. Environment: LISTEN (default 0.0.0.0:8501), BACKEND_PORT (default 8601), NGINX
# (default nginx), PYTHON (default python3), LOG_DIR (default: a temporary folder, removed at the
# end), STREAMLIT_SERVER_COOKIE_SECRET (default: random, shared by
# the processes). nginx from Debian: apt-get install -y nginx.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROCESSES="${1:-${PROCESSES:-$(nproc)}}"
LISTEN="${LISTEN:-0.0.0.0:8501}"
BACKEND_PORT="${BACKEND_PORT:-8601}"
NGINX="${NGINX:-nginx}"
PYTHON="${PYTHON:-python3}"
[[ "$PROCESSES" =~ ^[1-9][0-9]*$ ]] || { echo "serve.sh: PROCESSES must be a positive integer" >&2; exit 2; }
command -v "$NGINX" >/dev/null || { echo "serve.sh: $NGINX not found (apt-get install -y nginx)" >&2; exit 2; }

# one secret for all processes: an XSRF cookie issued by one is accepted by the others
export STREAMLIT_SERVER_COOKIE_SECRET="${STREAMLIT_SERVER_COOKIE_SECRET:-$("$PYTHON" -c 'import secrets; print(secrets.token_hex(32))')}"
RUN="$(mktemp -d -t rope-explorer-serve.XXXXXX)"
chmod 755 "$RUN"  # nginx's workers (user nobody when started as root) read and write their temp files here
LOG_DIR="${LOG_DIR:-$RUN}"
mkdir -p "$LOG_DIR"
pids=()

stop() {
    trap - EXIT INT TERM
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$RUN"
}
trap stop EXIT
trap 'exit 0' INT TERM

servers=""
for ((i = 0; i < PROCESSES; i++)); do
    port=$((BACKEND_PORT + i))
    (cd "$ROOT" && exec "$PYTHON" -m streamlit run app.py --server.headless true --server.address 127.0.0.1 \
        --server.port "$port" --server.fileWatcherType none --browser.gatherUsageStats false \
        > "$LOG_DIR/app-$port.log" 2>&1) &
    pids+=("$!")
    servers+="server 127.0.0.1:$port max_fails=0; "
done

sed -e "s#__RUN__#$RUN#g" -e "s#__LISTEN__#$LISTEN#g" -e "s#__SERVERS__#$servers#g" \
    "$ROOT/deploy/nginx.conf" > "$RUN/nginx.conf"
"$NGINX" -t -q -p "$RUN" -c "$RUN/nginx.conf"

for ((i = 0; i < PROCESSES; i++)); do
    port=$((BACKEND_PORT + i))
    for ((tries = 0; ; tries++)); do
        if "$PYTHON" -c "import sys, urllib.request as u; sys.exit(u.urlopen('http://127.0.0.1:$port/_stcore/health', timeout=2).read() != b'ok')" 2>/dev/null; then
            break
        fi
        if ! kill -0 "${pids[$i]}" 2>/dev/null || ((tries > 360)); then
            echo "serve.sh: the app on port $port did not start; its output:" >&2
            tail -n 40 "$LOG_DIR/app-$port.log" >&2
            exit 1
        fi
        sleep 0.25
    done
done

# one visit of the home page per process before visitors come: the first script run imports torch,
# pandas and Plotly (several seconds), and no visitor should wait for that (WARM_UP=0 skips it)
if [[ "${WARM_UP:-1}" != 0 ]]; then
    warm=()
    for ((i = 0; i < PROCESSES; i++)); do
        (cd "$ROOT" && "$PYTHON" -c "import asyncio, sys; from support.protocol import visit
sys.exit(not asyncio.run(visit('http://127.0.0.1:$((BACKEND_PORT + i))', timeout=120)).run.ok)") \
            || echo "serve.sh: the warm-up visit of port $((BACKEND_PORT + i)) failed (serving anyway)" >&2 &
        warm+=("$!")
    done
    for pid in "${warm[@]}"; do wait "$pid" || true; done
fi

"$NGINX" -p "$RUN" -c "$RUN/nginx.conf" -g "daemon off;" &
pids+=("$!")
echo "serve.sh: $PROCESSES app processes on 127.0.0.1:$BACKEND_PORT.. behind nginx on $LISTEN (logs in $LOG_DIR)"
# run until any of them ends, then stop the rest (the EXIT trap)
wait -n "${pids[@]}"
echo "serve.sh: a process ended; stopping" >&2
exit 1
