import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as platformatic from '@platformatic/kafka';
import {
  API_SCHEMAS,
  ApiVersionsRequest,
  ApiVersionsResponse,
  FetchRequest,
  GroupMetadataKey,
  GroupMetadataValue,
  OffsetCommitKey,
  OffsetCommitValue,
  TransactionLogKey,
  TransactionLogValue,
  MetadataRequest,
  ProduceRequest,
  ProtocolError,
  Reader,
  RequestHeader,
  ResponseHeader,
  Writer,
  ZERO_UUID,
  readRequestHeader,
  responseHeaderVersion,
  type FieldSchema,
  type MessageCodec,
  type StructSchema,
  type VersionRange,
} from '../src/protocol/messages/index.js';
import { expected, structArb } from './helpers/schema-arbitraries.js';

type Obj = Record<string, unknown>;

function encode<T>(codec: MessageCodec<T>, version: number, value: T): Buffer {
  const w = new Writer(8);
  codec.write(w, version, value);
  return w.finish();
}

function decode<T>(codec: MessageCodec<T>, version: number, buf: Buffer): T {
  const r = new Reader(buf);
  const value = codec.read(r, version);
  assert.equal(r.remaining, 0, 'decoder left bytes unread');
  return value;
}

const CODECS: MessageCodec<unknown>[] = [
  RequestHeader as MessageCodec<unknown>,
  ResponseHeader as MessageCodec<unknown>,
  ...Object.values(API_SCHEMAS).flatMap((api) => [api!.request, api!.response]),
  // The records of the coordinators' internal topics.
  ...([OffsetCommitKey, OffsetCommitValue, GroupMetadataKey, GroupMetadataValue, TransactionLogKey, TransactionLogValue] as MessageCodec<unknown>[]),
];
const versionsOf = (c: MessageCodec<unknown>): number[] => Array.from({ length: c.maxVersion - c.minVersion + 1 }, (_, i) => c.minVersion + i);

test('every generated API is in the table with matching codecs', () => {
  assert.equal(Object.keys(API_SCHEMAS).length, 61);
  for (const [key, api] of Object.entries(API_SCHEMAS)) {
    assert.equal(api!.apiKey, Number(key));
    assert.equal(api!.request.apiKey, api!.apiKey);
    assert.equal(api!.response.apiKey, api!.apiKey);
    assert.equal(api!.request.name, `${api!.name}Request`);
    assert.equal(api!.request.maxVersion, api!.maxVersion);
  }
});

for (const codec of CODECS) {
  test(`${codec.name}: round trip at every version`, async (t) => {
    for (const v of versionsOf(codec)) {
      await t.test(`v${v}`, () => {
        fc.assert(
          fc.property(structArb(codec.schema, v), (value) => {
            const bytes = encode(codec, v, value);
            const back = decode(codec, v, bytes);
            assert.deepStrictEqual(back, expected(codec.schema, value, v));
            // Re-encoding what was read must give the same bytes: the encoding is canonical.
            assert.deepStrictEqual(encode(codec, v, back), bytes);
          }),
          { numRuns: 40 },
        );
      });
    }
  });
}

/** Decodes, letting only ProtocolError escape. */
function decodeOrProtocolError(codec: MessageCodec<unknown>, v: number, buf: Buffer): boolean {
  try {
    codec.read(new Reader(buf), v);
    return true;
  } catch (e) {
    if (e instanceof ProtocolError) return false;
    throw e;
  }
}

test('decoders fed random or corrupted bytes throw only ProtocolError', () => {
  for (const codec of CODECS) {
    for (const v of versionsOf(codec)) {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => void decodeOrProtocolError(codec, v, Buffer.from(bytes))),
        { numRuns: 60 },
      );
      fc.assert(
        fc.property(
          structArb(codec.schema, v),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }),
          fc.nat(),
          (value, flips, cut) => {
            const bytes = encode(codec, v, value);
            const corrupted = Buffer.from(bytes);
            for (const [at, byte] of flips) if (corrupted.length > 0) corrupted[at % corrupted.length] = byte;
            decodeOrProtocolError(codec, v, corrupted);
            if (bytes.length > 0) {
              assert.equal(decodeOrProtocolError(codec, v, bytes.subarray(0, cut % bytes.length)), false, 'truncated input decoded');
            }
          },
        ),
        { numRuns: 20 },
      );
    }
  }
});

test('codecs reject versions outside the schema range', () => {
  assert.throws(() => ProduceRequest.read(new Reader(Buffer.alloc(64)), 12), ProtocolError);
  assert.throws(() => ProduceRequest.write(new Writer(), -1, { transactionalId: null, acks: 1, timeoutMs: 0, topicData: [] }), ProtocolError);
});

test('writing null into a field not nullable in that version throws ProtocolError', () => {
  assert.throws(
    () =>
      encode(MetadataRequest, 0, {
        topics: null,
        allowAutoTopicCreation: true,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      }),
    ProtocolError,
  );
});

// ---- known bytes, written by hand from the Kafka protocol guide ----

const bytes = (...parts: (number[] | string)[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

test('ApiVersions v0 request (header v1) matches the protocol guide', () => {
  const frame = bytes([0x00, 0x12, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x04], 'test');
  const h = readRequestHeader(frame);
  assert.deepEqual(h, { apiKey: 18, apiVersion: 0, correlationId: 1, clientId: 'test', headerVersion: 1, bodyOffset: 14 });
  const r = new Reader(frame, h.bodyOffset);
  assert.deepStrictEqual(ApiVersionsRequest.read(r, 0), { clientSoftwareName: '', clientSoftwareVersion: '' });
  assert.equal(r.remaining, 0);

  const w = new Writer();
  RequestHeader.write(w, 1, { requestApiKey: 18, requestApiVersion: 0, correlationId: 1, clientId: 'test' });
  ApiVersionsRequest.write(w, 0, { clientSoftwareName: 'ignored in v0', clientSoftwareVersion: 'x' });
  assert.deepEqual(w.finish(), frame);
});

test('ApiVersions v0 response (header v0) matches the protocol guide', () => {
  const frame = bytes(
    [0, 0, 0, 1], // correlation id
    [0, 0], // error code
    [0, 0, 0, 2], // api_keys count
    [0, 0, 0, 0, 0, 11], // Produce 0-11
    [0, 18, 0, 0, 0, 4], // ApiVersions 0-4
  );
  const value = {
    errorCode: 0,
    apiKeys: [
      { apiKey: 0, minVersion: 0, maxVersion: 11 },
      { apiKey: 18, minVersion: 0, maxVersion: 4 },
    ],
    throttleTimeMs: 0,
    supportedFeatures: [],
    finalizedFeaturesEpoch: -1n,
    finalizedFeatures: [],
    zkMigrationReady: false,
  };
  const w = new Writer();
  assert.equal(responseHeaderVersion(18, 0), 0);
  ResponseHeader.write(w, 0, { correlationId: 1 });
  ApiVersionsResponse.write(w, 0, value);
  assert.deepEqual(w.finish(), frame);
  const r = new Reader(frame);
  assert.deepStrictEqual(ResponseHeader.read(r, 0), { correlationId: 1 });
  assert.deepStrictEqual(ApiVersionsResponse.read(r, 0), value);
});

test('Metadata v0 request: a topic list; null only from v1', () => {
  const body = bytes([0, 0, 0, 1, 0, 3], 'foo');
  assert.deepStrictEqual(decode(MetadataRequest, 0, body), {
    topics: [{ topicId: ZERO_UUID, name: 'foo' }],
    allowAutoTopicCreation: true,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  const nullTopics = bytes([0xff, 0xff, 0xff, 0xff]);
  assert.throws(() => MetadataRequest.read(new Reader(nullTopics), 0), ProtocolError);
  assert.equal(MetadataRequest.read(new Reader(nullTopics), 1).topics, null);
});

test('ApiVersions v3 request (header v2): compact strings, unknown tags skipped', () => {
  const frame = bytes(
    [0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x07],
    [0x00, 0x07],
    'rdkafka', // client id keeps its int16 length in header v2
    [0x01, 0x09, 0x01, 0xff], // header tagged fields: one unknown tag 9
    [0x0b],
    'librdkafka',
    [0x06],
    '2.3.0',
    [0x01, 0x05, 0x02, 0xab, 0xcd], // body tagged fields: one unknown tag 5
  );
  const h = readRequestHeader(frame);
  assert.deepEqual(h, { apiKey: 18, apiVersion: 3, correlationId: 7, clientId: 'rdkafka', headerVersion: 2, bodyOffset: 21 });
  const r = new Reader(frame, h.bodyOffset);
  assert.deepStrictEqual(ApiVersionsRequest.read(r, 3), { clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.3.0' });
  assert.equal(r.remaining, 0);
});

test('ApiVersions v3 response: tagged fields in tag order with sizes, defaults omitted', () => {
  const body = bytes(
    [0, 0], // error code
    [0x02, 0, 18, 0, 0, 0, 4, 0x00], // compact array of one ApiVersion, with its empty tag section
    [0, 0, 0, 0], // throttle
    [0x02], // two tagged fields
    [0x00, 0x08, 0x02, 0x02],
    'x',
    [0, 1, 0, 2, 0x00], // tag 0 SupportedFeatures: [{x 1-2}]
    [0x01, 0x08, 0, 0, 0, 0, 0, 0, 0, 5], // tag 1 FinalizedFeaturesEpoch = 5
  );
  const value = {
    errorCode: 0,
    apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }],
    throttleTimeMs: 0,
    supportedFeatures: [{ name: 'x', minVersion: 1, maxVersion: 2 }],
    finalizedFeaturesEpoch: 5n,
    finalizedFeatures: [],
    zkMigrationReady: false,
  };
  assert.deepEqual(encode(ApiVersionsResponse, 3, value), body);
  assert.deepStrictEqual(decode(ApiVersionsResponse, 3, body), value);
});

test('Produce v3 request: nullable transactional id and records', () => {
  const body = bytes(
    [0xff, 0xff], // transactional id null
    [0xff, 0xff], // acks -1
    [0, 0, 0x75, 0x30], // timeout 30000
    [0, 0, 0, 1, 0, 1],
    't',
    [0, 0, 0, 2],
    [0, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3], // partition 0, 3 record bytes
    [0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff], // partition 1, null records
  );
  const value = {
    transactionalId: null,
    acks: -1,
    timeoutMs: 30000,
    topicData: [
      {
        name: 't',
        partitionData: [
          { index: 0, records: Buffer.from([1, 2, 3]) },
          { index: 1, records: null },
        ],
      },
    ],
  };
  assert.deepEqual(encode(ProduceRequest, 3, value), body);
  // v13's topic id may be left out when writing; reading gives its default.
  const read = { ...value, topicData: value.topicData.map((t) => ({ ...t, topicId: ZERO_UUID })) };
  assert.deepStrictEqual(decode(ProduceRequest, 3, body), read);
});

test('header versions follow the API table', () => {
  assert.equal(responseHeaderVersion(18, 3), 0); // ApiVersions always uses v0
  assert.equal(responseHeaderVersion(3, 9), 1);
  assert.equal(responseHeaderVersion(3, 8), 0);
  assert.equal(responseHeaderVersion(17, 1), 0); // SaslHandshake is never flexible
  assert.equal(responseHeaderVersion(999, 0), 0);
});

test('readRequestHeader: unknown keys and versions still give the correlation id', () => {
  const unknownKey = bytes([0x03, 0xe7, 0, 0, 0, 0, 0, 42], [0xff, 0xff]);
  assert.deepEqual(readRequestHeader(unknownKey), {
    apiKey: 999,
    apiVersion: 0,
    correlationId: 42,
    clientId: null,
    headerVersion: -1,
    bodyOffset: -1,
  });
  // An ApiVersions version from the future whose header is cut short.
  const futureVersion = bytes([0, 18, 0, 99, 0, 0, 0, 43, 0, 9, 0x61]);
  assert.deepEqual(readRequestHeader(futureVersion), {
    apiKey: 18,
    apiVersion: 99,
    correlationId: 43,
    clientId: null,
    headerVersion: 2,
    bodyOffset: -1,
  });
  // The same cut in a supported version is a protocol error.
  assert.throws(() => readRequestHeader(bytes([0, 18, 0, 3, 0, 0, 0, 43, 0, 9, 0x61])), ProtocolError);
  assert.throws(() => readRequestHeader(bytes([0, 18, 0, 3, 0, 0])), ProtocolError);
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 32 }), (b) => {
      try {
        readRequestHeader(Buffer.from(b));
      } catch (e) {
        if (!(e instanceof ProtocolError)) throw e;
      }
    }),
  );
});

// ---- cross-checks against an independent implementation (@platformatic/kafka's client codecs) ----

type ClientApi = {
  createRequest?: (...args: unknown[]) => { buffer: Buffer };
  parseResponse?: (correlationId: number, apiKey: number, apiVersion: number, reader: unknown) => unknown;
};
const clientApi = (name: string, v: number): ClientApi | undefined =>
  (platformatic as unknown as Record<string, ClientApi | undefined>)[`${name.charAt(0).toLowerCase()}${name.slice(1)}V${v}`];

/** The client throws on nonzero error codes, so responses are checked with them zeroed. */
function zeroErrorCodes(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(zeroErrorCodes);
  if (x === null || typeof x !== 'object' || Buffer.isBuffer(x)) return x;
  return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, /errorCode$/i.test(k) ? 0 : zeroErrorCodes(v)]));
}

test('responses we encode are fully parsed by @platformatic/kafka', () => {
  let checked = 0;
  for (const api of Object.values(API_SCHEMAS)) {
    for (let v = api!.minVersion; v <= api!.maxVersion; v++) {
      const parse = clientApi(api!.name, v)?.parseResponse;
      if (parse === undefined) continue;
      checked++;
      fc.assert(
        fc.property(structArb(api!.response.schema, v).map(zeroErrorCodes), (value) => {
          const reader = platformatic.Reader.from(encode(api!.response, v, value));
          try {
            parse(1, api!.apiKey, v, reader);
          } catch (e) {
            // Some errors are not error codes (Produce record errors); it has parsed everything by then.
            if (e instanceof platformatic.ResponseError) return;
            throw e;
          }
          assert.equal(reader.remaining, 0, `${api!.name} v${v}: bytes left unparsed`);
        }),
        { numRuns: 30 },
      );
    }
  }
  assert.ok(checked > 100, `only ${checked} response versions cross-checked`);
});

test('Fetch and Metadata requests built by @platformatic/kafka decode as intended', () => {
  const topicId = '01234567-89ab-cdef-0123-456789abcdef';
  for (let v = FetchRequest.minVersion; v <= FetchRequest.maxVersion; v++) {
    const create = clientApi('Fetch', v)?.createRequest;
    if (create === undefined) continue;
    const partition = { partition: 2, currentLeaderEpoch: 5, fetchOffset: 99n, lastFetchedEpoch: 4, partitionMaxBytes: 1234, logStartOffset: -1n };
    const req = decode(
      FetchRequest,
      v,
      create(500, 1, 1000, 1, 7, 3, [{ topic: 'tp', topicId, partitions: [partition] }], [{ topic: 'gone', topicId, partitions: [1, 2] }], 'rack').buffer,
    );
    assert.equal(req.maxWaitMs, 500);
    assert.equal(req.topics[0]?.partitions[0]?.fetchOffset, 99n);
    assert.equal(req.topics[0]?.partitions[0]?.partitionMaxBytes, 1234);
    if (v >= 13) assert.equal(req.topics[0]?.topicId, topicId);
    if (v >= 7) assert.deepEqual(req.forgottenTopicsData[0]?.partitions, [1, 2]);
    if (v >= 11) assert.equal(req.rackId, 'rack');
  }
  for (let v = MetadataRequest.minVersion; v <= MetadataRequest.maxVersion; v++) {
    const create = clientApi('Metadata', v)?.createRequest;
    if (create === undefined) continue;
    const req = decode(MetadataRequest, v, create(['a', 'b'], false, true).buffer);
    assert.deepEqual(
      req.topics?.map((t) => t.name),
      ['a', 'b'],
    );
    if (v >= 4) assert.equal(req.allowAutoTopicCreation, false);
    if (v >= 8) assert.equal(req.includeTopicAuthorizedOperations, true);
  }
});
