export { startBroker, type Broker, type BrokerOptions } from './broker/start-broker.js';
export type { BrokerConfig, FlushPolicy } from './broker/config.js';
export * from './idempotence/index.js';
