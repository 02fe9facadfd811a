/**
 * The APIs this broker serves: those the Kafka release it answers as (`--kafka-version`)
 * advertises to clients (bar telemetry, which Kafka too leaves out without a metrics plugin), each
 * narrowed to the versions both that release and brook's handlers serve. ApiVersions advertises
 * exactly this table.
 */
import type { ApiHandler } from './api-handler.js';
import { KAFKA_VERSIONS, releaseApis, type KafkaVersion, type ReleaseApi } from '../protocol/kafka-releases.js';
import type { SaslGate } from './sasl-gate.js';
import { ApiKey } from '../protocol/messages/apis.js';
import { addOffsetsToTxn } from './handlers/add-offsets-to-txn.js';
import { addPartitionsToTxn } from './handlers/add-partitions-to-txn.js';
import { addRaftVoter } from './handlers/add-raft-voter.js';
import { alterClientQuotas } from './handlers/alter-client-quotas.js';
import { alterConfigs } from './handlers/alter-configs.js';
import { alterPartitionReassignments } from './handlers/alter-partition-reassignments.js';
import { alterReplicaLogDirs } from './handlers/alter-replica-log-dirs.js';
import { alterUserScramCredentials } from './handlers/alter-user-scram-credentials.js';
import { apiVersions } from './handlers/api-versions.js';
import { featureLevels } from './features.js';
import { consumerGroupDescribe } from './handlers/consumer-group-describe.js';
import { consumerGroupHeartbeat } from './handlers/consumer-group-heartbeat.js';
import { createAcls } from './handlers/create-acls.js';
import { createDelegationToken } from './handlers/create-delegation-token.js';
import { createPartitions } from './handlers/create-partitions.js';
import { createTopics } from './handlers/create-topics.js';
import { deleteAcls } from './handlers/delete-acls.js';
import { deleteGroups } from './handlers/delete-groups.js';
import { deleteRecords } from './handlers/delete-records.js';
import { deleteTopics } from './handlers/delete-topics.js';
import { describeAcls } from './handlers/describe-acls.js';
import { describeClientQuotas } from './handlers/describe-client-quotas.js';
import { describeCluster } from './handlers/describe-cluster.js';
import { describeConfigs } from './handlers/describe-configs.js';
import { describeDelegationToken } from './handlers/describe-delegation-token.js';
import { describeGroups } from './handlers/describe-groups.js';
import { describeLogDirs } from './handlers/describe-log-dirs.js';
import { describeProducers } from './handlers/describe-producers.js';
import { describeQuorum } from './handlers/describe-quorum.js';
import { describeTopicPartitions } from './handlers/describe-topic-partitions.js';
import { describeTransactions } from './handlers/describe-transactions.js';
import { describeUserScramCredentials } from './handlers/describe-user-scram-credentials.js';
import { electLeaders } from './handlers/elect-leaders.js';
import { endTxn } from './handlers/end-txn.js';
import { expireDelegationToken } from './handlers/expire-delegation-token.js';
import { fetch } from './handlers/fetch.js';
import { findCoordinator } from './handlers/find-coordinator.js';
import { heartbeat } from './handlers/heartbeat.js';
import { incrementalAlterConfigs } from './handlers/incremental-alter-configs.js';
import { initProducerId } from './handlers/init-producer-id.js';
import { joinGroup } from './handlers/join-group.js';
import { leaveGroup } from './handlers/leave-group.js';
import { listConfigResources } from './handlers/list-config-resources.js';
import { listGroups } from './handlers/list-groups.js';
import { listOffsets } from './handlers/list-offsets.js';
import { listPartitionReassignments } from './handlers/list-partition-reassignments.js';
import { listTransactions } from './handlers/list-transactions.js';
import { metadata } from './handlers/metadata.js';
import { offsetCommit } from './handlers/offset-commit.js';
import { offsetDelete } from './handlers/offset-delete.js';
import { offsetFetch } from './handlers/offset-fetch.js';
import { offsetForLeaderEpoch } from './handlers/offset-for-leader-epoch.js';
import { produce } from './handlers/produce.js';
import { removeRaftVoter } from './handlers/remove-raft-voter.js';
import { renewDelegationToken } from './handlers/renew-delegation-token.js';
import { saslAuthenticate, saslAuthenticateWithoutSasl } from './handlers/sasl-authenticate.js';
import { saslHandshake, saslHandshakeWithoutSasl } from './handlers/sasl-handshake.js';
import { syncGroup } from './handlers/sync-group.js';
import { txnOffsetCommit } from './handlers/txn-offset-commit.js';
import { unregisterBroker } from './handlers/unregister-broker.js';
import { updateFeatures } from './handlers/update-features.js';
import { writeTxnMarkers } from './handlers/write-txn-markers.js';

/** SaslHandshake and SaslAuthenticate authenticate on a listener that requires SASL; elsewhere they are ILLEGAL_SASL_STATE, as in Kafka. */
export function buildApiTable(sasl: SaslGate | undefined, kafkaVersion: KafkaVersion): ReadonlyMap<number, ApiHandler> {
  const handlers: ApiHandler[] = [
    ...(sasl === undefined ? [saslHandshakeWithoutSasl, saslAuthenticateWithoutSasl] : [saslHandshake(sasl), saslAuthenticate(sasl)]),
    ...[produce, fetch, listOffsets, metadata, findCoordinator, createTopics, deleteTopics, initProducerId, describeConfigs],
    ...[joinGroup, syncGroup, heartbeat, leaveGroup, offsetCommit, offsetFetch, listGroups, describeGroups, deleteGroups],
    ...[createPartitions, deleteRecords, describeCluster, describeProducers, offsetDelete, offsetForLeaderEpoch, describeLogDirs, alterReplicaLogDirs],
    ...[electLeaders, alterPartitionReassignments, listPartitionReassignments, describeTopicPartitions, describeQuorum, unregisterBroker],
    ...[updateFeatures, addRaftVoter, removeRaftVoter, describeUserScramCredentials, alterUserScramCredentials],
    ...[describeClientQuotas, alterClientQuotas, alterConfigs, incrementalAlterConfigs, describeAcls, createAcls, deleteAcls],
    ...[addPartitionsToTxn, addOffsetsToTxn, endTxn, writeTxnMarkers, txnOffsetCommit, describeTransactions, listTransactions],
    ...[createDelegationToken, renewDelegationToken, expireDelegationToken, describeDelegationToken],
    ...[consumerGroupHeartbeat, consumerGroupDescribe, listConfigResources],
  ];
  const release = releaseApis(kafkaVersion);
  const table = new Map<number, ApiHandler>();
  for (const handler of handlers) {
    const served = asRelease(handler, release);
    if (served !== undefined) table.set(handler.request.apiKey, served);
  }
  table.set(ApiKey.ApiVersions, apiVersions(table, featureLevels(kafkaVersion)));
  return new Map([...table].sort(([a], [b]) => a - b));
}

/**
 * Each API at every version brook serves under some release (the releases' tables joined): what
 * fault rules are checked against (every release has the same APIs, so a rule holds under any),
 * and what checks of every API and version range over. Its handlers are for their keys, versions
 * and codecs; no broker answers with this table.
 */
export function everyVersionServed(): ReadonlyMap<number, ApiHandler> {
  const joined = new Map<number, ApiHandler>();
  for (const version of KAFKA_VERSIONS) {
    for (const [apiKey, handler] of buildApiTable(undefined, version)) {
      const seen = joined.get(apiKey);
      const minVersion = Math.min(seen?.minVersion ?? handler.minVersion, handler.minVersion);
      const maxVersion = Math.max(seen?.maxVersion ?? handler.maxVersion, handler.maxVersion);
      joined.set(apiKey, { ...handler, minVersion, maxVersion, advertisedMinVersion: undefined });
    }
  }
  return joined;
}

/**
 * A handler narrowed to the versions `release` serves of its API, as Kafka's ApiVersionManager
 * enables them (a version outside them closes the connection); undefined where the release has
 * none of the handler's. Where the release advertises versions below those it serves (Produce from
 * 4.0, KAFKA-18659), ApiVersions advertises them too.
 */
function asRelease(handler: ApiHandler, release: readonly ReleaseApi[]): ApiHandler | undefined {
  const api = release.find((a) => a.apiKey === handler.request.apiKey);
  if (api === undefined) return undefined;
  const minVersion = Math.max(handler.minVersion, api.minVersion);
  const maxVersion = Math.min(handler.maxVersion, api.maxVersion);
  if (minVersion > maxVersion) return undefined;
  const advertisedMinVersion = api.advertisedMin < api.minVersion && handler.minVersion <= api.minVersion ? api.advertisedMin : minVersion;
  return { ...handler, minVersion, maxVersion, advertisedMinVersion };
}
