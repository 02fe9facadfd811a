/**
 * A real browser for the web console's tests, driven by playwright-core, and screenshots kept as
 * artifacts. The browser is the headless Chromium that the @sparticuz/chromium package ships
 * inside itself, with the NSS libraries and fonts it needs, so `npm ci` alone brings it;
 * `BROOK_CHROMIUM=/path/to/chrome` picks another.
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type Browser, type LaunchOptions, type Page } from 'playwright-core';
import { extract } from 'tar-fs';

/** Where the tests' screenshots go (git-ignored). */
export const SCREENSHOTS = fileURLToPath(new URL('../../artifacts/console/', import.meta.url));

const PACKAGE = '@sparticuz/chromium';

/** The package's folder: it exports no `package.json`, so it is found from its entry point. */
function packageFolder(): string {
  const entry = createRequire(import.meta.url).resolve(PACKAGE);
  return entry.slice(0, entry.lastIndexOf(PACKAGE) + PACKAGE.length);
}

/**
 * Unpacks the package's brotli-compressed Chromium, its software GL, its NSS libraries (Amazon
 * Linux's, which run on any glibc from 2.34) and its fonts into `dir`.
 */
async function unpack(bin: string, dir: string): Promise<void> {
  const inflate = (name: string) => createReadStream(join(bin, name)).pipe(createBrotliDecompress());
  await pipeline(inflate('chromium.br'), createWriteStream(join(dir, 'chromium'), { mode: 0o755 }));
  await pipeline(inflate('swiftshader.tar.br'), extract(dir));
  await pipeline(inflate('al2023.tar.br'), extract(dir));
  await pipeline(inflate('fonts.tar.br'), extract(dir));
  // The package's fonts.conf names Lambda's folders: this one adds its fonts to the system's.
  writeFileSync(
    join(dir, 'fonts.conf'),
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
      `  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n  <dir>${join(dir, 'fonts')}</dir>\n` +
      `  <cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
  );
}

/**
 * The package's Chromium, unpacked once per version into the temporary directory. Two test files
 * may start at once: each unpacks into a fresh folder, renamed into place whole, so neither runs a
 * half-written browser.
 */
async function packagedChromium(): Promise<LaunchOptions> {
  const folder = packageFolder();
  const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string };
  const home = join(tmpdir(), `brook-chromium-${version}`);
  if (!existsSync(join(home, 'chromium'))) {
    const staging = await mkdtemp(join(tmpdir(), 'brook-chromium-unpacking-'));
    await unpack(join(folder, 'bin'), staging);
    // Another test file may have put its copy in place first; that one is as good.
    await rename(staging, home).catch(() => rm(staging, { recursive: true, force: true }));
  }
  const env = { ...process.env, LD_LIBRARY_PATH: join(home, 'lib'), FONTCONFIG_FILE: join(home, 'fonts.conf') };
  return { executablePath: join(home, 'chromium'), env };
}

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const browser = process.env.BROOK_CHROMIUM === undefined ? await packagedChromium() : { executablePath: process.env.BROOK_CHROMIUM };
  // Running as root (CI) needs the sandbox off.
  return chromium.launch({ ...browser, args: ['--no-sandbox'] });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}
