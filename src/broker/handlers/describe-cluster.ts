/** DescribeCluster: this broker, as controller too, answered on a broker endpoint. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeClusterRequest, DescribeClusterResponse } from '../../protocol/messages/describe-cluster.js';
import { defineApi } from '../api-handler.js';
import { NODE_ID } from '../config.js';

/** Kafka's EndpointType ids. */
const BROKER_ENDPOINT = 1;
const CONTROLLER_ENDPOINT = 2;
/** The schema's "not asked for" value of authorized operations. */
const NOT_ASKED = -2147483648;
/**
 * What Kafka answers with no authorizer, which allows everything: one bit per operation the
 * cluster resource supports (AclOperation codes CREATE 5, ALTER 7, DESCRIBE 8, CLUSTER_ACTION 9,
 * DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12).
 */
const CLUSTER_OPERATIONS = [5, 7, 8, 9, 10, 11, 12].reduce((bits, op) => bits | (1 << op), 0);

export const describeCluster = defineApi({
  request: DescribeClusterRequest,
  response: DescribeClusterResponse,
  minVersion: 0,
  maxVersion: 1,
  handle(request, _info, broker): DescribeClusterResponse {
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
      controllerId: NODE_ID,
      brokers: [{ brokerId: NODE_ID, host: broker.advertised.host, port: broker.advertised.port, rack: null }],
      clusterAuthorizedOperations: request.includeClusterAuthorizedOperations ? CLUSTER_OPERATIONS : NOT_ASKED,
    };
  },
});
