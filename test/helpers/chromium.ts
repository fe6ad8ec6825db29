import assert from 'node:assert/strict';
/**
 * Debian's Chromium driven by playwright-core (no browser download: playwright-core never fetches
 * one). CI installs it with `apt-get install -y chromium`; outside CI a suite that needs it skips,
 * saying so, only when the binary is missing.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { REPO_ROOT } from './process.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Whether the browser suites save screenshots (test/artifacts/) for a person to look at: not under
 * CI=true, where no one does and each full-page capture costs a second of a loaded machine.
 */
export const SAVE_SCREENSHOTS = process.env.CI !== 'true';

/** The two screens pages are checked at: a desktop, and a phone 390 px wide. */
export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
export const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};

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

/** Where the browser suites keep their screenshots. */
export const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts');

/** How long a browser suite waits for what a page should come to show. */
export const WAIT_MS = 20_000;

/** A full-page screenshot of `page` in test/artifacts/`name`, when the suites keep them (SAVE_SCREENSHOTS). */
export async function shoot(page: Page, name: string): Promise<void> {
  if (SAVE_SCREENSHOTS) await page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });
}

/**
 * In a describe: a Chromium launched before the suite's tests (test/artifacts/ made for their
 * screenshots) and closed after them, there once the `before` has run.
 */
export function chromiumForSuite(): { readonly browser: Browser } {
  const suite = {} as { browser: Browser };
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    suite.browser = await launchChromium();
  });
  after(async () => {
    await suite.browser?.close();
  });
  return suite;
}

/** A browser with one watched page (watchPage), for a suite's `before`; `closeBrowser` is its half of `after`. */
export interface WatchedPage extends PageWatch {
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

export async function openWatchedPage(options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const browser = await launchChromium();
  const context = await browser.newContext(options);
  const page = await context.newPage();
  return { browser, context, page, ...(await watchPage(page)) };
}

/** Closes what openWatchedPage opened, whatever of it a failed `before` got to open. */
export async function closeBrowser(opened: {
  context?: BrowserContext | undefined;
  browser?: Browser | undefined;
}): Promise<void> {
  await opened.context?.close();
  await opened.browser?.close();
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

/** Asserts that the page has had no CSP violation, console error or uncaught error (`watchPage`). */
export async function assertClean(page: Page, watch: PageWatch, what: string): Promise<void> {
  const violations = await page.evaluate(() => (globalThis as unknown as { __csp: string[] }).__csp);
  assert.deepEqual(violations, [], `${what}: securitypolicyviolation events`);
  assert.deepEqual(watch.consoleErrors, [], `${what}: console errors`);
  assert.deepEqual(watch.pageErrors, [], `${what}: uncaught errors`);
}

/** What the page checks evaluate inside a page (the project's lib has no DOM types). */
interface AxeInPage {
  document: { documentElement: { scrollWidth: number } };
  innerWidth: number;
  axe: {
    run(
      context?: unknown,
      options?: unknown,
    ): Promise<{
      violations: Array<{
        id: string;
        impact: string | null;
        help: string;
        nodes: Array<{ target: unknown; failureSummary?: string }>;
      }>;
    }>;
  };
}

/** axe-core's serious and critical violations on the page as it is now, each as one line (under the page's CSP or not). */
export async function axeOnPage(page: Page): Promise<string[]> {
  const { source } = createRequire(import.meta.url)('axe-core') as { source: string };
  // Evaluated through the DevTools protocol, which the page's CSP does not govern: a page checked
  // under its own CSP needs no second load in a context that bypasses it.
  await page.evaluate(source);
  const results = await page.evaluate(() => {
    const inPage = globalThis as unknown as AxeInPage;
    return inPage.axe.run(inPage.document, { resultTypes: ['violations'] });
  });
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => `${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`).join('; ')}`,
    );
}

/**
 * axe-core's serious and critical violations on `url`, opened in a new page of `context`, which
 * must bypass CSP (`bypassCSP: true`) so that the script can be injected.
 */
export async function axeViolations(context: BrowserContext, url: string): Promise<string[]> {
  const page = await context.newPage();
  try {
    const response = await page.goto(url);
    if (!response?.ok()) throw new Error(`${url} answered ${response?.status()}`);
    return await axeOnPage(page);
  } finally {
    await page.close();
  }
}

/**
 * How much wider than the screen the page is (0 when nothing overflows). A mobile browser zooms
 * out to fit a page wider than its screen, which widens innerWidth with it: the screen's own width
 * is the viewport's.
 */
export async function horizontalOverflow(page: Page): Promise<number> {
  const screen = page.viewportSize()?.width ?? 0;
  const { scrollWidth, innerWidth } = await page.evaluate(() => {
    const inPage = globalThis as unknown as AxeInPage;
    return { scrollWidth: inPage.document.documentElement.scrollWidth, innerWidth: inPage.innerWidth };
  });
  return Math.max(0, scrollWidth - Math.min(innerWidth, screen));
}

/** The little of the DOM the table cell check reads (the project's lib has no DOM types). */
interface CellNode {
  readonly clientWidth: number;
  readonly textContent: string | null;
  readonly cellIndex: number;
  readonly rowIndex: number;
  readonly parentElement: CellNode | null;
  readonly childNodes: ArrayLike<{ cloneNode(deep: boolean): unknown }>;
  readonly style: { setProperty(name: string, value: string, priority: string): void };
  querySelectorAll(selectors: string): ArrayLike<CellNode>;
  closest(selectors: string): CellNode | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { width: number };
  append(...nodes: unknown[]): void;
  remove(): void;
}

interface CellWindow {
  document: { querySelectorAll(selectors: string): ArrayLike<CellNode>; createElement(tag: string): CellNode };
  getComputedStyle(node: CellNode): { display: string; paddingLeft: string; paddingRight: string };
}

/**
 * Evaluated in the page: each table cell (td, th) narrower than the widest word it holds, named by
 * its table's label, row, column and text. The widest word is measured in the page, in the cell's
 * own fonts: the cell's content is copied into a hidden box of `width: min-content` inside the
 * cell, every element of it held to `overflow-wrap: normal` and `word-break: normal`, so the box
 * is as wide as the longest run the browser may not break (between spaces, after a hyphen, at a
 * <wbr>), whatever the page's own styles allow. The cell's width is its content box.
 */
function cellsNarrowerThanTheirWords(): string[] {
  const w = globalThis as unknown as CellWindow;
  const found: string[] = [];
  for (const cell of Array.from(w.document.querySelectorAll('td, th'))) {
    const style = w.getComputedStyle(cell);
    if (style.display === 'none' || cell.getBoundingClientRect().width === 0) continue;
    const width = cell.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
    const probe = w.document.createElement('div');
    probe.append(...Array.from(cell.childNodes, (node) => node.cloneNode(true)));
    for (const [name, value] of [
      ['position', 'absolute'],
      ['visibility', 'hidden'],
      ['width', 'min-content'],
    ])
      probe.style.setProperty(name as string, value as string, 'important');
    for (const node of [probe, ...Array.from(probe.querySelectorAll('*'))]) {
      node.style.setProperty('overflow-wrap', 'normal', 'important');
      node.style.setProperty('word-break', 'normal', 'important');
    }
    cell.append(probe);
    const word = probe.getBoundingClientRect().width;
    probe.remove();
    // Half a pixel for rounding: clientWidth is a whole number.
    if (word <= width + 0.5) continue;
    const table = cell.closest('table');
    const label = cell.closest('[aria-label]')?.getAttribute('aria-label') ?? 'a table';
    const column = table?.querySelectorAll('thead th')[cell.cellIndex]?.textContent?.trim() ?? `${cell.cellIndex + 1}`;
    const text = (cell.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 80);
    found.push(
      `${label}, row ${cell.parentElement?.rowIndex}, column ${column}: ${width.toFixed(1)} px wide, its widest word ${word.toFixed(1)} px ("${text}")`,
    );
  }
  return found;
}

/**
 * The page's table cells narrower than the widest word they hold (cellsNarrowerThanTheirWords),
 * at each of `screens` in turn (the page as it is when none), each named with the screen's width;
 * the page is left at the size it had.
 */
export async function narrowCells(page: Page, screens: readonly BrowserContextOptions[] = []): Promise<string[]> {
  const size = page.viewportSize();
  const found: string[] = [];
  for (const screen of screens.length > 0 ? screens : [{}]) {
    if (screen.viewport) await page.setViewportSize(screen.viewport);
    const width = page.viewportSize()?.width;
    found.push(...(await page.evaluate(cellsNarrowerThanTheirWords)).map((cell) => `at ${width} px: ${cell}`));
  }
  if (size && screens.length > 0) await page.setViewportSize(size);
  return found;
}

/**
 * A page's HTML as it was served (a form's answer cannot be fetched again), replayed at its own
 * address so that its stylesheets load, in a context that bypasses CSP only so that axe-core can
 * be injected: axe's serious and critical violations, how much wider than the screen it is, and
 * its table cells narrower than their widest word (narrowCells).
 */
export async function checkServedHtml(
  browser: Browser,
  url: string,
  html: string,
  options: BrowserContextOptions,
  screenshotPath?: string,
): Promise<{ violations: string[]; overflow: number; narrow: string[] }> {
  const context = await browser.newContext({ ...options, bypassCSP: true });
  try {
    await context.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
    const page = await context.newPage();
    await page.goto(url);
    const violations = await axeOnPage(page);
    if (screenshotPath) await page.screenshot({ path: screenshotPath, fullPage: true });
    return { violations, overflow: await horizontalOverflow(page), narrow: await narrowCells(page) };
  } finally {
    await context.close();
  }
}
