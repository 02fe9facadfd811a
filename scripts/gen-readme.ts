/** Writes the README's settings tables from the settings table, and its APIs table: `npm run gen:readme`. */
import { readFile, writeFile } from 'node:fs/promises';
import { withApisTable } from './readme-apis.js';
import { withSettingsTables } from './readme-settings.js';

const path = new URL('../README.md', import.meta.url);
await writeFile(path, withApisTable(withSettingsTables(await readFile(path, 'utf8'))));
