/**
 * --producer-ids-per-hour: each principal is handed at most that many new producer ids in an
 * hour, counted per minute; the rest are refused THROTTLING_QUOTA_EXCEEDED with the wait, while
 * epoch bumps, transactional ids and other principals go on.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { startBroker, type Broker } from '../src/index.js';
import { ProducerIdQuota, WINDOW_MS } from '../src/broker/producer-id-quota.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../src/protocol/messages/init-producer-id.js';
import { runBrook } from './helpers/cli.js';
import { WireClient } from './helpers/wire-client.js';
import { Kafka, logLevel } from 'kafkajs';

const MINUTE = 60_000;

test('the quota grants what a model of the last hour by minutes grants, waits until its oldest minute leaves, and forgets idle principals', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 4 }),
      fc.array(
        fc.record({
          principal: fc.constantFrom('a', 'b', 'c'),
          step: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3 * MINUTE }), fc.integer({ min: 0, max: 2 * WINDOW_MS })),
        }),
        {
          maxLength: 60,
        },
      ),
      (perHour, calls) => {
        const quota = new ProducerIdQuota(perHour);
        /** By principal, the minute of each id granted, and the last minute it asked in. */
        const granted = new Map<string, number[]>();
        const asked = new Map<string, number>();
        let now = 1_000_000 * MINUTE;
        for (const { principal, step } of calls) {
          now += step;
          const minute = Math.floor(now / MINUTE);
          const inWindow = (granted.get(principal) ?? []).filter((m) => m > minute - 60);
          const wait = quota.take(principal, now);
          if (inWindow.length < perHour) {
            assert.equal(wait, 0);
            inWindow.push(minute);
          } else {
            assert.equal(wait, (Math.min(...inWindow) + 60) * MINUTE - now);
            assert.ok(wait > 0 && wait <= WINDOW_MS);
          }
          granted.set(principal, inWindow);
          asked.set(principal, minute);
          assert.equal(quota.size, [...asked.values()].filter((m) => m > minute - 60).length, 'principals kept');
        }
      },
    ),
  );
});

let usersFile: string;
let broker: Broker;

before(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'brook-pid-quota-'));
  usersFile = join(dir, 'users.json');
  for (const user of ['alice', 'bob', 'carol'])
    assert.equal((await runBrook(['add-user', '--users-file', usersFile, '--user', user], `${user}-secret\n`)).code, 0);
  broker = await startBroker({ port: 0, saslUsersFile: usersFile, producerIdsPerHour: 2 });
});

after(async () => {
  await broker.close();
  await rm(join(usersFile, '..'), { recursive: true, force: true });
});

async function as(user: string): Promise<WireClient> {
  const client = await WireClient.connect(broker.port);
  await client.authenticatePlain(user, `${user}-secret`);
  return client;
}

function init(client: WireClient, fields: Partial<InitProducerIdRequest> = {}): Promise<InitProducerIdResponse> {
  return client.request(InitProducerIdRequest, InitProducerIdResponse, 4, {
    transactionalId: null,
    transactionTimeoutMs: 60_000,
    producerId: -1n,
    producerEpoch: -1,
    ...fields,
  });
}

test('past its new producer ids for the hour a principal is refused THROTTLING_QUOTA_EXCEEDED with the wait; bumps, transactional ids and other users go on', async () => {
  const alice = await as('alice');
  const bob = await as('bob');
  try {
    const first = await init(alice);
    const second = await init(alice);
    assert.deepEqual([first.errorCode, second.errorCode], [ErrorCode.NONE, ErrorCode.NONE]);
    const refused = await init(alice);
    assert.equal(refused.errorCode, ErrorCode.THROTTLING_QUOTA_EXCEEDED);
    assert.equal(refused.producerId, -1n);
    assert.ok(refused.throttleTimeMs > 0 && refused.throttleTimeMs <= WINDOW_MS, `wait ${refused.throttleTimeMs} ms`);

    // A producer that has an id bumps its epoch (KIP-360) without a new id.
    const bumped = await init(alice, { producerId: first.producerId, producerEpoch: first.producerEpoch });
    assert.deepEqual([bumped.errorCode, bumped.producerId, bumped.producerEpoch], [ErrorCode.NONE, first.producerId, first.producerEpoch + 1]);
    // A transactional id's producer id is the coordinator's to give.
    assert.equal((await init(alice, { transactionalId: 'alice-tx' })).errorCode, ErrorCode.NONE);
    // Another principal has its own count.
    assert.equal((await init(bob)).errorCode, ErrorCode.NONE);
  } finally {
    alice.close();
    bob.close();
  }
});

test(
  'kafkajs: an idempotent producer past the limit fails to connect with error 89, which kafkajs does not name; those before it produce',
  { timeout: 60_000 },
  async () => {
    const kafka = new Kafka({
      clientId: 'quota-test',
      brokers: [broker.bootstrap],
      logLevel: logLevel.NOTHING,
      sasl: { mechanism: 'plain', username: 'carol', password: 'carol-secret' },
    });
    const producers = [0, 1, 2].map(() => kafka.producer({ idempotent: true, retry: { retries: 1, initialRetryTime: 50 } }));
    try {
      await producers[0]!.connect();
      await producers[1]!.connect();
      await assert.rejects(producers[2]!.connect(), (err: Error) => /error code 89\b/.test(err.message));
      await producers[0]!.send({ topic: 'quota-kept', messages: [{ value: 'one' }] });
    } finally {
      await Promise.all(producers.map((p) => p.disconnect().catch(() => {})));
    }
  },
);
