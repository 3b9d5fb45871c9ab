import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_PATH } from '../../gateway/graphiql.routes.ts';
import { SANDBOX_SCRIPT_URL } from '../../gateway/landing-page.plugin.ts';
import { API_DOCS_PATHS } from '../../rest-adapter/docs/api-docs.routes.ts';
import { HAVE_CHROMIUM, IN_CI, isLocal, launchChromium, type Chromium } from '../support/chromium.ts';
import { startTestSystem, type TestSystem } from '../support/test-system.ts';

/**
 * The root of each listener in a real browser (Debian's chromium, playwright-core, as api-documents.browser.test.ts):
 * a person who opens http://localhost:4000/, :8080/ or :8081/ reads what the listener is and follows its links to the
 * GraphQL IDE and Swagger UI, which load; with Apollo's CDN unreachable, the IDE link lands on the offline IDE, which says
 * in one line why. The pages break no Content-Security-Policy rule and load nothing from outside localhost.
 */

/** The line the offline IDE shows when the landing page could not load Sandbox's script (gateway/graphiql.routes.ts). */
const FALLBACK_LINE = "Apollo Sandbox could not be loaded (Apollo's CDN is unreachable: offline?) — this is the offline GraphiQL IDE.";

describe.skipIf(!HAVE_CHROMIUM && !IN_CI)('the root of each listener, in chromium', () => {
  let system: TestSystem;
  let browser: Chromium | undefined;
  let context: BrowserContext;

  beforeAll(async () => {
    system = await startTestSystem();
    browser = await launchChromium();
    context = browser.context;
  });

  afterAll(async () => {
    await browser?.close();
    await system?.close();
  });

  /** A page on a closed network (anything not on this machine fails at once), its requests, errors and CSP reports recorded. */
  async function openOffline(): Promise<{ page: Page; requested: string[]; problems: string[] }> {
    const page = await context.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    await page.route(
      (url) => !isLocal(url.href),
      (route) => route.abort('internetdisconnected'),
    );
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
    return { page, requested, problems };
  }

  it('the gateway’s / names the gateway and leads to the offline IDE, which loads', async () => {
    const gateway = new URL(system.gatewayUrl).origin;
    const { page, requested, problems } = await openOffline();
    await page.goto(`${gateway}/`);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Tributary — GraphQL gateway');
    // The page's one style element runs under its hash.
    expect(await page.evaluate('getComputedStyle(document.body).maxWidth')).toBe('736px');
    await page.getByRole('link', { name: 'GraphiQL, the offline GraphQL IDE' }).click();
    await page.waitForURL(`${gateway}${GRAPHIQL_PATH}`);
    await page.locator('.graphiql-container').waitFor();
    // Opened directly, the IDE has nothing to explain.
    expect(await page.locator('#sandbox-notice').isVisible()).toBe(false);
    expect(problems).toEqual([]);
    expect(requested.filter((url) => !isLocal(url))).toEqual([]);
  });

  it('the own-login host’s / leads to Swagger UI, which loads both documents', async () => {
    const { page, requested, problems } = await openOffline();
    await page.goto(`${system.restUrl}/`);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Tributary — REST, own-login host');
    await page.getByRole('link', { name: 'Swagger UI', exact: true }).click();
    await page.waitForURL(`${system.restUrl}${API_DOCS_PATHS.ui}`);
    await expect.poll(() => page.locator('.info .title').first().innerText(), { timeout: 20_000 }).toContain('Tributary REST API');
    await expect.poll(() => page.locator('#operations-accounts-getNode').count(), { timeout: 20_000 }).toBe(1);
    expect(problems).toEqual([]);
    expect(requested.filter((url) => !isLocal(url))).toEqual([]);
  });

  it('the parent-platform host’s / leads to its own Swagger UI and to the own-login host’s page', async () => {
    const { page, requested, problems } = await openOffline();
    await page.goto(`${system.socialParentUrl}/`);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Tributary — REST, parent-platform host');
    await page.getByRole('link', { name: 'REST, own-login host' }).click();
    await page.waitForURL(`${system.restUrl}/`);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Tributary — REST, own-login host');
    await page.goBack();
    await page.getByRole('link', { name: 'Swagger UI', exact: true }).click();
    await page.waitForURL(`${system.socialParentUrl}${API_DOCS_PATHS.ui}`);
    await expect.poll(() => page.locator('.info .title').first().innerText(), { timeout: 20_000 }).toContain('Tributary REST API');
    expect(problems).toEqual([]);
    expect(requested.filter((url) => !isLocal(url))).toEqual([]);
  });

  it('offline, the Apollo Sandbox link lands on the offline IDE, which says in one visible line why', async () => {
    const { page, requested, problems } = await openOffline();
    await page.goto(`${system.restUrl}/`);
    await page.getByRole('link', { name: 'Apollo Sandbox' }).click();
    await page.waitForURL((url) => url.pathname === GRAPHIQL_PATH);
    await page.locator('.graphiql-container').waitFor();
    const notice = page.locator('#sandbox-notice');
    await expect.poll(() => notice.isVisible()).toBe(true);
    expect(await notice.innerText()).toContain(FALLBACK_LINE);
    // One line, above the IDE.
    const [noticeBox, ideBox] = await Promise.all([notice.boundingBox(), page.locator('#graphiql').boundingBox()]);
    expect(noticeBox!.height).toBeLessThanOrEqual(40);
    expect(noticeBox!.y + noticeBox!.height).toBeLessThanOrEqual(ideBox!.y + 1);
    // Its way back to Sandbox is the gateway's /graphql.
    expect(await notice.getByRole('link', { name: 'Try Sandbox again' }).getAttribute('href')).toBe('/graphql');
    expect(problems).toEqual([]);
    // Only Sandbox's script was tried outside this machine (and failed).
    expect(requested.filter((url) => !isLocal(url)).map((url) => url.split('?')[0])).toEqual([SANDBOX_SCRIPT_URL]);
  });
});
