/** The documents' links to files and sections lead somewhere: the README, ARCHITECTURE.md, bench/README.md and docs/. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { access, readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');
}

async function anchorsOf(file: string): Promise<string[]> {
  const headings = withoutCode(await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line));
  return headings.map((line) => anchorOf(line.replace(/^#+ /, '')));
}

/** The text outside fenced code blocks, where a `](` is code, not a link. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
}

/** Each relative link of `file`, as the file it names (from the repository's root) and its anchor. */
async function linksOf(file: string): Promise<{ target: string; anchor: string | undefined }[]> {
  const text = withoutCode(await readFile(file, 'utf8'));
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((link) => !/^[a-z]+:/.test(link))
    .map((link) => {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      return { target: path === '' ? file : normalize(join(dirname(file), path)), anchor };
    });
}

test('every section ARCHITECTURE.md links to exists', async () => {
  const links = (await linksOf('ARCHITECTURE.md')).filter((l) => l.target.endsWith('.md') && l.anchor !== undefined);
  assert.ok(links.length > 0, 'ARCHITECTURE.md links to sections');
  for (const { target, anchor } of links) assert.ok((await anchorsOf(target)).includes(anchor!), `${target}#${anchor} names no heading`);
});

test('every file and section the README, ARCHITECTURE.md, docs/ and bench/README.md link to exist', async () => {
  const docs = (await readdir('docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  for (const file of ['README.md', 'ARCHITECTURE.md', 'bench/README.md', ...docs]) {
    const links = await linksOf(file);
    assert.ok(links.length > 0, `${file} has links`);
    for (const { target, anchor } of links) {
      await access(target).catch(() => assert.fail(`${file} links to ${target}, which does not exist`));
      if (anchor !== undefined) assert.ok((await anchorsOf(target)).includes(anchor), `${file} links to ${target}#${anchor}, which names no heading`);
    }
  }
});
