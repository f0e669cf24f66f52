#!/usr/bin/env bash
# @wsx/client as people install it: `npm pack` both packages, install the two tarballs into an
# empty directory, start `npx wsx serve` there on a fresh SQLite file, then typecheck a strict
# TypeScript program (and every ```ts example of packages/client/README.md) against the
# installed client with the checkout's tsc, and run the program against that server: list
# projects, create an issue, read it back by key with a conditional request, page through
# issues, and verify a real webhook delivery with verifyWebhook. Catches what the client's
# tests cannot see from the checkout: dist/ missing from the tarball, exports pointing at
# nothing, published types that reach outside dist/, a README example that no longer compiles.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/check-exit.sh
source scripts/lib/check-exit.sh
# shellcheck source=lib/installed-server.sh
source scripts/lib/installed-server.sh
check_name=check-client-package
checkout="$PWD"
started=$SECONDS

work="$(mktemp -d "${TMPDIR:-/tmp}/wsx-client-package-XXXXXX")"
server_pid=""
client_pack=""
cleanup() {
  # A failed server pack leaves the client's pack running: let it end before its directory goes.
  [[ -n "$client_pack" ]] && { wait "$client_pack" 2>/dev/null || true; }
  end_server_and_remove_work
}
trap cleanup EXIT

echo "-- versions"
server_version="$(node -p "require('./package.json').version")"
client_version="$(node -p "require('./packages/client/package.json').version")"
[[ "$server_version" == "$client_version" ]] ||
  fail "@wsx/client is $client_version but wsx is $server_version: the client's version must be the server's"
echo "   wsx and @wsx/client are both $server_version"

echo "-- npm pack (server and client, side by side: each builds its own dist/)"
(cd packages/client && npm pack --silent --pack-destination "$work" >"$work/client-pack.out" 2>&1) &
client_pack=$!
server_tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
[[ -f "$server_tarball" ]] || fail "npm pack of wsx wrote no tarball"
wait "$client_pack" || fail "npm pack of @wsx/client failed:"$'\n'"$(cat "$work/client-pack.out")"
client_tarball="$work/$(tail -n 1 "$work/client-pack.out")"
[[ -f "$client_tarball" ]] || fail "npm pack of @wsx/client wrote no tarball:"$'\n'"$(cat "$work/client-pack.out")"
# The client's tarball: the manifest, README, LICENSE and the compiled dist (JavaScript and declarations).
listing="$(tar -tzf "$client_tarball")"
unexpected="$(grep -vE '^package/(package\.json|README\.md|LICENSE|dist/.+\.(js|d\.ts))$' <<<"$listing" || true)"
[[ -z "$unexpected" ]] || fail "unexpected files in $(basename "$client_tarball"):"$'\n'"$unexpected"
for required in dist/index.js dist/index.d.ts dist/generated/openapi.d.ts LICENSE; do
  grep -qx "package/$required" <<<"$listing" || fail "$(basename "$client_tarball") lacks $required"
done
echo "   $(basename "$server_tarball"): $(tar -tzf "$server_tarball" | wc -l) files, $(du -k "$server_tarball" | cut -f1) KiB"
echo "   $(basename "$client_tarball"): $(wc -l <<<"$listing") files, $(du -k "$client_tarball" | cut -f1) KiB"

echo "-- npm install both tarballs into an empty directory"
app="$work/app"
mkdir "$app"
printf '{ "name": "client-package-check", "private": true, "type": "module" }\n' >"$app/package.json"
# @types/node at the checkout's version (already in npm's cache): the program uses node:http and process.
types_node="@types/node@$(node -p "require('./node_modules/@types/node/package.json').version")"
# --ignore-scripts, then better-sqlite3's binary from the checkout (scripts/lib/installed-server.sh).
(cd "$app" && npm install --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error \
  "$server_tarball" "$client_tarball" "$types_node") || fail "npm install of the tarballs failed"
reuse_sqlite_binary "$app"

echo "-- the installed @wsx/client: exports, and declarations that stay inside dist/"
(cd "$app" && node --input-type=module - <<'EOF') || fail "the installed @wsx/client is not usable as published"
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve('node_modules/@wsx/client');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const problems = [];
// Every file the manifest points at exists; `types` comes first, so TypeScript picks it.
const entry = manifest.exports['.'];
if (Object.keys(entry)[0] !== 'types') problems.push(`exports["."] lists ${Object.keys(entry)[0]} before types`);
for (const target of [manifest.main, manifest.types, ...Object.values(entry)]) {
  if (!existsSync(join(root, target))) problems.push(`${target} (named in package.json) is not in the package`);
}
// Every import of a declaration file is a file inside dist/ or a dependency of the package.
const dist = join(root, 'dist');
const files = readdirSync(dist, { recursive: true }).map(String).filter((f) => f.endsWith('.d.ts'));
const specifiers = /(?:from\s+|import\s*\(\s*|require\s*\(\s*|reference\s+(?:path|types)\s*=\s*)['"]([^'"]+)['"]/g;
for (const file of files) {
  const text = readFileSync(join(dist, file), 'utf8');
  for (const [, specifier] of text.matchAll(specifiers)) {
    if (specifier.startsWith('.')) {
      const target = resolve(dirname(join(dist, file)), specifier).replace(/\.js$/, '.d.ts');
      if (relative(dist, target).startsWith('..')) problems.push(`dist/${file} imports ${specifier}, outside dist/`);
      else if (!existsSync(target)) problems.push(`dist/${file} imports ${specifier}: no such declaration file`);
    } else {
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
      if (!(name in (manifest.dependencies ?? {})) && !name.startsWith('node:'))
        problems.push(`dist/${file} imports ${specifier}, which is not a dependency of @wsx/client`);
    }
  }
}
const client = await import('@wsx/client');
for (const name of ['createWsxClient', 'ifMatch', 'verifyWebhook', 'WsxError', 'WebhookVerificationError']) {
  if (typeof client[name] !== 'function') problems.push(`import('@wsx/client') has no function ${name}`);
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`   exports resolve; ${files.length} declaration files import only dist/ and dependencies`);
EOF

echo "-- a strict program and the README's examples, typechecked with the checkout's tsc"
cat >"$app/tsconfig.json" <<'EOF'
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "skipLibCheck": false,
    "types": ["node"],
    "outDir": "out"
  },
  "include": ["*.ts"]
}
EOF
# Each ```ts block of the client's README is a module of its own.
awk -v dir="$app" '
  /^```ts$/ { n++; file = sprintf("%s/readme-%02d.ts", dir, n); inside = 1; next }
  /^```/ { inside = 0; next }
  inside { print > file }
' packages/client/README.md
examples="$(find "$app" -maxdepth 1 -name 'readme-*.ts' | wc -l)"
[[ "$examples" -gt 0 ]] || fail "packages/client/README.md has no \`\`\`ts example"

cat >"$app/check.ts" <<'EOF'
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createWsxClient,
  ifMatch,
  verifyWebhook,
  WebhookVerificationError,
  WsxError,
  type Schemas,
  type WsxErrorCode,
} from '@wsx/client';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}
function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}
async function refusal(call: () => Promise<unknown>): Promise<WsxError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof WsxError) return error;
    throw error;
  }
  throw new Error('the call succeeded where an error answer was expected');
}

const projectKey = env('WSX_PROJECT');
const wsx = createWsxClient({ baseUrl: env('WSX_URL'), token: env('WSX_TOKEN') });

// The projects the printed token can use include the first project.
const { projects } = await wsx.GET('/api/external/projects');
const project: Schemas['Project'] | undefined = projects.find((each) => each.projectKey === projectKey);
check(project, `project ${projectKey} is not listed: ${projects.map((each) => each.projectKey).join(', ')}`);
console.log(`   ${projects.length} project(s), ${project.projectKey} among them`);

// A webhook receiver on 127.0.0.1, subscribed before anything is created.
const received: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
    res.statusCode = 204;
    res.end();
  });
});
await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
const { port } = receiver.address() as AddressInfo;
const { webhook } = await wsx.POST('/api/external/webhooks', {
  body: { url: `http://127.0.0.1:${port}/hook`, events: ['issue.created'] },
});

// Create an issue, read it back by key with a conditional request, then write with If-Match.
const { issue } = await wsx.POST('/api/external/issues', {
  body: { projectKey, title: 'Filed by the client package check' },
});
check(issue.projectKey === projectKey, `the issue went to ${issue.projectKey}`);
const byKey = { params: { path: { issueId: issue.issueKey } } };
const first = await wsx.getIfChanged('/api/external/issues/{issueId}', undefined, byKey);
check(!first.notModified, 'a read without If-None-Match answered 304');
check(first.body.issue.issueId === issue.issueId, `${issue.issueKey} read back as ${first.body.issue.issueId}`);
check(first.etag.startsWith(`"${issue.version}-`), `unexpected ETag ${first.etag}`);
const again = await wsx.getIfChanged('/api/external/issues/{issueId}', first.etag, byKey);
check(again.notModified, 'a read with the current ETag was not answered 304');
const { issue: updated } = await wsx.PATCH('/api/external/issues/{issueId}', {
  params: { path: { issueId: issue.issueKey }, header: ifMatch(first.etag) },
  body: { title: 'Filed and renamed by the client package check' },
});
check(updated.version > issue.version, `the version did not move: ${issue.version} → ${updated.version}`);
const stale = await refusal(() =>
  wsx.PATCH('/api/external/issues/{issueId}', {
    params: { path: { issueId: issue.issueKey }, header: ifMatch(issue.version) },
    body: { title: 'A lost update' },
  }),
);
const expected: WsxErrorCode = 'PRECONDITION_FAILED';
check(stale.code === expected && stale.status === 412, `a stale If-Match answered ${stale.status} ${stale.code}`);
check(stale.details.currentVersion === updated.version, `details.currentVersion is ${stale.details.currentVersion}`);
const missing = await refusal(() =>
  wsx.GET('/api/external/issues/{issueId}', { params: { path: { issueId: `${issue.teamKey}-999999` } } }),
);
check(missing.code === 'ISSUE_NOT_FOUND' && missing.status === 404, `a missing issue answered ${missing.code}`);
console.log(`   ${issue.issueKey}: created, read by key (200, then 304), updated with If-Match, 412 when stale`);

// Page through the project's issues, two at a time.
const created = [issue.issueKey];
for (let n = 1; n <= 4; n++) {
  const more = await wsx.POST('/api/external/issues', { body: { projectKey, title: `Page filler ${n}` } });
  created.push(more.issue.issueKey);
}
const paged: string[] = [];
for await (const each of wsx.paginate('/api/external/issues', { params: { query: { projectKey, limit: 2 } } })) {
  paged.push(each.issueKey);
}
check(new Set(paged).size === paged.length, `paginate repeated an issue: ${paged.join(', ')}`);
for (const key of created) check(paged.includes(key), `paginate did not reach ${key}: ${paged.join(', ')}`);
const walk = wsx.sync('/api/external/issues', { query: { projectKey, limit: 2 } });
let synced = 0;
for await (const each of walk) if (created.includes(each.issueKey)) synced++;
check(synced >= created.length && walk.since !== undefined, `sync saw ${synced} of ${created.length} issues`);
console.log(`   paginate (2 a page): ${paged.length} issues; sync: since ${walk.since}`);

// The delivery of issue.created, signed by the server, verifies with the subscription's secret.
const deadline = Date.now() + 20_000;
const delivered = () => received.find((each) => each.body.includes(issue.issueId));
while (!delivered() && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
const delivery = delivered();
check(delivery, `no webhook delivery of ${issue.issueKey} within 20 s (${received.length} received)`);
const event = verifyWebhook(delivery.body, delivery.headers, webhook.secret);
check(event.type === 'issue.created', `the delivered event is ${event.type}`);
check(event.data.issue.issueId === issue.issueId, 'the delivered event is about another issue');
check(event.id === delivery.headers['webhook-id'], 'the event id is not the webhook-id header');
let refused = false;
try {
  verifyWebhook(delivery.body.replace('Filed by', 'Forged by'), delivery.headers, webhook.secret);
} catch (error) {
  if (!(error instanceof WebhookVerificationError)) throw error;
  refused = true;
}
check(refused, 'verifyWebhook accepted a tampered body');
console.log(`   webhook ${event.type} ${event.id}: signature verified; a tampered body refused`);

await new Promise<void>((done) => receiver.close(() => done()));
EOF

# --listFiles prints every file of the compilation (absolute paths) beside the diagnostics.
(cd "$app" && "$checkout/node_modules/.bin/tsc" -p tsconfig.json --listFiles >"$work/tsc.out") ||
  fail "the strict program or a README example does not typecheck:"$'\n'"$(grep -v '^/' "$work/tsc.out")"
grep -qx "$app/node_modules/@wsx/client/dist/index.d.ts" "$work/tsc.out" ||
  fail "the program's @wsx/client types do not come from the installed dist/index.d.ts"
# The types come from the installed packages alone (and TypeScript's own lib files).
outside="$(grep '^/' "$work/tsc.out" | grep -v -e "^$app/" -e "^$checkout/node_modules/typescript/lib/" || true)"
[[ -z "$outside" ]] || fail "the program's types reach outside the installed packages:"$'\n'"$outside"
echo "   check.ts and $examples README example(s) typecheck (strict, noUncheckedIndexedAccess, NodeNext)"

start_installed_server "$app" WSX_WEBHOOK_ALLOW_PRIVATE=1

echo "-- the compiled program against the server"
(cd "$app" && WSX_URL="$base" WSX_TOKEN="$token" WSX_PROJECT="$project_key" timeout 90 node out/check.js) ||
  fail "the program failed against the server"

stop_installed_server

echo "client package check passed in $((SECONDS - started)) s"
