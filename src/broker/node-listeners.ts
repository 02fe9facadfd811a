/**
 * The listeners of a broker's nodes: one per node id, each handing its requests to the dispatcher
 * with that node's view. A node stopped has its listener closed (its connections with it); an
 * isolated node's listener stays open but answers nothing (`Cluster.isolated`) until healed, as a
 * node cut off from the network would, and then closes the connections that waited.
 */
import type { ConnectionContext, FrameHandler, ResponseBytes, SentHooks } from '../server/connection.js';
import type { TcpServer } from '../server/tcp-server.js';
import type { Cluster } from './cluster.js';

export class NodeListeners {
  private readonly servers = new Map<number, TcpServer>();
  /** Requests an isolated node holds, each released (its connection closed) when it is healed. */
  private readonly held = new Map<number, (() => void)[]>();

  constructor(
    private readonly cluster: Cluster,
    private readonly host: string,
    /** Where clients are told node `nodeId`, listening on `port`, is reached. */
    private readonly advertise: (nodeId: number, port: number) => { host: string; port: number },
    /** A listener for node `nodeId`, handing frames to `handler`. */
    private readonly listener: (handler: FrameHandler) => TcpServer,
    /** The dispatcher of node `nodeId`. */
    private readonly dispatcher: (nodeId: number) => FrameHandler,
  ) {}

  /** Opens node `nodeId`'s listener on `port` (0: a free one) and records where it is reached. */
  async start(nodeId: number, port: number): Promise<number> {
    const dispatch = this.dispatcher(nodeId);
    const server = this.listener((frame: Buffer, connection: ConnectionContext, sent: SentHooks): ResponseBytes | Promise<ResponseBytes> =>
      this.cluster.isolated.has(nodeId) ? this.hold(nodeId, sent) : dispatch(frame, connection, sent),
    );
    try {
      const bound = await server.listen(this.host, port);
      this.servers.set(nodeId, server);
      const advertised = this.advertise(nodeId, bound.port);
      this.cluster.setAddress(nodeId, advertised.host, advertised.port);
      return bound.port;
    } catch (err) {
      await server.close();
      throw err;
    }
  }

  /** Closes node `nodeId`'s listener and every connection to it. */
  async stop(nodeId: number): Promise<void> {
    this.heal(nodeId);
    const server = this.servers.get(nodeId);
    this.servers.delete(nodeId);
    await server?.close();
  }

  /** Releases what an isolated node held: the connections whose requests it held close. */
  heal(nodeId: number): void {
    for (const release of this.held.get(nodeId) ?? []) release();
    this.held.delete(nodeId);
  }

  get connectionCount(): number {
    let count = 0;
    for (const server of this.servers.values()) count += server.connectionCount;
    return count;
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers.keys()].map((nodeId) => this.stop(nodeId)));
  }

  private hold(nodeId: number, sent: SentHooks): Promise<ResponseBytes> {
    let held = this.held.get(nodeId);
    if (held === undefined) this.held.set(nodeId, (held = []));
    const list = held;
    return new Promise((resolve) =>
      list.push(() => {
        sent.cut();
        resolve(undefined);
      }),
    );
  }
}
