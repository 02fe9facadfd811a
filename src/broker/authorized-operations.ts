/**
 * The operations a client may perform on a resource, as Kafka reports them when no authorizer is
 * configured, which is brook's case: every operation the resource type supports, one bit per
 * AclOperation code. Reported only when the request asks.
 */
const READ = 3;
const WRITE = 4;
const CREATE = 5;
const DELETE = 6;
const ALTER = 7;
const DESCRIBE = 8;
const CLUSTER_ACTION = 9;
const DESCRIBE_CONFIGS = 10;
const ALTER_CONFIGS = 11;
const IDEMPOTENT_WRITE = 12;

/** What the field holds when the request did not ask for it. */
export const NOT_ASKED = -2147483648;

const bits = (...operations: number[]): number => operations.reduce((field, op) => field | (1 << op), 0);

export const TOPIC_OPERATIONS = bits(READ, WRITE, CREATE, DESCRIBE, DELETE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS);
export const CLUSTER_OPERATIONS = bits(CREATE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, ALTER, DESCRIBE);
export const GROUP_OPERATIONS = bits(READ, DESCRIBE, DELETE);

export function authorizedOperations(asked: boolean, operations: number): number {
  return asked ? operations : NOT_ASKED;
}
