/** `brook producers`: a topic's idempotent producers, their open transactions and their windows, asked of a broker over the Kafka protocol. */
import type { Command } from 'commander';
import { BrookDescribeProducersResponse, type ProducerWindow } from '../protocol/producer-windows.js';
import type { WindowEntry } from '../idempotence/rules.js';
import { ErrorCode, errorCodeName } from '../protocol/error-codes.js';
import { DescribeProducersRequest, type DescribeProducersResponseProducerState } from '../protocol/messages/describe-producers.js';
import { MetadataRequest, MetadataResponse } from '../protocol/messages/metadata.js';
import { ZERO_UUID } from '../protocol/primitives/reader.js';
import { BrokerClient, DEFAULT_BOOTSTRAP } from './broker-client.js';
import { integer } from './arg-parser.js';
import { textTable } from './text-table.js';

const METADATA_VERSION = 12;
const HEADINGS = [
  'PARTITION',
  'PRODUCER ID',
  'EPOCH',
  'LAST SEQUENCE',
  'LAST TIMESTAMP',
  'OPEN TXN FROM',
  'WINDOW (first..last sequence @ base offset, oldest first)',
];

interface ProducersOptions {
  bootstrap: string;
  topic: string;
  partition?: number;
}

export function addProducersCommand(program: Command): void {
  program
    .command('producers')
    .description(
      "show a topic's idempotent producers: id, epoch, last sequence, last write, open transaction's first offset and the window of remembered batches",
    )
    .option('--bootstrap <host:port>', 'the broker to ask', DEFAULT_BOOTSTRAP)
    .requiredOption('--topic <name>', 'the topic')
    .option('--partition <n>', 'only this partition', integer(0, 2 ** 31 - 1))
    .action(async (o: ProducersOptions) => {
      const response = await BrokerClient.asking(o.bootstrap, async (client) => {
        const partitions = await partitionsToShow(client, o.topic, o.partition);
        return client.request(DescribeProducersRequest, BrookDescribeProducersResponse, 0, { topics: [{ name: o.topic, partitionIndexes: partitions }] });
      });
      process.stdout.write(table(o.topic, response));
    });
}

/** The partitions asked for, checked against the broker's metadata without creating the topic. */
async function partitionsToShow(client: BrokerClient, topic: string, partition: number | undefined): Promise<number[]> {
  const metadata = await client.request(MetadataRequest, MetadataResponse, METADATA_VERSION, {
    topics: [{ topicId: ZERO_UUID, name: topic }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  const found = metadata.topics.find((t) => t.name === topic);
  if (found === undefined || found.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) throw new Error(`topic '${topic}' does not exist`);
  if (found.errorCode !== ErrorCode.NONE) throw new Error(`the broker refused to describe topic '${topic}' (error ${errorName(found.errorCode)})`);
  const all = found.partitions.map((p) => p.partitionIndex).sort((a, b) => a - b);
  if (partition === undefined) return all;
  if (!all.includes(partition)) throw new Error(`topic '${topic}' has no partition ${partition} (it has ${all.length})`);
  return [partition];
}

function table(topic: string, response: BrookDescribeProducersResponse): string {
  const windows = new Map(response.windows.map((w) => [windowKey(w.partition, w.producerId), w]));
  const rows: string[][] = [];
  for (const p of response.topics.flatMap((t) => t.partitions)) {
    if (p.errorCode !== ErrorCode.NONE)
      throw new Error(`the broker could not describe partition ${p.partitionIndex} of '${topic}' (error ${errorName(p.errorCode)})`);
    const producers = [...p.activeProducers].sort((a, b) => (a.producerId < b.producerId ? -1 : 1));
    for (const producer of producers) rows.push(row(p.partitionIndex, producer, windows.get(windowKey(p.partitionIndex, producer.producerId))));
  }
  if (rows.length === 0) return `topic '${topic}' has no idempotent producers\n`;
  return textTable(HEADINGS, rows);
}

function row(partition: number, producer: DescribeProducersResponseProducerState, window: ProducerWindow | undefined): string[] {
  return [
    String(partition),
    String(producer.producerId),
    String(producer.producerEpoch),
    String(producer.lastSequence),
    producer.lastTimestamp < 0n ? '-' : new Date(Number(producer.lastTimestamp)).toISOString(),
    producer.currentTxnStartOffset < 0n ? '-' : String(producer.currentTxnStartOffset),
    // A broker other than brook sends no window.
    window === undefined ? '-' : window.batches.map(formatBatch).join(' '),
  ];
}

function formatBatch(b: WindowEntry): string {
  return `${b.firstSeq}..${b.lastSeq}@${b.baseOffset}`;
}

function windowKey(partition: number, producerId: bigint): string {
  return `${partition}/${producerId}`;
}

function errorName(code: number): string {
  return errorCodeName(code) ?? String(code);
}
