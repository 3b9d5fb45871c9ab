import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * Debian's chromium for the browser tests (test/browser), driven by playwright-core: never a downloaded browser.
 * Without it the browser suites are skipped on a developer machine (`apt-get install chromium` enables them) and fail in
 * CI (CI=true), where .ci/run installs it.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** Without these, chromium keeps trying to reach Google's services on a closed network. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A URL on this machine (or one a page makes itself): what a page on a closed network may load. */
export const isLocal = (url: string) => /^(https?|wss?):\/\/(127\.0\.0\.1|localhost)(:\d+)?\//.test(url) || /^(data|blob):/.test(url);

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless chromium on a fresh profile (a persistent context is how Playwright takes a user data directory). */
export async function launchChromium(): Promise<Chromium> {
  if (!HAVE_CHROMIUM) throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install --no-install-recommends chromium)`);
  const profile = mkdtempSync(join(tmpdir(), 'tributary-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
