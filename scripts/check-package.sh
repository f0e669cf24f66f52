#!/usr/bin/env bash
# The package as people install it: `npm pack`, install the tarball into an empty directory,
# start `npx wsx serve` on a fresh SQLite file, and use the token and project its first
# start prints. Catches what the tests cannot see from the checkout: a file missing from the
# tarball, a dependency only development installs, a broken `wsx` executable.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/check-exit.sh
source scripts/lib/check-exit.sh
# shellcheck source=lib/installed-server.sh
source scripts/lib/installed-server.sh
check_name=check-package
started=$SECONDS

work="$(mktemp -d "${TMPDIR:-/tmp}/wsx-package-XXXXXX")"
server_pid=""
trap end_server_and_remove_work EXIT

echo "-- npm pack"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
[[ -f "$tarball" ]] || fail "npm pack wrote no tarball"
# Exactly what serving needs: the manifest, the bundled build, the README (and a LICENSE, if
# any), and the docs and the client's README the README links to, so its links work in an
# installed package too (test/cli/packaged-links.test.ts checks every shipped page's links).
unexpected="$(tar -tzf "$tarball" | grep -vE '^package/(package\.json|README\.md|LICENSE|dist/.+\.js|docs/.+\.md|examples/[^/]+\.(md|ts|json)|packages/client/README\.md)$' || true)"
[[ -z "$unexpected" ]] || fail "unexpected files in $(basename "$tarball"):"$'\n'"$unexpected"
packed="$(tar -tzf "$tarball")"
for linked in $(grep -oE '\]\((docs|examples|packages)/[^)#]+' README.md | sed 's/^](//' | sort -u); do
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
