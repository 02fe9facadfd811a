/**
 * DescribeCluster: the live nodes, the first as controller, answered on a broker endpoint; from v2
 * (KIP-1073) with `includeFencedBrokers` the stopped nodes too, fenced, as Kafka lists a broker that
 * has shut down and not come back.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeClusterRequest, DescribeClusterResponse } from '../../protocol/messages/describe-cluster.js';
import { defineApi } from '../api-handler.js';
import { clusterOperations, NOT_ASKED } from '../access.js';
import type { BrokerContext } from '../broker-context.js';

/** Kafka's EndpointType ids. */
const BROKER_ENDPOINT = 1;
const CONTROLLER_ENDPOINT = 2;

export const describeCluster = defineApi({
  request: DescribeClusterRequest,
  response: DescribeClusterResponse,
  minVersion: 0,
  maxVersion: 2,
  handle(request, info, broker): DescribeClusterResponse {
    // v0 has no endpoint type: it reads as a broker's.
    const refused = (errorCode: number, errorMessage: string): DescribeClusterResponse => ({
      throttleTimeMs: 0,
      errorCode,
      errorMessage,
      endpointType: BROKER_ENDPOINT,
      clusterId: '',
      controllerId: -1,
      brokers: [],
      clusterAuthorizedOperations: NOT_ASKED,
    });
    if (request.endpointType === CONTROLLER_ENDPOINT) {
      return refused(ErrorCode.MISMATCHED_ENDPOINT_TYPE, 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER');
    }
    if (request.endpointType !== BROKER_ENDPOINT) return refused(ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, `Unsupported endpoint type ${request.endpointType}`);
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: BROKER_ENDPOINT,
      clusterId: broker.clusterId,
      controllerId: broker.cluster.controller,
      brokers: listed(broker, request.includeFencedBrokers === true),
      clusterAuthorizedOperations: clusterOperations(request.includeClusterAuthorizedOperations, info.connection, broker),
    };
  },
});

function listed(broker: BrokerContext, includeFenced: boolean): DescribeClusterResponse['brokers'] {
  const { cluster } = broker;
  const nodes = includeFenced ? cluster.leadership.nodes : cluster.brokers().map((b) => b.nodeId);
  return nodes.map((nodeId) => {
    const { host, port } = cluster.address(nodeId);
    return { brokerId: nodeId, host, port, rack: null, isFenced: cluster.stopped.has(nodeId) };
  });
}
