import type { FastifyReply } from 'fastify';

/** Adds Accept to Vary, keeping what is there (CORS adds Origin). */
export function varyOnAccept(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  if (current === undefined) {
    reply.header('vary', 'Accept');
    return;
  }
  const names = (Array.isArray(current) ? current.join(',') : String(current))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.some((name) => name === '*' || name.toLowerCase() === 'accept')) return;
  reply.header('vary', [...names, 'Accept'].join(', '));
}
