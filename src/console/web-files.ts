/**
 * The console's page and its scripts, served from the package's files: web/ beside src/ and dist/,
 * and the ES modules of preact and htm from node_modules, read once when the console starts.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WebFile {
  readonly type: string;
  readonly body: Buffer;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The modules the page imports by bare name (its import map names these paths). */
const VENDOR: Record<string, string> = { 'preact.mjs': 'preact', 'hooks.mjs': 'preact/hooks', 'htm.mjs': 'htm' };

export interface WebFiles {
  /** The page every view's URL answers with. */
  readonly page: WebFile;
  /** By URL path: /assets/… and /vendor/…. */
  readonly files: ReadonlyMap<string, WebFile>;
  /** The Content-Security-Policy: scripts from the console only, and the page's one inline import map by its hash. */
  readonly policy: string;
}

export async function loadWebFiles(): Promise<WebFiles> {
  const dir = fileURLToPath(new URL('../../web/', import.meta.url));
  const files = new Map<string, WebFile>();
  for (const name of await readdir(dir)) {
    if (name !== 'index.html' && TYPES[extname(name)] !== undefined)
      files.set(`/assets/${name}`, { type: TYPES[extname(name)]!, body: await readFile(join(dir, name)) });
  }
  for (const [name, specifier] of Object.entries(VENDOR)) {
    files.set(`/vendor/${name}`, { type: TYPES['.mjs']!, body: await readFile(fileURLToPath(import.meta.resolve(specifier))) });
  }
  const html = await readFile(join(dir, 'index.html'), 'utf8');
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  const hash = createHash('sha256').update(importMap).digest('base64');
  const policy = [
    "default-src 'self'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
  return { page: { type: TYPES['.html']!, body: Buffer.from(html) }, files, policy };
}
