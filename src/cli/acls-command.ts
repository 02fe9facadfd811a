/**
 * `brook acls add | remove | list`: a running broker's ACLs, changed and shown over the Kafka
 * protocol (CreateAcls, DeleteAcls, DescribeAcls), as Kafka's kafka-acls tool (`AclCommand`) does.
 */
import { Option, type Command } from 'commander';
import {
  AclOperation,
  CLUSTER_NAME,
  operationName,
  PatternType,
  patternTypeName,
  Permission,
  permissionName,
  ResourceType,
  resourceTypeName,
  WILDCARD,
} from '../acl/acl-binding.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { CreateAclsRequest, CreateAclsResponse } from '../protocol/messages/create-acls.js';
import { DeleteAclsRequest, DeleteAclsResponse } from '../protocol/messages/delete-acls.js';
import { DescribeAclsRequest, DescribeAclsResponse } from '../protocol/messages/describe-acls.js';
import { parseHostPort } from '../server/host-port.js';
import { describeError } from '../faults/rule.js';
import { argParser } from './arg-parser.js';
import { BrokerClient } from './broker-client.js';
import { textTable } from './text-table.js';
import { readPassword } from './password-input.js';

const ACL_VERSION = 3;
const OPERATIONS = Object.keys(AclOperation).filter((op) => !['UNKNOWN', 'ANY'].includes(op));
const HEADINGS = ['RESOURCE TYPE', 'PATTERN', 'NAME', 'PRINCIPAL', 'HOST', 'OPERATION', 'PERMISSION'];

interface AclOptions {
  bootstrap: string;
  user?: string;
  topic?: string;
  group?: string;
  transactionalId?: string;
  cluster?: boolean;
  pattern: string;
  allow?: string;
  deny?: string;
  principal?: string;
  operation?: string[];
  host?: string;
}

const operation = argParser((text: string) => {
  const name = text.toUpperCase().replaceAll('-', '_');
  if (!OPERATIONS.includes(name)) throw new Error(`the operations are ${OPERATIONS.join(', ')}`);
  return name;
});

/** The options every subcommand takes: the broker, who asks, and the resource. */
function withResource(command: Command, patterns: readonly string[], pattern: string): Command {
  return command
    .requiredOption('--bootstrap <host:port>', 'the broker to ask')
    .option('--user <name>', 'authenticate as this SASL user (SASL/PLAIN), the password read from standard input')
    .option('--topic <name>', 'a topic (* for every topic)')
    .option('--group <name>', 'a consumer group (* for every group)')
    .option('--transactional-id <id>', 'a transactional id (* for every one)')
    .option('--cluster', 'the cluster')
    .addOption(new Option('--pattern <type>', 'how the name is matched').choices(patterns).default(pattern));
}

export function addAclsCommand(program: Command): void {
  const acls = program.command('acls').description("add, remove or list a broker's ACLs (brook serve --authorizer)");
  withResource(acls.command('add').description('allow or deny principals operations on a resource'), ['literal', 'prefixed'], 'literal')
    .option('--allow <principal>', 'the principal allowed, such as User:alice (User:* for everyone)')
    .option('--deny <principal>', 'the principal denied')
    .requiredOption('--operation <op...>', `the operations: ${OPERATIONS.join(', ')}`, (text: string, before: string[] = []) => [...before, operation(text)])
    .option('--host <address>', 'the client address the ACL applies to', WILDCARD)
    .action(async (o: AclOptions) => {
      if ((o.allow === undefined) === (o.deny === undefined)) throw new Error('give one of --allow <principal> and --deny <principal>.');
      const [resourceType, resourceName] = resourceOf(o, true);
      const creations = o.operation!.map((op) => ({
        resourceType,
        resourceName: resourceName!,
        resourcePatternType: patternOf(o.pattern),
        principal: (o.allow ?? o.deny)!,
        host: o.host!,
        operation: AclOperation[op as keyof typeof AclOperation],
        permissionType: o.allow !== undefined ? Permission.ALLOW : Permission.DENY,
      }));
      const response = await ask(o, (client) => client.request(CreateAclsRequest, CreateAclsResponse, ACL_VERSION, { creations }));
      const failed = response.results.find((r) => r.errorCode !== ErrorCode.NONE);
      if (failed !== undefined)
        throw new Error(`the broker refused: ${describeError(failed.errorCode)}${failed.errorMessage === null ? '' : `: ${failed.errorMessage}`}`);
      process.stdout.write(`added ${creations.length} ACL${creations.length === 1 ? '' : 's'}\n`);
    });
  withResource(
    acls.command('remove').description('remove the ACLs that match: what is not given matches anything'),
    ['literal', 'prefixed', 'any', 'match'],
    'any',
  )
    .option('--principal <principal>', 'only ACLs of this principal')
    .option('--operation <op>', 'only ACLs of this operation', operation)
    .option('--host <address>', 'only ACLs of this client address')
    .action(async (o: AclOptions & { operation?: string }) => {
      const filter = filterOf(o);
      const response = await ask(o, (client) => client.request(DeleteAclsRequest, DeleteAclsResponse, ACL_VERSION, { filters: [filter] }));
      const result = response.filterResults[0]!;
      if (result.errorCode !== ErrorCode.NONE) throw new Error(`the broker refused: ${describeError(result.errorCode)}`);
      process.stdout.write(`removed ${result.matchingAcls.length} ACL${result.matchingAcls.length === 1 ? '' : 's'}\n`);
      if (result.matchingAcls.length > 0) process.stdout.write(table(result.matchingAcls.map((a) => ({ ...a, acls: [a] }))));
    });
  withResource(acls.command('list').description('list the ACLs that match: what is not given matches anything'), ['literal', 'prefixed', 'any', 'match'], 'any')
    .option('--principal <principal>', 'only ACLs of this principal')
    .option('--operation <op>', 'only ACLs of this operation', operation)
    .option('--host <address>', 'only ACLs of this client address')
    .action(async (o: AclOptions & { operation?: string }) => {
      const response = await ask(o, (client) => client.request(DescribeAclsRequest, DescribeAclsResponse, ACL_VERSION, filterOf(o)));
      if (response.errorCode !== ErrorCode.NONE) throw new Error(`the broker refused: ${describeError(response.errorCode)}`);
      process.stdout.write(response.resources.length === 0 ? 'no ACLs\n' : table(response.resources));
    });
}

/** The resource the options name: exactly one, or (unless `required`) none, which matches any. */
function resourceOf(o: AclOptions, required: boolean): [number, string | null] {
  const given: [number, string | null][] = [];
  if (o.topic !== undefined) given.push([ResourceType.TOPIC, o.topic]);
  if (o.group !== undefined) given.push([ResourceType.GROUP, o.group]);
  if (o.transactionalId !== undefined) given.push([ResourceType.TRANSACTIONAL_ID, o.transactionalId]);
  if (o.cluster === true) given.push([ResourceType.CLUSTER, CLUSTER_NAME]);
  if (given.length > 1 || (required && given.length === 0)) throw new Error('give one of --topic, --group, --transactional-id and --cluster.');
  return given[0] ?? [ResourceType.ANY, null];
}

function patternOf(pattern: string): number {
  return PatternType[pattern.toUpperCase() as keyof typeof PatternType];
}

function filterOf(o: AclOptions & { operation?: string }) {
  const [resourceTypeFilter, resourceNameFilter] = resourceOf(o, false);
  return {
    resourceTypeFilter,
    resourceNameFilter,
    patternTypeFilter: patternOf(o.pattern),
    principalFilter: o.principal ?? null,
    hostFilter: o.host ?? null,
    operation: o.operation === undefined ? AclOperation.ANY : AclOperation[o.operation as keyof typeof AclOperation],
    permissionType: Permission.ANY,
  };
}

/** Connects (and authenticates, given --user), asks, and closes. */
async function ask<R>(o: AclOptions, request: (client: BrokerClient) => Promise<R>): Promise<R> {
  const password = o.user === undefined ? undefined : await readPassword();
  const { host, port } = parseHostPort(o.bootstrap);
  const client = await BrokerClient.connect(host, port);
  try {
    if (o.user !== undefined) await client.authenticatePlain(o.user, password!);
    return await request(client);
  } finally {
    client.close();
  }
}

interface Described {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly patternType: number;
  readonly acls: readonly { readonly principal: string; readonly host: string; readonly operation: number; readonly permissionType: number }[];
}

function table(resources: readonly Described[]): string {
  const rows = resources.flatMap((r) =>
    r.acls.map((a) => [
      resourceTypeName(r.resourceType),
      patternTypeName(r.patternType),
      r.resourceName,
      a.principal,
      a.host,
      operationName(a.operation),
      permissionName(a.permissionType),
    ]),
  );
  return textTable(HEADINGS, rows);
}
