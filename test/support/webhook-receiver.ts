import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Receipt {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What a delivery's JSON body holds (CONTRACT §5b): `data` as in GET /events. */
export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: { cursor: string; type: string; occurredAt: string; postId?: number; commentId?: number; authorId: number; resource?: Record<string, unknown> | null };
}

/**
 * A webhook receiver on 127.0.0.1 (the app under test needs WEBHOOK_ALLOW_PRIVATE=true): records
 * every request and answers with the status `answer` gives it.
 */
export class Receiver {
  readonly receipts: Receipt[] = [];
  answer: (receipt: Receipt, index: number) => number = () => 204;
  port = 0;
  private server?: Server;

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const receipt = { path: req.url ?? '', method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.receipts.push(receipt);
        res.writeHead(this.answer(receipt, this.receipts.length - 1)).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The parsed body of every request so far. */
  payloads(): WebhookPayload[] {
    return this.receipts.map((receipt) => JSON.parse(receipt.body) as WebhookPayload);
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }
}
