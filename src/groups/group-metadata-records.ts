/**
 * A classic group as its record of `__consumer_offsets`, in Kafka's layout
 * (`GroupCoordinatorRecordHelpers.newGroupMetadataRecord`): GroupMetadataKey, then
 * GroupMetadataValue at version 3, the version Kafka 4 writes, with each member's subscription
 * for the chosen protocol and its assignment; a deleted group's record is a tombstone.
 *
 * Kafka keeps only the chosen protocol's metadata of each member, so a member that rejoins
 * offering several protocols starts a rebalance after a restart. brook keeps every protocol a
 * member offered: when some member offered more than the chosen one, the value is written at
 * version 4 (the same fields, flexible) with a tagged field of brook's own holding them, which
 * Kafka's reader passes over as unknown (docs/departures.md).
 */
import { decodeCoordinatorKey, decodeCoordinatorValue, encodeCoordinatorKey, encodeCoordinatorValue } from '../protocol/coordinator-record.js';
import { GroupMetadataKey, GroupMetadataValue } from '../protocol/messages/coordinator-records.js';
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';
import type { NewRecord } from '../protocol/stored-records.js';
import { ClassicGroup, Member, type Protocol } from './classic-group.js';

/** Kafka's `GROUP_METADATA_VALUE_VERSION`. */
const VALUE_VERSION = 3;
/** GroupMetadataValue's first flexible version: the one that can carry brook's tag. */
const TAGGED_VERSION = 4;
/** brook's own tag, far above any of Kafka's: every protocol each member offered, in member order. */
const PROTOCOLS_TAG = 10_000;

export function groupMetadataKey(groupId: string): Buffer {
  return encodeCoordinatorKey(GroupMetadataKey, { group: groupId });
}

export function groupMetadataRecord(group: ClassicGroup): NewRecord {
  const members = [...group.members.values()];
  const value: GroupMetadataValue = {
    // As Kafka: a group without a protocol type has the empty one.
    protocolType: group.protocolType ?? '',
    generation: group.generationId,
    protocol: group.protocolName,
    leader: group.leaderId,
    currentStateTimestamp: BigInt(group.currentStateTimestamp ?? -1),
    members: members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeout: m.rebalanceTimeoutMs,
      sessionTimeout: m.sessionTimeoutMs,
      subscription: group.protocolName === null ? Buffer.alloc(0) : m.metadataFor(group.protocolName),
      assignment: m.assignment,
    })),
  };
  const onlyChosen = members.every((m) => m.protocols.length === 1 && m.protocols[0]!.name === group.protocolName);
  const bytes = onlyChosen ? encodeCoordinatorValue(GroupMetadataValue, VALUE_VERSION, value) : withProtocols(value, members);
  return { key: groupMetadataKey(group.groupId), value: bytes, headers: [] };
}

/** Version 4's bytes with brook's tag: the fields, then one tagged field in place of none. */
function withProtocols(value: GroupMetadataValue, members: readonly Member[]): Buffer {
  const bare = encodeCoordinatorValue(GroupMetadataValue, TAGGED_VERSION, value);
  const w = new Writer(bare.length + 64);
  w.writeBuffer(bare.subarray(0, bare.length - 1));
  w.writeUnsignedVarint(1);
  w.writeUnsignedVarint(PROTOCOLS_TAG);
  const start = w.beginSized();
  w.writeCompactArrayLength(members.length);
  for (const m of members) {
    w.writeCompactArrayLength(m.protocols.length);
    for (const p of m.protocols) {
      w.writeCompactString(p.name);
      w.writeCompactBytes(p.metadata);
    }
  }
  w.endSized(start);
  return w.finish();
}

export function groupMetadataTombstone(groupId: string): NewRecord {
  return { key: groupMetadataKey(groupId), value: null, headers: [] };
}

/** The group a record holds (undefined for a tombstone), as Stable with its members or Empty; no timers run. Throws ProtocolError if it does not decode. */
export function readGroupMetadataRecord(key: Buffer, value: Buffer | null, clock: () => number): { groupId: string; group: ClassicGroup | undefined } {
  const { group: groupId } = decodeCoordinatorKey(GroupMetadataKey, key);
  if (value === null) return { groupId, group: undefined };
  const { version, value: v } = decodeCoordinatorValue(GroupMetadataValue, value);
  let offered: Protocol[][] | undefined;
  if (version >= TAGGED_VERSION) {
    // The tagged fields follow the fixed ones, whose length their own encoding gives.
    const r = new Reader(value, encodeCoordinatorValue(GroupMetadataValue, version, v).length - 1);
    r.readTaggedFields(undefined, version, (tr, tag) => {
      if (tag !== PROTOCOLS_TAG) return false;
      offered = Array.from({ length: tr.readCompactArrayLength() }, () =>
        Array.from({ length: tr.readCompactArrayLength() }, () => ({ name: tr.readCompactString(), metadata: tr.readCompactBytes() })),
      );
      return true;
    });
  }
  const members = v.members.map((m, i) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId ?? null,
    clientId: m.clientId,
    clientHost: m.clientHost,
    rebalanceTimeoutMs: m.rebalanceTimeout,
    sessionTimeoutMs: m.sessionTimeout,
    protocols: offered?.[i] ?? (v.protocol === null ? [] : [{ name: v.protocol, metadata: m.subscription }]),
    assignment: m.assignment,
  }));
  const group = restoredGroup(
    {
      groupId,
      protocolType: v.protocolType === '' ? null : v.protocolType,
      generationId: v.generation,
      protocolName: v.protocol,
      leaderId: v.leader,
      members,
      currentStateTimestamp: v.currentStateTimestamp < 0n ? undefined : Number(v.currentStateTimestamp),
    },
    clock,
  );
  return { groupId, group };
}

/** A classic group as stored: its generation, protocol and leader, its members in join order, when it entered its state. */
export interface StoredGroup {
  readonly groupId: string;
  readonly protocolType: string | null;
  readonly generationId: number;
  readonly protocolName: string | null;
  readonly leaderId: string | null;
  readonly members: readonly {
    readonly memberId: string;
    readonly groupInstanceId: string | null;
    readonly clientId: string;
    readonly clientHost: string;
    readonly rebalanceTimeoutMs: number;
    readonly sessionTimeoutMs: number;
    readonly protocols: readonly Protocol[];
    readonly assignment: Buffer;
  }[];
  readonly currentStateTimestamp: number | undefined;
}

/** The group as stored, Stable with its members or Empty; no timers run yet. */
export function restoredGroup(stored: StoredGroup, clock: () => number): ClassicGroup {
  const group = new ClassicGroup(stored.groupId, clock);
  for (const m of stored.members) {
    const member = new Member(m.memberId, m.groupInstanceId, m.clientId, m.clientHost, m.rebalanceTimeoutMs, m.sessionTimeoutMs, m.protocols);
    member.assignment = m.assignment;
    group.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) group.staticMembers.set(member.groupInstanceId, member.memberId);
  }
  group.generationId = stored.generationId;
  group.protocolType = stored.protocolType;
  group.protocolName = stored.protocolName;
  group.leaderId = stored.leaderId;
  group.state = group.previousState = group.members.size > 0 ? 'Stable' : 'Empty';
  group.currentStateTimestamp = stored.currentStateTimestamp;
  return group;
}
