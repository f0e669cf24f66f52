#!/usr/bin/env bash
# The package as people install it: `npm pack`, install the tarball into an empty directory,
# start `npx wsx serve` on a fresh SQLite file, and use the token and project its first
# start prints. Catches what the tests cannot see from the checkout: a file missing from the
# tarball, a dependency only development installs, a broken `wsx` executable.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/installed-server.sh
source scripts/lib/installed-server.sh
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
(cd "$work/app" && npm install --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error "$tarball") ||
  fail "npm install of the tarball failed"
reuse_sqlite_binary "$work/app"
[[ -x "$work/app/node_modules/wsx/dist/wsx.js" ]] || fail "dist/wsx.js is not executable after install"

start_installed_server "$work/app"

projects="$(curl -fsS -H "Authorization: Bearer $token" "$base/api/external/projects")" ||
  fail "GET /api/external/projects with the printed token failed"
grep -q "\"projectKey\":\"$project_key\"" <<<"$projects" || fail "project $project_key is not listed: $projects"
echo "   /healthz 200; GET /api/external/projects lists $project_key"

stop_installed_server
grep -q 'SIGTERM received' "$work/serve.log" || fail "wsx serve did not stop gracefully on SIGTERM"
grep -q 'shutdown failed' "$work/serve.log" && fail "wsx serve failed to shut down cleanly"

echo "package check passed in $((SECONDS - started)) s"
