/**
 * ARCHITECTURE.md's "may import" table (section "The shape") against the imports of `src/`: each
 * folder imports exactly the folders its row names, a row's "`x` from `file.ts` only" from that
 * file alone, and no file imports itself back through others. Type-only imports count: a type ties
 * one folder to another as much as a value does, and the compiler follows it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = 'src';

/** `import … from '…'`, `import '…'` and `export … from '…'`, each starting a line (so not in comments). */
const IMPORT = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

/** Every .ts file under src/, as a path from the repository root, with the src/ files it imports. */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(SRC, f))
    .sort();
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imported: string[] = [];
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (!specifier!.startsWith('.')) continue;
      // Imports name the .js the compiler writes for each .ts.
      const target = relative('.', resolve(dirname(file), specifier!.replace(/\.js$/, '.ts')));
      assert.ok(existsSync(target), `${file} imports ${specifier}, which the reader took for ${target}: no such file`);
      imported.push(target);
    }
    graph.set(file, imported);
  }
  return graph;
}

/** The table's name for the part of src/ a file is in: its folder, or `index.ts`. */
function partOf(file: string): string {
  return relative(SRC, file).split('/')[0]!;
}

interface Row {
  /** The parts it may import. */
  readonly may: readonly string[];
  /** A part that only the one file named (within the row's folder) may import. */
  readonly onlyFrom: ReadonlyMap<string, string>;
}

/** The table's rows by part: the parts each names, in backquotes, in its "may import" cell. */
function layerTable(parts: ReadonlySet<string>): Map<string, Row> {
  const text = readFileSync('ARCHITECTURE.md', 'utf8');
  const start = text.indexOf('\n## The shape\n');
  assert.ok(start >= 0, 'ARCHITECTURE.md has a section "The shape"');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  const rows = new Map<string, Row>();
  for (const line of section.split('\n').filter((l) => l.startsWith('| `src/'))) {
    const [, part, , may] = line.split('|').map((cell) => cell.trim());
    const name = /^`src\/([^`/]+)\/?`$/.exec(part!)?.[1];
    assert.ok(name !== undefined, `a row of the table names a part of src/ first: ${line}`);
    const named = [...may!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((n) => parts.has(n));
    const onlyFrom = new Map([...may!.matchAll(/`([^`]+)` from `([^`]+)` only/g)].map((m) => [m[1]!, join(SRC, name, m[2]!)]));
    rows.set(name, { may: [...new Set(named)].sort(), onlyFrom });
  }
  return rows;
}

const graph = importGraph();
const parts = new Set([...graph.keys()].map(partOf));

test('ARCHITECTURE.md has one row for each folder of src/ and for src/index.ts', () => {
  assert.deepEqual([...layerTable(parts).keys()].sort(), [...parts].sort());
});

/** A few of `files`, for a message. */
function few(files: ReadonlySet<string>): string {
  const shown = [...files].slice(0, 3).join(', ');
  return files.size > 3 ? `${shown} and ${files.size - 3} more` : shown;
}

test("each folder of src/ imports exactly the folders its row of ARCHITECTURE.md's table says it may", () => {
  const wrong: string[] = [];
  for (const [part, row] of layerTable(parts)) {
    // Each part it imports, with the files that import it.
    const imports = new Map<string, Set<string>>();
    for (const [file, imported] of graph) {
      if (partOf(file) !== part) continue;
      for (const other of imported.map(partOf).filter((p) => p !== part)) imports.set(other, (imports.get(other) ?? new Set()).add(file));
    }
    for (const [other, files] of imports) {
      if (!row.may.includes(other)) wrong.push(`${part} imports ${other}, which its row does not list (${few(files)})`);
    }
    for (const other of row.may) if (!imports.has(other)) wrong.push(`${part}'s row lists ${other}, which it does not import`);
    for (const [other, file] of row.onlyFrom) {
      const from = [...(imports.get(other) ?? [])].filter((f) => f !== file);
      if (from.length > 0) wrong.push(`${part} imports ${other} from ${file} only, not from ${from.join(', ')}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('no file of src/ imports itself back through others', () => {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): void => {
    const at = path.indexOf(file);
    assert.ok(at < 0, `an import cycle: ${[...path.slice(at), file].join(' → ')}`);
    if (done.has(file)) return;
    path.push(file);
    for (const target of graph.get(file)!) visit(target);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
});
