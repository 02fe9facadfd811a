/** Produce's decisions counted per partition and producer (the console's producers view): against a model, and within their bound. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ProducerActivity, ProducerCounts, type ProducerDecision } from '../src/broker/producer-activity.js';

const VERDICTS = ['append', 'duplicate', 'out_of_order', 'fenced'] as const;

test('the counts are the decisions made, per partition and producer, of at most the newest producers counted; listeners hear each one', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(2), fc.bigInt(0n, 6n), fc.constantFrom(...VERDICTS)), { maxLength: 60 }),
      fc.integer({ min: 1, max: 5 }),
      (decisions, bound) => {
        const activity = new ProducerActivity();
        const logs = [0, 1, 2].map(() => new ProducerCounts(bound));
        const heard: ProducerDecision[] = [];
        const stop = activity.listen((d) => heard.push(d));
        // The model: per partition, producers in the order first counted, and their counts.
        const model = logs.map(() => new Map<bigint, Record<string, number>>());
        for (const [partition, producerId, verdict] of decisions) {
          logs[partition]!.record(producerId, verdict);
          activity.tell('t', partition, producerId, verdict);
          const producers = model[partition]!;
          if (!producers.has(producerId)) {
            if (producers.size >= bound) producers.delete(producers.keys().next().value!);
            producers.set(producerId, { append: 0, duplicate: 0, out_of_order: 0, fenced: 0 });
          }
          producers.get(producerId)![verdict]!++;
        }
        stop();
        activity.tell('t', 3, 0n, 'append');
        assert.equal(heard.length, decisions.length, 'each decision heard once, none after the listener stopped');
        for (const [partition, log] of logs.entries()) {
          for (let id = 0n; id <= 6n; id++) {
            const expected = model[partition]!.get(id);
            const counts = log.of(id);
            assert.deepEqual(counts === undefined ? undefined : { ...counts }, expected);
          }
          assert.ok([...Array(7).keys()].filter((id) => log.of(BigInt(id)) !== undefined).length <= bound);
        }
      },
    ),
  );
});
