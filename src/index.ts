export { startBroker, type Broker, type BrokerOptions, type RestartOptions } from './broker/start-broker.js';
export type { FaultHandle, Faults } from './faults/registry.js';
export { FaultRuleError, type FaultActions, type FaultMatch, type FaultRule } from './faults/rule.js';
export type { BrokerConfig, FlushPolicy } from './broker/config.js';
export { DirectoryInUseError } from './log/dir-lock.js';
export * from './idempotence/index.js';
