/** Seeded draws for tests that must repeat what they did: the broker's own, which fault rules use. */
export { seeded } from '../../src/faults/seeded.js';
