export * from './rules.js';
export * from './producer-decision.js';
