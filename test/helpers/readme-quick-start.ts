/** The README's quick start as written: its commands and snippets, read from the README itself. */
import { readFile } from 'node:fs/promises';

const README = new URL('../../README.md', import.meta.url);

/** The address the README's snippets connect to: where `brook serve` listens by default. */
export const README_ADDRESS = '127.0.0.1:9092';

export interface Block {
  readonly lang: string;
  readonly code: string;
}

/** The README's section under the heading `title`, up to the next heading of its level or above. */
export async function readmeSection(title: string): Promise<string> {
  const lines = (await readFile(README, 'utf8')).split('\n');
  const start = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, '') === title);
  if (start < 0) throw new Error(`README.md has no heading "${title}"`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  let inCode = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    if (lines[end]!.startsWith('```')) inCode = !inCode;
    const heading = /^(#+) /.exec(lines[end]!);
    if (!inCode && heading !== null && heading[1]!.length <= level) break;
  }
  return lines.slice(start, end).join('\n');
}

/** The fenced code blocks of some Markdown, in order. */
export function fencedBlocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));
}

/** The one block of `blocks` that contains `text`. */
export function blockWith(blocks: readonly Block[], text: string): Block {
  const found = blocks.filter((b) => b.code.includes(text));
  if (found.length !== 1) throw new Error(`the README's quick start has ${found.length} blocks with "${text}", not one`);
  return found[0]!;
}

/** The `brook serve` arguments of the quick start's first command, `npm ci && npx brook serve ...`. */
export async function quickStartServeArgs(): Promise<string[]> {
  const [first] = fencedBlocks(await readmeSection('Quick start'));
  const m = /^npm ci && npx brook serve((?: +[^\s]+)*) *$/m.exec(first?.code ?? '');
  if (m === null) throw new Error(`the quick start's first block is not "npm ci && npx brook serve":\n${first?.code}`);
  return m[1]!.split(' ').filter((word) => word !== '');
}

/** The snippets of "Send and read a message", with the README's address replaced by `bootstrap`. */
export async function sendAndReadSnippets(bootstrap: string): Promise<Block[]> {
  const blocks = fencedBlocks(await readmeSection('Send and read a message'));
  for (const b of blocks) if (!b.code.includes(README_ADDRESS)) throw new Error(`a quick start snippet does not connect to ${README_ADDRESS}:\n${b.code}`);
  return blocks.map((b) => ({ lang: b.lang, code: b.code.replaceAll(README_ADDRESS, bootstrap) }));
}
