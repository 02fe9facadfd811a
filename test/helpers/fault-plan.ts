/** Seeded fault rules for the fault proxy, counting what they inject. */
import type { FaultRules } from './fault-proxy.js';
import { API } from './produce-frames.js';
import { seeded } from './seeded.js';

export interface Injected {
  lostAcks: number;
  cutRequests: number;
  delayed: number;
}

export function describeInjected(i: Injected): string {
  return `${i.lostAcks} lost acks, ${i.cutRequests} requests cut halfway, ${i.delayed} responses delayed`;
}

/**
 * On Produce only: loses the `lostAcks` share of acknowledgements (the batch is written, the
 * client never hears so, and its connection drops), cuts 1% of requests halfway, and holds 5%
 * of responses back up to 50 ms.
 */
export function produceFaults(lostAcks: number, seed: number): FaultRules & { readonly injected: Injected } {
  const random = seeded(seed);
  const injected: Injected = { lostAcks: 0, cutRequests: 0, delayed: 0 };
  return {
    injected,
    onRequest: (request) => {
      if (request.apiKey !== API.PRODUCE || random() >= 0.01) return 'forward';
      injected.cutRequests++;
      return 'cut';
    },
    onResponse: (request) => {
      if (request.apiKey !== API.PRODUCE) return 'forward';
      const r = random();
      if (r < lostAcks) {
        injected.lostAcks++;
        return 'drop-and-cut';
      }
      if (r >= lostAcks + 0.05) return 'forward';
      injected.delayed++;
      return { delayMs: 1 + Math.floor(random() * 50) };
    },
  };
}
