/**
 * A reader for one flat JSON object per line. JSON.parse cannot be used: it rounds integers
 * past 2^53 and silently keeps the last of two repeated keys; both must be reported here.
 * Numbers come back as their source text; nested objects and arrays are refused.
 */

export type FlatValue = { kind: 'number'; text: string } | { kind: 'string'; value: string } | { kind: 'literal'; text: string };

const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;
const SPACE = /[ \t\n\r]*/y;

export class FlatJsonError extends Error {}

export function parseFlatJsonObject(text: string): Map<string, FlatValue> {
  let pos = 0;
  const skipSpace = (): void => {
    SPACE.lastIndex = pos;
    SPACE.exec(text);
    pos = SPACE.lastIndex;
  };
  const match = (re: RegExp): string | undefined => {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (m === null) return undefined;
    pos = re.lastIndex;
    return m[0];
  };
  const expect = (ch: string, what: string): void => {
    skipSpace();
    if (text[pos] !== ch) throw new FlatJsonError(`broken JSON: expected ${what} at column ${pos + 1}`);
    pos++;
  };

  const fields = new Map<string, FlatValue>();
  expect('{', "'{'");
  skipSpace();
  if (text[pos] === '}') pos++;
  else {
    for (;;) {
      skipSpace();
      const keyToken = match(STRING);
      if (keyToken === undefined) throw new FlatJsonError(`broken JSON: expected a quoted key at column ${pos + 1}`);
      const key = JSON.parse(keyToken) as string;
      if (fields.has(key)) throw new FlatJsonError(`field '${key}' given twice`);
      expect(':', "':'");
      skipSpace();
      fields.set(key, readValue(key));
      skipSpace();
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      expect('}', "',' or '}'");
      break;
    }
  }
  skipSpace();
  if (pos !== text.length) throw new FlatJsonError(`broken JSON: unexpected text after the object at column ${pos + 1}`);
  return fields;

  function readValue(key: string): FlatValue {
    const ch = text[pos];
    if (ch === '{' || ch === '[') throw new FlatJsonError(`field '${key}' must not be an object or array`);
    const str = match(STRING);
    if (str !== undefined) return { kind: 'string', value: JSON.parse(str) as string };
    const num = match(NUMBER);
    if (num !== undefined) return { kind: 'number', text: num };
    const lit = match(LITERAL);
    if (lit !== undefined) return { kind: 'literal', text: lit };
    throw new FlatJsonError(`broken JSON: expected a value for '${key}' at column ${pos + 1}`);
  }
}
