#!/usr/bin/env bash
# The package as people install it: `npm pack`, install the tarball into an empty directory,
# start `npx wsx serve` on a fresh SQLite file, and use the token and project its first
# start prints. Catches what the tests cannot see from the checkout: a file missing from the
# tarball, a dependency only development installs, a broken `wsx` executable.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

work="$(mktemp -d "${TMPDIR:-/tmp}/wsx-package-XXXXXX")"
server_pid=""
cleanup() {
  # The server runs in its own process group (setsid): after a failure, npx and the node it
  # started end together.
  if [[ -n "$server_pid" ]] && kill -0 -- "-$server_pid" 2>/dev/null; then
    kill -KILL -- "-$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "check-package: $*" >&2
  [[ -f "$work/serve.log" ]] && sed 's/^/  serve| /' "$work/serve.log" >&2
  exit 1
}

echo "-- npm pack"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
[[ -f "$tarball" ]] || fail "npm pack wrote no tarball"
# Exactly what serving needs: the manifest, the bundled build, the README (and a LICENSE, if
# any), and the docs the README links to, so its links work in an installed package too.
unexpected="$(tar -tzf "$tarball" | grep -vE '^package/(package\.json|README\.md|LICENSE|dist/.+\.js|docs/.+\.md|examples/[^/]+\.(md|ts|json))$' || true)"
[[ -z "$unexpected" ]] || fail "unexpected files in $(basename "$tarball"):"$'\n'"$unexpected"
packed="$(tar -tzf "$tarball")"
for linked in $(grep -oE '\]\((docs|examples)/[^)#]+' README.md | sed 's/^](//' | sort -u); do
  grep -qx "package/$linked" <<<"$packed" || fail "README links $linked, which the tarball lacks"
done
echo "   $(basename "$tarball"): $(tar -tzf "$tarball" | wc -l) files, $(du -k "$tarball" | cut -f1) KiB"

echo "-- npm install the tarball into an empty directory"
mkdir "$work/app"
# better-sqlite3 is the one dependency with an install script: without a prebuilt binary (no
# network but the registry) it compiles SQLite, which takes minutes. The checkout's install
# compiled the same version for the same Node already, so when the versions match that
# binary is copied in; otherwise the install script runs as it would for anyone.
(cd "$work/app" && npm install --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error "$tarball") ||
  fail "npm install of the tarball failed"
sqlite_version() { node -p "require('$1/better-sqlite3/package.json').version"; }
built="node_modules/better-sqlite3/build/Release/better_sqlite3.node"
if [[ -f "$built" && "$(sqlite_version "$PWD/node_modules")" == "$(sqlite_version "$work/app/node_modules")" ]]; then
  mkdir -p "$work/app/$(dirname "$built")"
  cp "$built" "$work/app/$built"
  echo "   better-sqlite3 $(sqlite_version "$PWD/node_modules"): binary of the checkout's install reused"
else
  (cd "$work/app" && npm rebuild better-sqlite3 --loglevel=error) || fail "better-sqlite3 did not build"
fi
[[ -x "$work/app/node_modules/wsx/dist/wsx.js" ]] || fail "dist/wsx.js is not executable after install"

port="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')"
base="http://127.0.0.1:$port"

echo "-- npx wsx serve on $base"
(
  cd "$work/app"
  PORT="$port" HOST=127.0.0.1 DATABASE_URL="sqlite:$work/data/wsx.sqlite" LOG_LEVEL=warn \
    exec setsid npx --no-install wsx serve
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

projects="$(curl -fsS -H "Authorization: Bearer $token" "$base/api/external/projects")" ||
  fail "GET /api/external/projects with the printed token failed"
grep -q "\"projectKey\":\"$project_key\"" <<<"$projects" || fail "project $project_key is not listed: $projects"
echo "   /healthz 200; GET /api/external/projects lists $project_key"

echo "-- stop (SIGTERM)"
# To the whole group: npx exits on a SIGTERM without passing it on, so the server gets its own.
kill -TERM -- "-$server_pid"
wait "$server_pid" || true
for _ in $(seq 1 40); do
  kill -0 -- "-$server_pid" 2>/dev/null || break
  sleep 0.25
done
kill -0 -- "-$server_pid" 2>/dev/null && fail "wsx serve still runs 10 s after SIGTERM"
server_pid=""
grep -q 'SIGTERM received' "$work/serve.log" || fail "wsx serve did not stop gracefully on SIGTERM"
grep -q 'shutdown failed' "$work/serve.log" && fail "wsx serve failed to shut down cleanly"

echo "package check passed in $((SECONDS - started)) s"
