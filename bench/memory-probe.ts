/**
 * Run by memory.ts as `node --expose-gc … memory-probe.ts PRODUCERS BATCHES`: memory growth for
 * PRODUCERS producer states held the way a partition holds them (ProducerStates, fed through
 * replay(), which recovery feeds and which takes the producer decision appends take), each after
 * BATCHES batches. Prints {"bytesPerState":..}.
 */
import { ProducerStates } from '../src/log/producer-states.js';
import type { BatchHeader } from '../src/protocol/record-batch.js';

const gc = globalThis.gc;
if (gc === undefined) throw new Error('memory-probe needs node --expose-gc');
const producers = Number(process.argv[2]);
const batches = Number(process.argv[3]);

function fill(count: number): ProducerStates {
  const states = new ProducerStates();
  const now = Date.now();
  let offset = 0;
  // Batch by batch across producers, as interleaved traffic arrives.
  for (let b = 0; b < batches; b++) {
    for (let p = 0; p < count; p++) {
      const header: BatchHeader = {
        baseOffset: 0,
        size: 0,
        magic: 2,
        attributes: 0,
        lastOffsetDelta: 99,
        baseTimestamp: now,
        maxTimestamp: now,
        producerId: BigInt(1000 + p),
        producerEpoch: 0,
        baseSequence: b * 100,
        recordCount: 100,
      };
      states.replay(header, offset, now);
      offset += 100;
    }
  }
  return states;
}

/** The JavaScript heap and the typed arrays' memory outside it. */
function held(): number {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/** Collects garbage twice, a turn apart: typed arrays' memory is given back only after the turn. */
async function collect(): Promise<void> {
  gc!();
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc!();
}

fill(1000); // compiles and warms the code, so that the measurement holds only data
await collect();
const before = held();
const states = fill(producers);
await collect();
const after = held();
if (states.get(1000n) === undefined) throw new Error('no state kept');
console.log(JSON.stringify({ bytesPerState: (after - before) / producers }));
