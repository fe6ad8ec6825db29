/**
 * Debian's Chromium driven by playwright-core (no browser download: playwright-core never fetches
 * one). CI installs it with `apt-get install -y chromium`; outside CI a suite that needs it skips,
 * saying so, only when the binary is missing.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * undefined when Chromium can run here, else why the browser suites are skipped. In CI
 * (`CI=true`, where .ci/run installs it) a missing browser is an error, never a silent skip.
 */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const why = `${CHROMIUM_PATH} does not exist: install Debian's Chromium (apt-get install -y chromium) to run the browser tests`;
  if (process.env.CI === 'true') throw new Error(why);
  return why;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** What a page did that a clean page never does: console errors, uncaught errors, CSP violations. */
export interface PageWatch {
  consoleErrors: string[];
  pageErrors: string[];
}

/**
 * Records the page's console errors and uncaught errors, and (by a script that runs before the
 * page's own, outside its CSP) every securitypolicyviolation into `window.__csp`.
 */
export async function watchPage(page: Page): Promise<PageWatch> {
  const watch: PageWatch = { consoleErrors: [], pageErrors: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') watch.consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => watch.pageErrors.push(String(error)));
  await page.addInitScript({
    content: `window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`,
  });
  return watch;
}
