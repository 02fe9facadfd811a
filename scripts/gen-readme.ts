/** Writes the README's settings tables from the settings table: `npm run gen:readme`. */
import { readFile, writeFile } from 'node:fs/promises';
import { withSettingsTables } from './readme-settings.js';

const path = new URL('../README.md', import.meta.url);
await writeFile(path, withSettingsTables(await readFile(path, 'utf8')));
