export * from './idempotence/index.js';
