/**
 * What a Kafka API handler is told of a request the console makes on a user's behalf (creating a
 * topic, producing a message): the handler's own checks and effects apply, as for a client's.
 */
import type { RequestInfo } from '../broker/api-handler.js';
import { clientAddress } from '../server/host-port.js';

let nextId = -1;

export function consoleRequestInfo(apiVersion: number, remoteAddress: string): RequestInfo {
  return {
    apiVersion,
    clientId: 'brook-console',
    // Negative ids: never a TCP connection's.
    connection: { id: nextId--, remoteAddress, address: clientAddress(remoteAddress), certifiedPeer: undefined, end: () => undefined },
    sent: { afterSent: (release) => release(), holding: () => undefined, answerRoom: Infinity, cut: () => undefined },
  };
}
