/**
 * Which faults act on a request, against a small model of the rules written the other way
 * round: per request and per named entry, the first fault in the order added that applies, of
 * those naming no node or the node the request arrived at.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { everyVersionServed } from '../src/broker/api-table.js';
import { decide, type Outcome } from '../src/faults/matching.js';
import { FaultRegistry, type FaultHandle } from '../src/faults/registry.js';
import type { Named } from '../src/faults/request-layouts.js';
import type { FaultRule } from '../src/faults/rule.js';
import { ApiKey } from '../src/protocol/messages/apis.js';

const SERVED = everyVersionServed();
const QUIET = { info() {} };

/** Produce names partitions, Metadata topics, Heartbeat neither. */
const APIS = [
  { name: 'Produce', key: ApiKey.Produce, names: 'partition' },
  { name: 'Metadata', key: ApiKey.Metadata, names: 'topic' },
  { name: 'Heartbeat', key: ApiKey.Heartbeat, names: undefined },
] as const;
type Api = (typeof APIS)[number];

const TOPICS = ['a', 'b'];
/** Requests arrive at node 1 or 2 of a broker serving two. */
const NODES = 2;

const actionArb = fc.oneof(
  fc.constantFrom(6, 3, 56).map((error) => ({ error })),
  fc.constant({ dropResponse: true as const }),
  fc.integer({ min: 1, max: 3 }).map((delayMs) => ({ delayMs })),
  fc.constant({ closeConnection: true as const }),
);

const ruleArb: fc.Arbitrary<FaultRule> = fc
  .record({
    api: fc.constantFrom(...APIS),
    topic: fc.option(fc.constantFrom(...TOPICS), { nil: undefined }),
    partition: fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }),
    node: fc.option(fc.integer({ min: 1, max: NODES }), { nil: undefined }),
    count: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    action: actionArb,
  })
  .map(({ api, topic, partition, node, count, action }) => {
    const t = api.names === undefined ? undefined : topic;
    const p = api.names === 'partition' && t !== undefined ? partition : undefined;
    return {
      api: api.name,
      ...(t === undefined ? {} : { topic: t }),
      ...(p === undefined ? {} : { partition: p }),
      ...(node === undefined ? {} : { node }),
      ...(count === undefined ? {} : { count }),
      ...action,
    } as FaultRule;
  });

const namedArb = (api: Api): fc.Arbitrary<Named[] | undefined> =>
  api.names === undefined
    ? fc.constant(undefined)
    : fc.array(
        fc.record({ topic: fc.constantFrom(...TOPICS, 'c'), partition: api.names === 'partition' ? fc.integer({ min: 0, max: 2 }) : fc.constant(undefined) }),
        { maxLength: 4 },
      );

const requestArb = fc
  .tuple(
    fc.constantFrom(...APIS).chain((api) => namedArb(api).map((named) => ({ api, named }))),
    fc.integer({ min: 1, max: NODES }),
  )
  .map(([request, node]) => ({ ...request, node }));

type Step =
  | { readonly op: 'add'; readonly rule: FaultRule }
  | { readonly op: 'remove'; readonly which: number }
  | { readonly op: 'clear' }
  | { readonly op: 'request'; readonly api: Api; readonly named: Named[] | undefined; readonly node: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: ruleArb.map((rule) => ({ op: 'add' as const, rule })) },
  { weight: 1, arbitrary: fc.nat(20).map((which) => ({ op: 'remove' as const, which })) },
  { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
  { weight: 8, arbitrary: requestArb.map((r) => ({ op: 'request' as const, ...r })) },
);

/** The model's fault: its rule, a number to name it by, and its counts. */
interface ModelFault {
  readonly id: number;
  readonly rule: FaultRule;
  readonly apiKey: number;
  left: number;
  fired: number;
  installed: boolean;
}

/** What a request comes to, faults named by their ids. */
interface Seen {
  readonly closeConnection: boolean;
  readonly dropResponse: boolean;
  readonly delayMs: number;
  readonly requestError: number | undefined;
  readonly errors: readonly (readonly [number, number])[];
  readonly fired: readonly number[];
}

function covers(rule: FaultRule, n: Named): boolean {
  return rule.topic === undefined || (rule.topic === n.topic && (rule.partition === undefined || rule.partition === n.partition));
}

function modelRequest(faults: readonly ModelFault[], apiKey: number, named: readonly Named[] | undefined, node: number): Seen | undefined {
  const live = faults.filter((f) => f.installed && f.apiKey === apiKey && (f.rule.node ?? node) === node);
  const applies = (f: ModelFault): boolean => f.rule.topic === undefined || (named ?? []).some((n) => covers(f.rule, n));
  const first = (has: (f: ModelFault) => boolean): ModelFault | undefined => live.find((f) => has(f) && applies(f));
  const close = first((f) => f.rule.closeConnection === true);
  let fired: ModelFault[];
  let seen: Seen;
  if (close !== undefined) {
    fired = [close];
    seen = { closeConnection: true, dropResponse: false, delayMs: 0, requestError: undefined, errors: [], fired: [close.id] };
  } else {
    const drop = first((f) => f.rule.dropResponse === true);
    const delay = first((f) => f.rule.delayMs !== undefined);
    const requestError = named === undefined ? first((f) => f.rule.error !== undefined) : undefined;
    const errors = (named ?? []).flatMap((n, i) => {
      const by = live.find((f) => f.rule.error !== undefined && covers(f.rule, n));
      return by === undefined ? [] : [[i, by] as const];
    });
    const erring = new Set(errors.map(([, f]) => f));
    fired = live.filter((f) => f === drop || f === delay || f === requestError || erring.has(f));
    seen = {
      closeConnection: false,
      dropResponse: drop !== undefined,
      delayMs: delay?.rule.delayMs ?? 0,
      requestError: requestError?.rule.error as number | undefined,
      errors: errors.map(([i, f]) => [i, f.id] as const),
      fired: fired.map((f) => f.id),
    };
  }
  for (const f of fired) {
    f.fired++;
    if (--f.left === 0) f.installed = false;
  }
  return fired.length === 0 ? undefined : seen;
}

function seen(outcome: Outcome | undefined, idOf: (f: unknown) => number): Seen | undefined {
  if (outcome === undefined) return undefined;
  return {
    closeConnection: outcome.closeConnection,
    dropResponse: outcome.dropResponse,
    delayMs: outcome.delayMs,
    requestError: outcome.requestError,
    // By index: which entries have errors is the outcome, not the order the faults took them in.
    errors: [...outcome.errors].sort(([a], [b]) => a - b).map(([i, f]) => [i, idOf(f)] as const),
    fired: outcome.fired.map(idOf),
  };
}

test('faults act on requests as the model says, and each acts at most its count', () => {
  fc.assert(
    fc.property(fc.array(stepArb, { maxLength: 60 }), (steps) => {
      const registry = new FaultRegistry(SERVED, QUIET, NODES);
      const model: ModelFault[] = [];
      const handles: FaultHandle[] = [];
      const ids = new Map<unknown, number>();
      for (const step of steps) {
        switch (step.op) {
          case 'add': {
            handles.push(registry.add(step.rule));
            ids.set(registry.installed.at(-1), model.length);
            model.push({
              id: model.length,
              rule: step.rule,
              apiKey: APIS.find((a) => a.name === step.rule.api)!.key,
              left: step.rule.count ?? Infinity,
              fired: 0,
              installed: true,
            });
            break;
          }
          case 'remove':
            if (handles.length === 0) break;
            handles[step.which % handles.length]!.remove();
            model[step.which % handles.length]!.installed = false;
            break;
          case 'clear':
            registry.clear();
            for (const f of model) f.installed = false;
            break;
          case 'request': {
            const expected = modelRequest(model, step.api.key, step.named, step.node);
            const actual = seen(decide(registry.installed, step.api.key, step.named, step.node), (f) => ids.get(f)!);
            assert.deepEqual(actual, expected);
          }
        }
      }
      handles.forEach((h, i) => {
        assert.equal(h.fired, model[i]!.fired);
        assert.ok(h.fired <= (model[i]!.rule.count ?? Infinity));
      });
      assert.deepEqual(
        registry.installed.map((f) => ids.get(f)),
        model.filter((f) => f.installed).map((f) => f.id),
      );
    }),
    { numRuns: 500 },
  );
});

test('with a probability and a seed, the same requests meet the same faults on every run', () => {
  fc.assert(
    fc.property(
      fc.array(ruleArb, { minLength: 1, maxLength: 4 }),
      fc.array(fc.double({ min: 0.05, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }),
      fc.nat(),
      fc.array(requestArb, { maxLength: 60 }),
      (rules, probabilities, seed, requests) => {
        const run = (): unknown[] => {
          const registry = new FaultRegistry(SERVED, QUIET, NODES);
          const installed = rules.map((rule, i) => registry.add({ ...rule, probability: probabilities[i]!, seed: seed + i }));
          const ids = new Map(registry.installed.map((f, i) => [f, i] as const));
          const outcomes = requests.map((r) => seen(decide(registry.installed, r.api.key, r.named, r.node), (f) => ids.get(f as never)!));
          return [outcomes, installed.map((h) => h.fired)];
        };
        assert.deepEqual(run(), run());
      },
    ),
    { numRuns: 200 },
  );
});

test('a fault drawing against a probability acts on some of its requests, not all, not none', () => {
  const registry = new FaultRegistry(SERVED, QUIET);
  const flaky = registry.add({ api: 'Produce', dropResponse: true, probability: 0.05, seed: 42 });
  for (let i = 0; i < 2000; i++) decide(registry.installed, ApiKey.Produce, [], 1);
  // 5% of 2000 is 100; the seeded draws give the same count on every run.
  assert.ok(flaky.fired > 50 && flaky.fired < 150, `fired ${flaky.fired}`);
});

test('no fault installed: nothing is decided', () => {
  assert.equal(decide([], ApiKey.Produce, [{ topic: 'a', partition: 0 }], 1), undefined);
});
