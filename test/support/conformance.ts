import { appendFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ERROR_CATALOG, type ErrorCode } from '../../src/core/errors.js';
import { catalog } from '../../src/api/catalog.js';
import type { Operation } from '../../src/operations/define.js';
import { buildOpenApiDocument } from '../../src/api/openapi.js';
import { errorCodesOf } from '../../src/api/openapi/errors.js';

/**
 * Response conformance: every answer the HTTP test-suite receives from a catalog route is
 * checked against the OpenAPI document the server publishes: a success has the documented
 * status and validates against the documented schema (formats included); an error is the
 * documented error body with a code its operation documents. So the document cannot drift
 * from the code: a test that provokes an undocumented answer fails.
 *
 * With WSX_CONFORMANCE_REPORT=<file>, violations are appended to that file as JSON lines
 * instead of failing (to survey the whole suite at once).
 */

export const openApiDocument = buildOpenApiDocument(catalog) as {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
};

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
addFormats.default(ajv);
ajv.addSchema(openApiDocument, 'openapi');

const validators = new Map<string, ValidateFunction>();
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

function validatorFor(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.getSchema(`openapi#${pointer}`);
    if (!validate) throw new Error(`No schema at ${pointer}`);
    validators.set(pointer, validate);
  }
  return validate;
}

interface Route {
  op: Operation;
  pattern: RegExp;
  statics: number;
}

const routes: Route[] = catalog.map((op) => ({
  op,
  pattern: new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}/?$`),
  statics: op.path.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
}));

/** The operation the router runs for this request: like the router, fixed segments win. */
function operationFor(method: string, url: string): Operation | undefined {
  const path = url.split('?')[0];
  const matches = routes.filter((route) => route.op.method === method.toUpperCase() && route.pattern.test(path));
  return matches.sort((a, b) => b.statics - a.statics)[0]?.op;
}

function successStatus(op: Operation): number {
  return op.successStatus ?? (op.method === 'POST' ? 201 : op.method === 'DELETE' ? 204 : 200);
}

function violation(op: Operation, status: number, body: unknown, url: string): string | undefined {
  const responses = openApiDocument.paths[op.path][op.method.toLowerCase()].responses;
  if (status === 304) {
    if (op.method !== 'GET') return 'a 304 answers only a read';
    return body === undefined || body === '' ? undefined : 'a 304 carries a body';
  }
  if (status < 400) {
    const documented = status === successStatus(op) || (status === 200 && op.answersExisting === true);
    if (!documented) return `status ${status} is not the documented ${successStatus(op)}`;
    if (status === 204) return body === undefined ? undefined : 'a 204 carries a body';
    // A `fields=` selection answers records without the fields it leaves out, which the
    // schema requires: what it keeps is checked by the field-selection tests instead.
    if (new URL(url, 'http://wsx').searchParams.has('fields')) return undefined;
    const validate = validatorFor(
      `/paths/${escape(op.path)}/${op.method.toLowerCase()}/responses/${status}/content/application~1json/schema`,
    );
    return validate(body) ? undefined : `body: ${ajv.errorsText(validate.errors)}`;
  }
  const validate = validatorFor('/components/schemas/Error');
  if (!validate(body)) return `error body: ${ajv.errorsText(validate.errors)}`;
  const code = (body as { code: ErrorCode }).code;
  if (code === 'ROUTE_NOT_FOUND') return undefined; // no operation ran
  if (ERROR_CATALOG[code].status !== status) return `code ${code} answered with status ${status}`;
  if (!errorCodesOf(op).includes(code)) return `code ${code} is not documented`;
  if (!(String(status) in responses)) return `status ${status} is not documented`;
  return undefined;
}

/** Why a webhook body is not a documented `WebhookEvent`, or undefined when it is one. */
export function eventViolation(body: unknown): string | undefined {
  const validate = validatorFor('/components/schemas/WebhookEvent');
  return validate(body) ? undefined : `webhook event: ${ajv.errorsText(validate.errors)}`;
}

/** Checks one answer; throws (or reports) when it is not what the document says. */
export function assertConforms(method: string, url: string, status: number, body: unknown): void {
  const op = operationFor(method, url);
  if (!op) return;
  const problem = violation(op, status, body, url);
  if (!problem) return;
  const report = process.env.WSX_CONFORMANCE_REPORT;
  if (report) {
    appendFileSync(report, `${JSON.stringify({ op: op.id, status, problem, body })}\n`);
    return;
  }
  throw new Error(
    `${method} ${url} answered ${status}, which the OpenAPI document does not allow (${op.id}): ${problem}`,
  );
}
