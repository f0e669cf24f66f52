import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../src/api/catalog.js';
import { shortSummary } from '../../src/api/openapi.js';
import { launchChromium, type HeadlessChromium } from '../support/browser.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * /docs in a real browser: the reference finds an operation by search, its try-it client
 * sends the request with a bearer token to this server and shows the answer, nothing
 * the page loads or sends leaves the machine, and the reference takes the document without
 * a complaint (Scalar logs "document validation errors" for schemas it cannot read).
 */
const WAIT = { timeout: 60_000 };

const listIssues = catalog.find((op) => op.id === 'list_issues')!;

let h: Harness;
let origin: string;
let chromium: HeadlessChromium | undefined;
let issueId: string;

beforeAll(async () => {
  h = await startHarness([ACME]);
  const created = await h.call('POST', '/api/external/issues', {
    token: TOKENS.admin,
    body: { title: 'Found through the reference', projectKey: 'API', teamKey: 'ENG' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  issueId = created.body.issue.issueId;
  origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
  chromium = await launchChromium();
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await h?.close();
});

describe('/docs in a browser', () => {
  it('searches for list_issues, sends it with a bearer token and shows the answer, all on 127.0.0.1', async () => {
    const page = await chromium!.browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warn' || message.type() === 'error') warnings.push(message.text());
    });
    // Recorded by the page itself: Chromium reports a refusal by the policy as this event.
    await page.evaluateOnNewDocument(() => {
      const refusals: string[] = [];
      Object.assign(window, { refusals });
      document.addEventListener('securitypolicyviolation', (event) =>
        refusals.push(`${event.effectiveDirective} ${event.blockedURI}`),
      );
    });

    const loaded = await page.goto(`${origin}/docs`, { waitUntil: 'load', ...WAIT });
    expect(loaded?.status()).toBe(200);

    // Search, and open the operation from its result.
    await page.locator('::-p-aria([role="search"])').setTimeout(WAIT.timeout).click();
    const search = '::-p-aria([name="Reference Search"][role="dialog"])';
    await page
      .locator(`${search} ::-p-aria([name="Enter search query"][role="combobox"])`)
      .setTimeout(WAIT.timeout)
      .fill('List issues');
    await page
      .locator(`${search} [role="option"] ::-p-text(${JSON.stringify(shortSummary(listIssues))})`)
      .setTimeout(WAIT.timeout)
      .click();
    await page.waitForFunction((hash) => window.location.hash === hash, WAIT, `#tag/issues/GET${listIssues.path}`);

    // Try it: the client opens over the page, and the token goes into its bearer field.
    await page
      .locator(
        `::-p-aria([name="Test Request (${listIssues.method.toLowerCase()} ${listIssues.path})"][role="button"])`,
      )
      .setTimeout(WAIT.timeout)
      .click();
    const client = '::-p-aria([name="API Client"][role="dialog"])';
    const tokenField = `${client} ::-p-aria([name="Bearer Token"][role="textbox"])`;
    await page.locator(tokenField).setTimeout(WAIT.timeout).click();
    // Typed in one input event, as a paste would: key by key, every keystroke re-renders
    // the request examples of the whole page.
    await page.keyboard.sendCharacter(TOKENS.admin);
    expect(await page.$eval(tokenField, (input) => (input as HTMLInputElement).value)).toBe(TOKENS.admin);

    const answered = page.waitForResponse(
      (response) => response.url() === `${origin}${listIssues.path}` && response.request().method() === 'GET',
      WAIT,
    );
    await page.locator(`${client} ::-p-text(Send Request)`).setTimeout(WAIT.timeout).click();
    const response = await answered;
    expect(response.request().headers().authorization).toBe(`Bearer ${TOKENS.admin}`);
    expect(response.status()).toBe(200);

    // What the client shows is that answer: its status and the fixture issue from its body.
    await page.locator(`${client} ::-p-text(200 OK)`).setTimeout(WAIT.timeout).waitHandle();
    await page.locator(`${client} ::-p-text(${issueId})`).setTimeout(WAIT.timeout).waitHandle();

    const elsewhere = requested.filter((url) => {
      const { protocol, host } = new URL(url);
      return protocol !== 'data:' && host !== new URL(origin).host;
    });
    expect(elsewhere).toEqual([]);
    expect(requested).toEqual(expect.arrayContaining([`${origin}/docs`, `${origin}/api/external/openapi.json`]));
    // One refusal is expected: the bundle probes whether eval is allowed (`new Function('')`
    // in a try) and works without it.
    const refusals = await page.evaluate(() => (window as unknown as { refusals: string[] }).refusals);
    expect(refusals.filter((refusal) => refusal !== 'script-src eval')).toEqual([]);
    // Scalar checks the document when it loads it, before the search above could open.
    expect(warnings.filter((text) => /validation/i.test(text))).toEqual([]);
    await page.close();
  }, 180_000);
});
