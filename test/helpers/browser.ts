/** A real browser for the web console's tests: Debian's chromium driven by playwright-core, and screenshots kept as artifacts. */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's package (`apt-get install chromium`), which .ci/run installs. */
export const CHROMIUM = process.env.BROOK_CHROMIUM ?? '/usr/bin/chromium';

/** Where the tests' screenshots go (git-ignored). */
export const SCREENSHOTS = fileURLToPath(new URL('../../artifacts/console/', import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Running as root (CI) needs the sandbox off.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}
