/**
 * What a connection may do, by the broker's authorizer: the one place handlers ask. Without an
 * authorizer everything is allowed. A refusal the client asked for is logged and counted, as
 * Kafka's authorizer logs it; a question asked only to filter or to report operations is not.
 */
import { AclOperation, CLUSTER_NAME, operationName, ResourceType, resourceTypeName, SUPPORTED_OPERATIONS } from '../acl/acl-binding.js';
import type { ConnectionContext } from '../server/connection.js';
import type { BrokerContext } from './broker-context.js';
import { aclPrincipal, principalOf } from './principal.js';

/** The principal, as ACLs name it, and the client's address, as Kafka's `StandardAuthorizerData` compares it with an ACL's host. */
export interface Client {
  readonly principal: string;
  readonly host: string;
}

export function clientOf(connection: ConnectionContext, broker: BrokerContext): Client {
  const principal = aclPrincipal(principalOf(connection, broker));
  return { principal, host: connection.address };
}

/** Whether the connection may perform `operation` on the resource; a refusal is logged and counted unless `quiet`. */
export function mayDo(
  connection: ConnectionContext,
  broker: BrokerContext,
  resourceType: number,
  resourceName: string,
  operation: number,
  quiet = false,
): boolean {
  const { authorizer } = broker;
  if (authorizer === undefined) return true;
  const client = clientOf(connection, broker);
  const allowed = authorizer.allows({ ...client, resourceType, resourceName, operation });
  if (!allowed && !quiet) denied(broker, client, resourceType, resourceName, operation);
  return allowed;
}

/**
 * An idempotent producer's right, as Kafka 3.x's `KafkaApis.handleInitProducerIdRequest` judges InitProducerId without a transactional id:
 * IDEMPOTENT_WRITE on the cluster, or WRITE on some topic.
 */
export function mayProduceIdempotently(connection: ConnectionContext, broker: BrokerContext): boolean {
  const { authorizer } = broker;
  if (authorizer === undefined || mayDo(connection, broker, ResourceType.CLUSTER, CLUSTER_NAME, AclOperation.IDEMPOTENT_WRITE, true)) return true;
  const client = clientOf(connection, broker);
  if (authorizer.allowsOnAnyResource({ ...client, resourceType: ResourceType.TOPIC, operation: AclOperation.WRITE })) return true;
  denied(broker, client, ResourceType.CLUSTER, CLUSTER_NAME, AclOperation.IDEMPOTENT_WRITE);
  return false;
}

/** What the field holds when the request did not ask for it. */
export const NOT_ASKED = -2147483648;

/** The authorized operations field of a resource: one bit per operation its type has that the connection may perform; NOT_ASKED unless asked. */
export function authorizedOperations(asked: boolean, connection: ConnectionContext, broker: BrokerContext, resourceType: number, resourceName: string): number {
  if (!asked) return NOT_ASKED;
  let field = 0;
  for (const op of SUPPORTED_OPERATIONS[resourceType] ?? []) if (mayDo(connection, broker, resourceType, resourceName, op, true)) field |= 1 << op;
  return field;
}

function denied(broker: BrokerContext, client: Client, resourceType: number, resourceName: string, operation: number): void {
  const resource = `${resourceTypeName(resourceType)}:${resourceName}`;
  broker.metrics.authorizationDenied(resourceTypeName(resourceType), operationName(operation));
  broker.logger.info(
    { ...client, operation: operationName(operation), resource },
    `authorization denied: ${client.principal} ${operationName(operation)} on ${resource}`,
  );
}

/** The cluster's authorized operations field (Metadata, DescribeCluster). */
export function clusterOperations(asked: boolean, connection: ConnectionContext, broker: BrokerContext): number {
  return authorizedOperations(asked, connection, broker, ResourceType.CLUSTER, CLUSTER_NAME);
}
