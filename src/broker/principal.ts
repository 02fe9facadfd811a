/** Who a connection is, as Kafka's `DefaultKafkaPrincipalBuilder` names it. */
import type { ConnectionContext } from '../server/connection.js';
import type { BrokerContext } from './broker-context.js';

export interface Principal {
  readonly type: string;
  readonly name: string;
}

const USER = 'User';

/** The SASL user, else the subject of a verified TLS client certificate, else ANONYMOUS. */
export function principalOf(connection: ConnectionContext, broker: BrokerContext): Principal {
  return userPrincipal(broker.sasl?.principal(connection) ?? connection.certifiedPeer);
}

/** The user named, else ANONYMOUS. */
export function userPrincipal(name: string | undefined): Principal {
  return { type: USER, name: name ?? 'ANONYMOUS' };
}

/** The principal as ACLs and super users name it: `User:alice`. */
export function aclPrincipal({ type, name }: Principal): string {
  return `${type}:${name}`;
}
