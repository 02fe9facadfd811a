/**
 * Damage on disk in an old segment (one recovery trusts, as it lies before the recovery point):
 * Fetch answers the batches before it, then an error at it, never an empty answer; other
 * partitions and the segments after it are served; the failures are counted and logged.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { parseOffsetFileName } from '../src/log/segment.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { valuesBatch } from './helpers/batch.js';
import { kafkajs } from './helpers/kafkajs.js';
import { batchesIn } from './helpers/log.js';
import { scrape } from './helpers/scrape.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

const { CORRUPT_MESSAGE, KAFKA_STORAGE_ERROR, OFFSET_OUT_OF_RANGE } = ErrorCode;
const TOPIC = 'logs';
const SEGMENT_BYTES = 400;
const FAILED_FETCHES = 'brook_failed_fetch_requests_total';
/** Batch timestamps, a second apart, from an hour ago. */
const T0 = Date.now() - 3_600_000;

/** Where a batch lies in a segment file. */
interface Placed {
  readonly position: number;
  readonly size: number;
  readonly baseOffset: number;
}

/** What a damage does to a segment file, given where its batches lie; it damages the second one. */
type Damage = (file: string, batches: readonly Placed[]) => Promise<void>;

interface Damaged {
  readonly broker: Broker;
  readonly client: WireClient;
  readonly dataDir: string;
  /** What partitions 0 and 1 were sent, each batch as `base@digest` (see stored()). */
  readonly sent: readonly string[][];
  /** The damaged segment's file, and the position and offset of its damaged batch. */
  readonly file: string;
  readonly damagedPosition: number;
  readonly damagedOffset: number;
  /** Where the segment after the damaged one starts. */
  readonly nextSegment: number;
  readonly highWatermark: number;
  /** The broker's log lines since the restart. */
  readonly logs: () => Record<string, unknown>[];
}

/**
 * Writes 12 batches of 3 records to partition 0 of a topic (several segments) and 3 to partition 1
 * through a broker, stops it, damages the second segment of partition 0 and starts it again.
 */
async function damagedLog(t: TestContext, damage: Damage, options: { retentionMs?: number; retentionCheckIntervalMs?: number } = {}): Promise<Damaged> {
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-damage-'));
  const first = await startBroker({ port: 0, dataDir, segmentBytes: SEGMENT_BYTES });
  const writer = await WireClient.connect(first.port);
  await createTopic(writer, TOPIC, 2);
  const sent: string[][] = [[], []];
  for (const [partition, count] of [
    [0, 12],
    [1, 3],
  ] as const) {
    for (let i = 0; i < count; i++) {
      const batch = valuesBatch(3, { baseTimestamp: T0 + i * 1000 }, `p${partition}-b${i}-`);
      const { errorCode, baseOffset } = await produceBatch(writer, TOPIC, partition, batch);
      assert.equal(errorCode, 0);
      batch.writeBigInt64BE(BigInt(baseOffset), 0);
      sent[partition]!.push(stored(batch));
    }
  }
  writer.close();
  await first.close();

  const partitionDir = join(dataDir, `${TOPIC}-0`);
  const bases = (await readdir(partitionDir)).flatMap((n) => parseOffsetFileName(n, '.log') ?? []).sort((a, b) => a - b);
  assert.ok(bases.length >= 3, `segments ${bases}: the damaged one must be neither the first nor the last`);
  const file = join(partitionDir, `${String(bases[1]).padStart(20, '0')}.log`);
  const batches = placed(await readFile(file));
  assert.ok(batches.length >= 3, `the damaged segment holds ${batches.length} batches`);
  await damage(file, batches);

  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  const broker = await startBroker({ port: 0, dataDir, segmentBytes: SEGMENT_BYTES, metricsPort: 0, logger, ...options });
  const client = await WireClient.connect(broker.port);
  t.after(async () => {
    client.close();
    await broker.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    broker,
    client,
    dataDir,
    sent,
    file,
    damagedPosition: batches[1]!.position,
    damagedOffset: batches[1]!.baseOffset,
    nextSegment: bases[2]!,
    highWatermark: 36,
    logs: () => lines,
  };
}

/** A batch as its base offset and a digest of its bytes from its CRC on (the partition leader epoch before it is the broker's). */
function stored(batch: Buffer): string {
  return `${readBatchHeader(batch).baseOffset}@${createHash('sha256').update(batch.subarray(17)).digest('hex').slice(0, 12)}`;
}

function placed(bytes: Buffer): Placed[] {
  const out: Placed[] = [];
  for (let position = 0; position < bytes.length;) {
    const { size, baseOffset } = readBatchHeader(bytes, position);
    out.push({ position, size, baseOffset });
    position += size;
  }
  return out;
}

/** Rewrites `file` through `change`. */
async function edit(file: string, change: (bytes: Buffer) => Buffer): Promise<void> {
  await writeFile(file, change(await readFile(file)));
}

interface PartitionAnswer {
  readonly errorCode: number;
  readonly batches: Buffer[];
}

/** One Fetch naming partition 0 at `offset` and, when given, partition 1 at `offsetOf1`. */
async function fetchAt(client: WireClient, offset: number, offsetOf1?: number): Promise<PartitionAnswer[]> {
  const request = fetchOf(TOPIC, offsetOf1 === undefined ? [0] : [0, 1], { offset });
  if (offsetOf1 !== undefined) request.topics[0]!.partitions[1]!.fetchOffset = BigInt(offsetOf1);
  const res = await client.request(FetchRequest, FetchResponse, 12, request);
  return res.responses[0]!.partitions.map((p) => ({ errorCode: p.errorCode, batches: batchesIn(p.records ?? Buffer.alloc(0)) }));
}

/** Partition 0's batches (see stored()) fetched from `from` on, one Fetch after another, until one answers an error or the high watermark is reached. */
async function readOn(client: WireClient, from: number, hw: number): Promise<{ batches: string[]; stoppedAt: number; errorCode: number }> {
  const batches: string[] = [];
  let offset = from;
  for (;;) {
    const [answer] = await fetchAt(client, offset);
    if (answer!.errorCode !== 0 || offset >= hw) return { batches, stoppedAt: offset, errorCode: answer!.errorCode };
    assert.ok(answer!.batches.length > 0, `an empty answer without an error at ${offset}, below the high watermark ${hw}`);
    for (const b of answer!.batches) {
      batches.push(stored(b));
      const header = readBatchHeader(b);
      offset = header.baseOffset + header.lastOffsetDelta + 1;
    }
  }
}

/** The batches of `sent` whose base offset is in [from, to). */
function sentBetween(sent: readonly string[], from: number, to: number): string[] {
  return sent.filter((b) => Number(b.split('@')[0]) >= from && Number(b.split('@')[0]) < to);
}

async function failedFetches(broker: Broker): Promise<number> {
  return (await scrape(broker.metricsPort!)).get(FAILED_FETCHES) ?? 0;
}

const DAMAGES: [what: string, errorCode: number, damage: Damage][] = [
  ['a batch length below a batch header', CORRUPT_MESSAGE, (file, [, victim]) => edit(file, (b) => (b.writeInt32BE(20, victim!.position + 8), b))],
  ['a batch length running past the file', KAFKA_STORAGE_ERROR, (file, [, victim]) => edit(file, (b) => (b.writeInt32BE(0x7ffffff0, victim!.position + 8), b))],
  ['a byte flipped inside the records', CORRUPT_MESSAGE, (file, [, victim]) => edit(file, (b) => ((b[victim!.position + victim!.size - 3]! ^= 0x10), b))],
  [
    'a base offset moved back',
    KAFKA_STORAGE_ERROR,
    (file, [, victim]) => edit(file, (b) => (b.writeBigInt64BE(BigInt(victim!.baseOffset - 1), victim!.position), b)),
  ],
  ['the file cut short inside a batch', KAFKA_STORAGE_ERROR, (file, [, victim]) => truncate(file, victim!.position + 30)],
  ['the file cut short where a batch starts', KAFKA_STORAGE_ERROR, (file, [, victim]) => truncate(file, victim!.position)],
  [
    'bytes cut out of the middle of a batch',
    CORRUPT_MESSAGE,
    (file, [, victim]) => edit(file, (b) => Buffer.concat([b.subarray(0, victim!.position + 30), b.subarray(victim!.position + 50)])),
  ],
];

for (const [what, errorCode, damage] of DAMAGES) {
  test(`${what} in an old segment: Fetch serves the batches before it, answers ${errorCode} at it, serves the other partition and the segments after it, and counts each failure`, async (t) => {
    const d = await damagedLog(t, damage);
    const metricBefore = await failedFetches(d.broker);
    const before = await readOn(d.client, 0, d.highWatermark);
    assert.deepEqual(before.batches, sentBetween(d.sent[0]!, 0, d.damagedOffset), 'every batch before the damage, as sent');
    assert.deepEqual({ stoppedAt: before.stoppedAt, errorCode: before.errorCode }, { stoppedAt: d.damagedOffset, errorCode });

    // Again, with the other partition in the same request; every offset of the damaged batch fails alike.
    const [damaged, other] = await fetchAt(d.client, d.damagedOffset + 2, 0);
    assert.deepEqual(damaged, { errorCode, batches: [] });
    assert.equal(other!.errorCode, 0);
    assert.deepEqual(other!.batches.map(stored), d.sent[1]);

    const after = await readOn(d.client, d.nextSegment, d.highWatermark);
    assert.deepEqual(after.batches, sentBetween(d.sent[0]!, d.nextSegment, Infinity), 'the segments after the damaged one, whole');
    assert.equal(after.errorCode, 0);

    assert.equal((await failedFetches(d.broker)) - metricBefore, 2, `${FAILED_FETCHES} counts each failed partition read`);
    const reported = d.logs().filter((l) => l.msg === 'reading the log failed; failures in a row after this one are not logged');
    assert.equal(reported.length, 1, 'two failures in a row are logged once');
    const err = reported[0]!.err as Record<string, unknown>;
    assert.deepEqual([err.file, err.position, err.offset], [d.file, d.damagedPosition, d.damagedOffset], 'where the damage is');
  });
}

for (const [what, errorCode, damage] of [DAMAGES[0]!, DAMAGES[1]!, DAMAGES[2]!]) {
  test(`kafkajs consumes the records before ${what}, then fails with ${errorCode} rather than wait on empty answers`, { timeout: 30_000 }, async (t) => {
    const d = await damagedLog(t, damage);
    const kafka = kafkajs(d.broker.bootstrap);
    const consumer = kafka.consumer({ groupId: 'damage-readers', maxWaitTimeInMs: 100, retry: { retries: 0, restartOnFailure: async () => false } });
    await consumer.connect();
    t.after(() => consumer.disconnect());
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    const seen: number[] = [];
    let crash: { cause?: unknown; type?: string } | undefined;
    consumer.on(consumer.events.CRASH, ({ payload }) => (crash = payload.error));
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        if (partition === 0) seen.push(Number(message.offset));
      },
    });
    await until(() => crash !== undefined, `kafkajs fails at the damage (it consumed offsets ${seen.join()})`, 15_000);
    while (crash!.cause !== undefined) crash = crash!.cause as typeof crash;
    assert.equal(crash!.type, errorCode === CORRUPT_MESSAGE ? 'CORRUPT_MESSAGE' : 'KAFKA_STORAGE_ERROR');
    await until(() => seen.length >= d.damagedOffset, `the ${d.damagedOffset} records before the damage are consumed`);
    assert.deepEqual(
      seen,
      Array.from({ length: d.damagedOffset }, (_, i) => i),
    );
  });
}

test('ListOffsets by the time of a damaged batch answers: CORRUPT_MESSAGE where its bytes fail their CRC, an offset after it where its length is broken', async (t) => {
  for (const [damage, exact] of [
    [DAMAGES[2]![2], true],
    [DAMAGES[0]![2], false],
  ] as const) {
    const d = await damagedLog(t, damage);
    const byTime = await d.client.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [
        { name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: BigInt(T0 + (1000 * d.damagedOffset) / 3), maxNumOffsets: 1 }] },
      ],
      timeoutMs: 0,
    });
    const { errorCode, offset } = byTime.topics[0]!.partitions[0]!;
    if (exact) assert.deepEqual({ errorCode, offset }, { errorCode: CORRUPT_MESSAGE, offset: -1n });
    else assert.ok(errorCode === 0 && offset > BigInt(d.damagedOffset) && offset < BigInt(d.highWatermark), `answered ${errorCode} at ${offset}`);
    const [answer] = await fetchAt(d.client, 0);
    assert.equal(answer!.errorCode, 0, 'the connection is still served');
  }
});

test('retention past a damaged segment deletes it and goes on', async (t) => {
  const d = await damagedLog(t, DAMAGES[0]![2], { retentionMs: 30 * 60_000, retentionCheckIntervalMs: 50 });
  // Every batch is older than retention.ms: all but the active segment go, the damaged one too.
  const name = d.file.split('/').at(-1)!;
  await until(async () => !(await readdir(join(d.dataDir, `${TOPIC}-0`))).includes(name), 'the damaged segment is deleted');
  const [answer] = await fetchAt(d.client, 0);
  assert.equal(answer!.errorCode, OFFSET_OUT_OF_RANGE, 'offsets of deleted segments are out of range');
});
