/** The settings table as users meet it: `brook serve`'s flags, DescribeConfigs, and the README. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { withSettingsTables } from '../scripts/readme-settings.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../src/protocol/messages/describe-configs.js';
import { FLAGS, flagOf, type Setting } from '../src/settings/settings.js';
import { TOPIC_CONFIG_OF_SETTING } from '../src/settings/topic-configs.js';
import { runBrook } from './helpers/cli.js';
import { startServe } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

/** Kafka's ConfigSource of a setting the broker was given. */
const STATIC_BROKER_CONFIG = 4;

/** A value of the setting other than its default, as the flag's arguments and as Kafka shows it. */
function otherThanDefault(name: string, s: Setting): { args: string[]; shown: string } {
  const flag = flagOf(name, s);
  if (s.kind.parse === undefined) return { args: [flag], shown: String(!s.default) };
  // A list: its items but the first.
  if (Array.isArray(s.default)) return { args: [flag, s.default.slice(1).join(',')], shown: s.default.slice(1).join(',') };
  const d = Number(s.default);
  const text = s.kind.choices?.find((c) => c !== s.default) ?? [d + 1, d - 1, d / 2].map(String).find((t) => s.kind.fits(Number(t)))!;
  return { args: [flag, text], shown: text };
}

test('each flag of a Kafka broker config reaches DescribeConfigs under its name, and the topic configs it is the default of', async () => {
  const given = FLAGS.filter(([name, s]) => s.broker !== undefined && name !== 'dataDir').map(([name, s]) => ({
    s,
    topic: TOPIC_CONFIG_OF_SETTING.get(name),
    ...otherThanDefault(name, s),
  }));
  const serve = await startServe(given.flatMap((g) => g.args));
  const c = await WireClient.connect(serve.port);
  try {
    await createTopic(c, 'configured', 1);
    const described = await c.request(DescribeConfigsRequest, DescribeConfigsResponse, 4, {
      resources: [
        { resourceType: 4, resourceName: '1', configurationKeys: null },
        { resourceType: 2, resourceName: 'configured', configurationKeys: null },
      ],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    const [broker, topic] = described.results.map((r) => new Map(r.configs.map((config) => [config.name, [config.value, config.configSource]])));
    for (const { s, topic: config, shown } of given) {
      assert.deepEqual(broker!.get(s.broker!), [shown, STATIC_BROKER_CONFIG], s.broker);
      if (config !== undefined) assert.deepEqual(topic!.get(config), [shown, STATIC_BROKER_CONFIG], config);
    }
    assert.deepEqual(broker!.get('log.dirs'), [serve.dataDir, STATIC_BROKER_CONFIG]);
    // Those once named otherwise as startBroker options, and one that Kafka names unlike its flag.
    for (const name of ['queued.max.request.bytes', 'connections.max.idle.ms', 'log.roll.ms'])
      assert.ok(
        given.some((g) => g.s.broker === name),
        name,
      );
  } finally {
    c.close();
    await serve.stop();
  }
});

test('a repeatable flag named apart from its option: each --fault reaches startBroker as one of its faults, in order', async () => {
  const serve = await startServe(['--fault', 'Metadata,delayMs=5', '--fault', 'Produce,topic=orders,dropResponse,count=1']);
  try {
    const added = [...serve.output().matchAll(/"msg":"fault added: ([^"]*)"/g)].map((m) => m[1]);
    assert.deepEqual(added, [
      'Metadata requests: hold the answer back 5 ms',
      'Produce requests naming orders: drop the answer and close the connection, 1 time',
    ]);
  } finally {
    await serve.stop();
  }
  const refused = await runBrook(['serve', '--fault', 'Produse,dropResponse']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /^error: option '--fault <spec>' argument 'Produse,dropResponse' is invalid\. It names unknown API 'Produse'/);
});

test("the README's flags and startBroker options tables are what npm run gen:readme makes of the settings", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const made = withSettingsTables(readme);
  const firstDifference = made.split('\n').find((line, i) => line !== readme.split('\n')[i]);
  assert.equal(made, readme, `README.md differs from the settings table (run npm run gen:readme), first at:\n${firstDifference}`);
});
