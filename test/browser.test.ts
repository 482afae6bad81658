import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createTestTenant, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

/**
 * GraphiQL and Swagger UI driven in a real browser: Debian's Chromium through playwright-core
 * (which never downloads a browser). Every request the pages make is routed here; anything not
 * addressed to this machine's loopback fails the test, so both pages must work offline from
 * assets the service serves itself. Screenshots go to test-artifacts/ (gitignored).
 *
 * Chromium comes from `apt-get install chromium` (`.ci/run` installs it when missing; CHROMIUM_PATH
 * names another binary). In CI a missing Chromium fails this test; on a developer's machine it
 * is skipped with a warning, so `npm test` still needs nothing beyond npm.
 */
const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => candidate && existsSync(candidate));
const ARTIFACTS = 'test-artifacts';
const MISSING = 'Chromium not found (install Debian\'s package: apt-get install -y --no-install-recommends chromium, or set CHROMIUM_PATH)';

if (!executablePath && !process.env.CI) process.stderr.write(`browser.test.ts skipped: ${MISSING}\n`);
const describeInBrowser = executablePath || process.env.CI ? describe : describe.skip;

describeInBrowser('GraphiQL and Swagger UI in Chromium', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let browser: Browser;
  let context: BrowserContext;
  /** Requests the pages tried to send anywhere but the loopback (each one was aborted). */
  const external: string[] = [];

  beforeAll(async () => {
    if (!executablePath) throw new Error(MISSING);
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startTestServer();
    tenant = await createTestTenant(server, 'browser');
    expect((await rest(server, 'POST', '/api/vendors', { token: tenant.staffToken, body: { Name: 'Browser Test Catering' } })).status).toBe(200);
    browser = await chromium.launch({ executablePath, headless: true });
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.route('**/*', async (route) => {
      const { hostname } = new URL(route.request().url());
      if (hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]') return route.continue();
      external.push(route.request().url());
      return route.abort('blockedbyclient');
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Opens a page that records its uncaught errors and failed loads. */
  async function open(url: string): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} (${request.failure()?.errorText})`));
    page.on('response', (response) => { if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`); });
    page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
    await page.goto(url, { waitUntil: 'load' });
    return { page, problems };
  }

  /** Scrolls the page down a screen at a time from the top until `done` answers true or the end is reached. */
  async function scrollThrough(page: Page, done: () => Promise<boolean>): Promise<void> {
    for (let top = 0; ; top += 600) {
      await page.evaluate((y) => window.scrollTo(0, y), top);
      await page.waitForTimeout(30);
      if (await done()) return;
      if (await page.evaluate(() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1)) return;
    }
  }

  it('GraphiQL loads from local assets only and runs a query with the staff token set in its headers editor', async () => {
    const { page, problems } = await open(`${server.baseUrl}/graphiql`);
    await page.locator('.graphiql-container').waitFor();
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor();

    // The headers editor (the "Headers" tab below the query), as a person would use it.
    // insertText sends the text as one input, so the editor's bracket auto-closing adds nothing.
    await page.locator('.graphiql-editor-tools button', { hasText: 'Headers' }).click();
    await page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${tenant.staffToken}` }));

    await page.locator('.graphiql-query-editor .CodeMirror').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('query BrowserVendors { vendors { VendorId Name } }');
    await page.locator('.graphiql-execute-button').click();

    const result = page.locator('.result-window');
    await result.getByText('Browser Test Catering').waitFor({ timeout: 15_000 });
    expect(await result.innerText()).toContain('"VendorId"');
    await page.screenshot({ path: path.join(ARTIFACTS, 'graphiql.png') });

    expect(external).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('Swagger UI lists every documented REST operation and executes one with a 200', async () => {
    const { page, problems } = await open(`${server.baseUrl}/api/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    // Swagger UI renders a long document's operations as they scroll into view (virtualized):
    // read the page from top to bottom as a reader would, noting each operation shown as "METHOD /path".
    const shown = new Set<string>();
    await scrollThrough(page, async () => {
      const blocks = await page.locator('.opblock-summary').evaluateAll((elements) => elements.map((block) =>
        `${block.querySelector('.opblock-summary-method')?.textContent?.trim()} ${block.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`));
      for (const block of blocks) shown.add(block);
      return false;
    });
    const openApi = (await rest(server, 'GET', '/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>>; tags: { name: string }[] };
    // The tags are the documents' 24 areas in the documents' order, with the filter box on.
    // (Read from Swagger UI's own state: it renders only the sections in view.)
    type SwaggerUi = { ui: { specSelectors: { taggedOperations(): { keySeq(): { toJS(): string[] } } } } };
    const tags = await page.evaluate(() => (window as unknown as SwaggerUi).ui.specSelectors.taggedOperations().keySeq().toJS());
    expect(tags).toEqual(openApi.tags.map((tag) => tag.name));
    expect(tags).toHaveLength(24);
    expect(await page.locator('.operation-filter-input').count()).toBe(1);
    const served = Object.entries(openApi.paths).flatMap(([route, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`));
    expect([...shown].sort()).toEqual(served.sort());
    // …and that includes every operation of the contract (spec/endpoints.json, 247; OpenAPI writes
    // the documents' optional segment `{regid=null}` as `{regid}`).
    const documented = (JSON.parse(readFileSync('spec/endpoints.json', 'utf8')) as { method: string; path: string }[])
      .map((row) => `${row.method} ${row.path.replace(/\{([^}=]+)=null\}/g, '{$1}')}`);
    expect(documented).toHaveLength(247);
    const shownLower = new Set([...shown].map((entry) => entry.toLowerCase()));
    expect(documented.filter((entry) => !shownLower.has(entry.toLowerCase()))).toEqual([]);

    // Authorize with the staff token, then Try it out → Execute on GET /api/vendors.
    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.modal-ux input[type=text], .modal-ux input[type=password]').first().fill(tenant.staffToken);
    await page.locator('.modal-ux .auth-btn-wrapper .authorize').first().click();
    await page.locator('.modal-ux .btn-done, .modal-ux .close-modal').first().click();

    const operation = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/api/vendors"]') }).first();
    await scrollThrough(page, async () => await operation.count() > 0);
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    // Try it out is pre-filled with the document's example, which the server accepts: executed as it is.
    expect(JSON.parse(await operation.locator('tr[data-param-name="options"] textarea').inputValue())).toEqual({ Take: '25' });
    await operation.locator('.execute').click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 15_000 });
    expect((await status.innerText()).trim()).toBe('200');
    expect(await operation.locator('.live-responses-table tbody .response-col_description').first().innerText()).toContain('Browser Test Catering');
    await operation.locator('.live-responses-table').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'swagger-ui.png'), fullPage: false });

    expect(external).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('the guard works: a request to another host is stopped and reported', async () => {
    const page = await context.newPage();
    // A blank page (the service's own pages forbid other origins by their Content-Security-Policy
    // before a request is even made). `.invalid` never resolves (RFC 2606), and the route aborts
    // the request before it is sent.
    await page.setContent('<img src="http://guard-check.invalid/asset.png">');
    expect(external.splice(0)).toEqual(['http://guard-check.invalid/asset.png']);
    await page.close();
  });
});
