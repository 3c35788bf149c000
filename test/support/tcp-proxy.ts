import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A TCP proxy between the app and a server (PostgreSQL, Redis) that a test can break and
 * restore. cut(): every open connection is closed and new ones are refused, as when the server
 * goes down. stall(): connections stay open but no byte gets through, as in a network partition.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<[Socket, Socket]>();
  private mode: 'open' | 'cut' | 'stalled' = 'open';
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const holder: { proxy?: TcpProxy } = {};
    const server = createServer((client) => holder.proxy!.accept(client, targetHost, targetPort));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('The proxy has no TCP address');
    holder.proxy = new TcpProxy(server, address.port);
    return holder.proxy;
  }

  /** The same URL with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const rewritten = new URL(url);
    rewritten.hostname = '127.0.0.1';
    rewritten.port = String(this.port);
    return rewritten.toString();
  }

  get isCut(): boolean {
    return this.mode === 'cut';
  }

  get openConnections(): number {
    return this.sockets.size;
  }

  /** Closes every connection and refuses new ones until restore(). */
  cut(): void {
    this.mode = 'cut';
    this.destroyAll();
  }

  /** Keeps every connection open but forwards nothing, and accepts new ones that go nowhere. */
  stall(): void {
    this.mode = 'stalled';
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** Back to normal; connections left over from a stall are closed, as a partition's would time out. */
  restore(): void {
    if (this.mode === 'stalled') this.destroyAll();
    this.mode = 'open';
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    this.pairs.clear();
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.mode === 'cut') {
      client.destroy();
      return;
    }
    this.track(client);
    if (this.mode === 'stalled') {
      client.pause();
      return;
    }
    const upstream = connect(port, host);
    this.track(upstream);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const closeBoth = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', closeBoth).on('close', closeBoth);
    upstream.on('error', closeBoth).on('close', closeBoth);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
  }
}
