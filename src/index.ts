export { startBroker, type Broker, type BrokerOptions } from './broker/start-broker.js';
export type { BrokerConfig } from './settings/settings.js';
export type { FlushPolicy } from './settings/kinds.js';
export { DirectoryInUseError } from './log/dir-lock.js';
export * from './idempotence/index.js';
