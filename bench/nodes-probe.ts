/**
 * Run by nodes.ts as `node --expose-gc … nodes-probe.ts NODES ROUNDS`: startBroker({ nodes })
 * timed from the call to its resolving (fastest of ROUNDS starts, each closed before the next),
 * and the process's resident memory once the last is started and idle, after a collection.
 * Prints {"startMs":..,"idleBytes":..}.
 */
import { startBroker } from '../src/broker/start-broker.js';

const gc = globalThis.gc;
if (gc === undefined) throw new Error('nodes-probe needs node --expose-gc');
const nodes = Number(process.argv[2]);
const rounds = Number(process.argv[3]);

let startMs = Infinity;
for (let round = 0; round < rounds; round++) {
  const started = performance.now();
  const broker = await startBroker({ nodes });
  startMs = Math.min(startMs, performance.now() - started);
  if (round < rounds - 1) await broker.close();
  else {
    gc();
    const idleBytes = process.memoryUsage().rss;
    await broker.close();
    console.log(JSON.stringify({ startMs, idleBytes }));
  }
}
