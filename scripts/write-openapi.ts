import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { catalog } from '../src/api/catalog.js';
import { buildOpenApiDocument } from '../src/api/openapi.js';

/** Writes the OpenAPI document the server serves to the file named by the first argument. */
const out = process.argv[2];
if (!out) {
  console.error('usage: tsx scripts/write-openapi.ts <file>');
  process.exit(2);
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(buildOpenApiDocument(catalog), null, 2)}\n`);
