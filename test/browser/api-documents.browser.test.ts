import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DOCS_PATHS, SWAGGER_UI_DOCUMENT_NAMES } from '../../rest-adapter/docs/api-docs.routes.ts';
import { GRAPHIQL_PATH } from '../../gateway/graphiql.routes.ts';
import { SANDBOX_SCRIPT_URL } from '../../gateway/landing-page.plugin.ts';
import { createSocialFixture } from '../support/social-fixture.ts';
import { HAVE_CHROMIUM, IN_CI, isLocal, launchChromium, type Chromium } from '../support/chromium.ts';
import { startTestSystem, type TestSystem } from '../support/test-system.ts';

/**
 * The browser tools in a real browser: Debian's chromium (never a downloaded one) driven by playwright-core. Swagger UI
 * runs Area A's GetByID with a token and shows the record; GraphiQL, the offline GraphQL IDE, runs a query with the
 * Authorization header typed into its Headers editor and shows the result; the gateway's landing page, with Apollo's CDN
 * unreachable, falls back to GraphiQL. Every request the pages make is recorded: Swagger UI and GraphiQL load everything
 * from the local servers.
 *
 * Without /usr/bin/chromium the suite is skipped on a developer machine (`apt-get install chromium` enables it) and fails
 * in CI (CI=true), where .ci/run installs it.
 */

describe.skipIf(!HAVE_CHROMIUM && !IN_CI)('the browser tools, in chromium', () => {
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

  /** A new page whose every request URL is recorded. */
  async function openPage(): Promise<{ page: Page; requested: string[]; errors: string[] }> {
    const page = await context.newPage();
    const requested: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => errors.push(error.message));
    return { page, requested, errors };
  }

  async function createRecord(name: string): Promise<string> {
    const reply = await fetch(`${system.restUrl}/api/v1/userExample`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name,
        email: `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`,
        password: 'browser-password',
        phone: '13800138000',
        avatar: 'https://example.com/a.png',
        age: 41,
        gender: 'FEMALE',
      }),
    });
    expect(reply.status).toBe(200);
    return ((await reply.json()) as { id: string }).id;
  }

  it('Swagger UI runs GetByID with a Bearer token and shows the record, loading nothing from outside localhost', async () => {
    const id = await createRecord('Grace Swagger');
    const token = system.adminToken();
    const { page, requested, errors } = await openPage();
    const ui = `${system.restUrl}${API_DOCS_PATHS.ui}?urls.primaryName=${encodeURIComponent(SWAGGER_UI_DOCUMENT_NAMES.swagger)}`;
    await page.goto(ui);
    await expectText(page.locator('.info .title'), 'serverNameExample api docs');
    await page.locator('#operations-userExample-userExample_GetByID').waitFor();
    // Swagger UI lists what it could not resolve or parse here.
    expect(await page.locator('.errors-wrapper').count()).toBe(0);

    // Authorize: the BearerAuth API key, typed as the scheme's description says.
    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.modal-ux input[type=text]').fill(`Bearer ${token}`);
    await page.locator('.modal-ux .auth-btn-wrapper .authorize').click();
    await page.locator('.modal-ux .btn-done').click();

    const operation = page.locator('#operations-userExample-userExample_GetByID');
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('input[placeholder="id"]').fill(id);
    const sent = page.waitForRequest((request) => request.url() === `${system.restUrl}/api/v1/userExample/${id}`);
    await operation.locator('.execute').click();
    expect((await sent).headers().authorization).toBe(`Bearer ${token}`);

    const live = operation.locator('.live-responses-table .response');
    await expectText(live.locator('.response-col_status'), '200');
    const shown = JSON.parse(await live.locator('.response-col_description .microlight').first().innerText()) as {
      userExample: Record<string, unknown>;
    };
    expect(shown.userExample).toMatchObject({ id, name: 'Grace Swagger', age: 41, gender: 'FEMALE', status: 0, loginAt: '0' });

    // The other document is offered in the same UI.
    await page.goto(`${system.restUrl}${API_DOCS_PATHS.ui}`);
    await expectText(page.locator('.info .title'), 'Tributary REST API');
    await expect.poll(() => page.locator('#operations-accounts-getNode').count()).toBe(1);
    expect(await page.locator('.errors-wrapper').count()).toBe(0);

    expect(errors).toEqual([]);
    expect(requested.filter((url) => !isLocal(url))).toEqual([]);
    expect(requested).toContain(`${system.restUrl}/apis/swagger/swagger-ui-bundle.js`);
  });

  it('GraphiQL runs a query with the Authorization header typed into its Headers editor, from local assets only', async () => {
    const id = await createRecord('Ada GraphiQL');
    const token = system.adminToken();
    const { page, requested, errors } = await openPage();
    const gatewayOrigin = new URL(system.gatewayUrl).origin;
    await page.goto(`${gatewayOrigin}${GRAPHIQL_PATH}`);
    await page.locator('.graphiql-container').waitFor();

    // Replace the query, then type the token into the Headers editor, as a user does. The operation keeps the default
    // document's name (Records): GraphiQL takes the operation name from the editor after a debounce, and on a loaded
    // machine the click can come first, sending the new document with the old name (which the gateway rightly refuses).
    await page.locator('.graphiql-query-editor .CodeMirror').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(`query Records { userExample(id: "${id}") { id name age gender } }`);
    await page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(`{ "Authorization": "Bearer ${token}" }`);

    const sent = page.waitForRequest(
      (request) => request.url() === system.gatewayUrl && (request.postData() ?? '').includes('userExample(id:'),
    );
    await page.locator('.graphiql-execute-button').click();
    const headers = (await sent).headers();
    expect(headers.authorization).toBe(`Bearer ${token}`);
    expect(headers['apollo-require-preflight']).toBe('true');
    expect(headers['content-type']).toMatch(/^application\/json/);

    await expectText(page.locator('.result-window'), 'Ada GraphiQL');
    const result = JSON.parse(String(await page.evaluate("document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()")));
    expect(result).toEqual({ data: { userExample: { id, name: 'Ada GraphiQL', age: 41, gender: 'FEMALE' } } });

    expect(errors).toEqual([]);
    expect(requested.filter((url) => !isLocal(url))).toEqual([]);
    expect(requested).toContain(`${gatewayOrigin}${GRAPHIQL_PATH}/assets/graphiql.min.js`);
  });

  it('GraphiQL subscribes over the gateway’s WebSocket and shows an event as it arrives', async () => {
    const fixture = await createSocialFixture(system.database);
    const mediaId = fixture.posts[3]!;
    const token = fixture.tokens.own;
    const { page, requested, errors } = await openPage();
    const gatewayOrigin = new URL(system.gatewayUrl).origin;
    await page.goto(`${gatewayOrigin}${GRAPHIQL_PATH}`);
    await page.locator('.graphiql-container').waitFor();
    await page.locator('.graphiql-query-editor .CodeMirror').click();
    await page.keyboard.press('Control+A');
    // Named Records, as the default document: see the query test above on GraphiQL's debounced operation name.
    await page.keyboard.insertText(`subscription Records { mediaCommentEvents(mediaId: "${mediaId}") { action comment { text } } }`);
    await page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(`{ "Authorization": "Bearer ${token}" }`);
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => sockets, { timeout: 20_000 }).toEqual([system.gatewayUrl.replace(/^http/, 'ws')]);
    // The page cannot tell when the gateway has opened the stream: comments are written until one shows (one written
    // before the stream opened is rightly not part of it).
    const comment = `From GraphiQL ${Date.now()}`;
    await expect
      .poll(
        async () => {
          await fetch(system.gatewayUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify({
              query: 'mutation($m: ID!, $t: String) { createMediaComment(mediaId: $m, message: $t) { id } }',
              variables: { m: mediaId, t: comment },
            }),
          });
          return page.locator('.result-window').innerText();
        },
        { timeout: 20_000, interval: 1000 },
      )
      .toContain(comment);
    expect(errors).toEqual([]);
    expect(requested.filter((url) => !isLocal(url))).toEqual([]);
    expect(requested).toContain(`${gatewayOrigin}${GRAPHIQL_PATH}/assets/graphql-ws.min.js`);
  });

  it('the landing page tries Apollo Sandbox and switches to the offline IDE when the CDN is unreachable', async () => {
    const { page, requested } = await openPage();
    // The network is closed: anything that is not on this machine fails at once.
    await page.route(
      (url) => !isLocal(url.href),
      (route) => route.abort('internetdisconnected'),
    );
    await page.goto(system.gatewayUrl);
    // The IDE is opened with the reason, and says it (test/browser/listener-home-pages.browser.test.ts reads the line).
    await page.waitForURL((url) => url.pathname === GRAPHIQL_PATH && url.searchParams.get('sandbox') === 'unreachable');
    await page.locator('.graphiql-container').waitFor();
    expect(requested.filter((url) => !isLocal(url)).map((url) => url.split('?')[0])).toEqual([SANDBOX_SCRIPT_URL]);
  });
});

/** Waits until the locator's text contains `text` (pages render after their scripts load). */
async function expectText(locator: ReturnType<Page['locator']>, text: string): Promise<void> {
  await expect
    .poll(async () => ((await locator.count()) > 0 ? await locator.first().innerText() : ''), { timeout: 20_000 })
    .toContain(text);
}
