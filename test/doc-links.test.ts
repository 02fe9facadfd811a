/** ARCHITECTURE.md's links into other documents' sections lead somewhere. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');
}

test('every section ARCHITECTURE.md links to exists', async () => {
  const architecture = await readFile('ARCHITECTURE.md', 'utf8');
  const links = [...architecture.matchAll(/\]\(([^)#\s]+\.md)#([^)\s]+)\)/g)].map((m) => [m[1]!, m[2]!] as const);
  assert.ok(links.length > 0, 'ARCHITECTURE.md links to sections');
  for (const [file, anchor] of links) {
    const headings = (await readFile(file, 'utf8')).split('\n').filter((line) => /^#{1,6} /.test(line));
    const anchors = headings.map((line) => anchorOf(line.replace(/^#+ /, '')));
    assert.ok(anchors.includes(anchor), `${file}#${anchor} names no heading`);
  }
});
