/**
 * Produce throughput with the authorizer on, every Produce request judged against a set of ACLs,
 * beside the same broker without one, in alternating rounds.
 */
import { rm } from 'node:fs/promises';
import { kafkajs } from '../test/helpers/kafkajs.js';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { PARTITIONS, produceLoad } from './kafka-load.js';
import { alternating, highest } from './measure.js';
import { compared, type Row } from './table.js';

const BATCH = 100;
/** ACLs of other users beside the producer's own, so that a decision has some to look past. */
const OTHER_USERS = 50;

/**
 * The load generator connects without SASL, as User:ANONYMOUS, which may write and create the
 * topics the rounds use by a prefixed ACL. With no ACL on the cluster yet, allow.everyone lets it
 * add them.
 */
async function addAcls(serve: ServeProcess): Promise<void> {
  const admin = kafkajs(serve.bootstrap).admin();
  await admin.connect();
  const acl = (principal: string, resourceName: string, resourcePatternType: number, operation: number) => ({
    resourceType: 2,
    resourceName,
    resourcePatternType,
    principal,
    host: '*',
    operation,
    permissionType: 3,
  });
  try {
    await admin.createAcls({
      acl: [
        ...[4, 5, 8].map((operation) => acl('User:ANONYMOUS', 'acl-', 4, operation)),
        ...Array.from({ length: OTHER_USERS }, (_, i) => acl(`User:app-${i}`, `acl-round-${i}`, 3, 4)),
        acl('User:auditor', 'acl-', 4, 3),
      ] as never,
    });
  } finally {
    await admin.disconnect();
  }
}

export async function authorizerBench(smoke: boolean): Promise<Row[]> {
  const messages = smoke ? 5_000 : 400_000;
  const load = { messages, batch: BATCH };
  const args = ['--log-level', 'warn', '--partitions', String(PARTITIONS)];
  const on = await startServe([...args, '--authorizer', '--allow-everyone-if-no-acl-found']);
  const off = await startServe(args);
  try {
    await addAcls(on);
    // Warmed as the throughput rows' brokers are.
    if (!smoke) for (const n of [1, 2, 3]) for (const serve of [on, off]) await produceLoad(serve.bootstrap, `acl-warm-up-${n}`, load);
    const [withAcls, without] = (
      await alternating(smoke ? 1 : 5, [
        async (n) => {
          const r = await produceLoad(on.bootstrap, `acl-round-${n}`, load);
          if (r.errors !== 0) throw new Error(`${r.errors} messages refused with the authorizer on`);
          return r.messages / r.seconds;
        },
        async (n) => {
          const r = await produceLoad(off.bootstrap, `acl-round-${n}`, load);
          return r.messages / r.seconds;
        },
      ])
    ).map(highest);
    return [
      compared(`produce with --authorizer and ${OTHER_USERS + 4} ACLs, ${BATCH}-msg batches (msgs/s)`, withAcls!, without!, 'brook without an authorizer'),
    ];
  } finally {
    for (const serve of [on, off]) {
      await serve.stop();
      await rm(serve.dataDir, { recursive: true, force: true });
    }
  }
}
