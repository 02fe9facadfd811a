// Records what a Kafka release's request schemas say of the versions a broker advertises: for
// every request schema of the release, its API key, listeners, valid versions and whether its
// latest version is unstable. Read from a git copy of Kafka's history at the release's commit.
// Usage: node --import tsx scripts/record-kafka-release.ts GIT_DIR COMMIT RELEASE "SOURCE"
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [gitDir, commit, release, source] = process.argv.slice(2);
if (gitDir === undefined || commit === undefined || release === undefined || source === undefined) {
  console.error('usage: record-kafka-release.ts GIT_DIR COMMIT RELEASE SOURCE');
  process.exit(1);
}
const MESSAGES = 'clients/src/main/resources/common/message/';
const git = (...args: string[]): string => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });

const files = git('ls-tree', '--name-only', `${commit}:${MESSAGES}`)
  .split('\n')
  .filter((f) => f.endsWith('Request.json'));
const requests = files
  .map((file) => {
    // The schemas only have whole-line // comments.
    const schema = JSON.parse(git('show', `${commit}:${MESSAGES}${file}`).replace(/^\s*\/\/.*$/gm, '')) as {
      apiKey: number;
      name: string;
      listeners?: string[];
      validVersions: string;
      latestVersionUnstable?: boolean;
    };
    return {
      apiKey: schema.apiKey,
      name: schema.name.replace(/Request$/, ''),
      listeners: schema.listeners ?? [],
      validVersions: schema.validVersions,
      latestVersionUnstable: schema.latestVersionUnstable ?? false,
    };
  })
  .sort((a, b) => a.apiKey - b.apiKey);
const out = join(dirname(fileURLToPath(import.meta.url)), 'kafka-schemas/releases', `${release}.json`);
writeFileSync(out, JSON.stringify({ release, commit, source, requests }, null, 2) + '\n');
console.log(`${out}: ${requests.length} requests`);
