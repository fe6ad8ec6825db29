/**
 * Debian's Chromium driven by playwright-core (no browser download: playwright-core never fetches
 * one). CI installs it with `apt-get install -y chromium`; outside CI a suite that needs it skips,
 * saying so, only when the binary is missing.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

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
