import proxyAddr from '@fastify/proxy-addr';
import type { IncomingMessage } from 'node:http';

/** Which proxy hops may tell the client's address (TRUST_PROXY). */
export type TrustProxySetting = boolean;

export type TrustFunction = (address: string, hop: number) => boolean;

/**
 * The one rule for "who is the client": Fastify gets this function as `trustProxy` (so
 * `request.ip` follows it), and the WebSocket upgrade, which no Fastify hook sees, asks
 * `clientAddress` with the same function.
 */
export function trustFunction(setting: TrustProxySetting): TrustFunction {
  return setting ? () => true : () => false;
}

export function clientAddress(request: IncomingMessage, trust: TrustFunction): string {
  return proxyAddr(request, trust) ?? request.socket.remoteAddress ?? 'unknown';
}
