export { startBroker, type Broker, type BrokerOptions } from './broker/start-broker.js';
export type { BrokerConfig, FlushPolicy } from './broker/config.js';
export { DirectoryInUseError } from './log/dir-lock.js';
export * from './idempotence/index.js';
