# Steps the package checks share (scripts/check-package.sh, scripts/check-client-package.sh):
# sourced, not run. Each expects `fail` (scripts/lib/check-exit.sh, which the caller sources),
# `work` (its temporary directory) and the `server_pid` variable the EXIT trap reads.

# better-sqlite3 is the one dependency with an install script: without a prebuilt binary (no
# network but the registry) it compiles SQLite, which takes minutes. The checkout's install
# compiled the same version for the same Node already, so when the versions match that binary
# is copied into the app installed with --ignore-scripts in $1; otherwise its install script
# runs as it would for anyone.
reuse_sqlite_binary() {
  local app="$1"
  local built="node_modules/better-sqlite3/build/Release/better_sqlite3.node"
  local version='require(process.argv[1] + "/better-sqlite3/package.json").version'
  if [[ -f "$built" && "$(node -p "$version" "$PWD/node_modules")" == "$(node -p "$version" "$app/node_modules")" ]]; then
    mkdir -p "$app/$(dirname "$built")"
    cp "$built" "$app/$built"
    echo "   better-sqlite3 $(node -p "$version" "$PWD/node_modules"): binary of the checkout's install reused"
  else
    (cd "$app" && npm rebuild better-sqlite3 --loglevel=error) || fail "better-sqlite3 did not build"
  fi
}

# Starts `npx wsx serve` installed in $1 on a free port and a fresh SQLite file, with any further
# VAR=value arguments in its environment, in its own process group (setsid: npx and the node it
# started end together); waits for /healthz. Sets `base`, `server_pid`, and `token` and
# `project_key` from what the first start prints.
start_installed_server() {
  local app="$1"
  shift
  local port
  port="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')"
  base="http://127.0.0.1:$port"
  echo "-- npx wsx serve on $base"
  (
    cd "$app"
    exec env PORT="$port" HOST=127.0.0.1 DATABASE_URL="sqlite:$work/data/wsx.sqlite" LOG_LEVEL=warn "$@" \
      setsid npx --no-install wsx serve
  ) >"$work/serve.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 120); do
    curl -fsS -o /dev/null "$base/healthz" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || fail "wsx serve exited before answering /healthz"
    sleep 0.5
  done
  curl -fsS -o /dev/null "$base/healthz" || fail "/healthz did not answer within 60 s"
  token="$(grep -oE 'svc_pat_[0-9A-Za-z]+' "$work/serve.log" | head -n 1 || true)"
  project_key="$(sed -nE 's/^  Project key: ([A-Z0-9]+)$/\1/p' "$work/serve.log" | head -n 1)"
  [[ -n "$token" ]] || fail "the first start printed no token"
  [[ -n "$project_key" ]] || fail "the first start printed no project key"
}

# Sends SIGTERM to the server's whole group (npx exits on a SIGTERM without passing it on, so
# the server gets its own) and fails unless it has stopped within 10 s.
stop_installed_server() {
  echo "-- stop (SIGTERM)"
  kill -TERM -- "-$server_pid"
  wait "$server_pid" || true
  for _ in $(seq 1 40); do
    kill -0 -- "-$server_pid" 2>/dev/null || break
    sleep 0.25
  done
  kill -0 -- "-$server_pid" 2>/dev/null && fail "wsx serve still runs 10 s after SIGTERM"
  server_pid=""
}
