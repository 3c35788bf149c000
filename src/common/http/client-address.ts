import proxyAddr from '@fastify/proxy-addr';
import type { IncomingMessage } from 'node:http';
import type { TrustProxySetting } from '../../config/app-config.js';

export type { TrustProxySetting };

export type TrustFunction = (address: string, hop: number) => boolean;

/**
 * The one rule for "who is the client": Fastify gets this function as `trustProxy` (so
 * `request.ip` follows it), and the WebSocket upgrade, which no Fastify hook sees, asks
 * `clientAddress` with the same function.
 */
export function trustFunction(setting: TrustProxySetting): TrustFunction {
  if (setting === false || setting === 0) return () => false;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return proxyAddr.compile(setting);
}

export function clientAddress(request: IncomingMessage, trust: TrustFunction): string {
  return proxyAddr(request, trust) ?? request.socket.remoteAddress ?? 'unknown';
}
