export { startBroker, type Broker, type BrokerOptions, type RestartOptions } from './broker/start-broker.js';
export type { ClusterControl, ClusterNode } from './broker/cluster-control.js';
export type { BrokerConfig } from './settings/settings.js';
export type { FlushPolicy } from './settings/kinds.js';
export type { FaultHandle, Faults } from './faults/registry.js';
export { FaultRuleError, type FaultActions, type FaultMatch, type FaultRule } from './faults/rule.js';
export { DirectoryInUseError } from './log/dir-lock.js';
export * from './idempotence/index.js';
