import type { FastifyReply } from 'fastify';

/** Adds Accept to Vary, keeping what is there (CORS adds Origin). */
export function varyOnAccept(reply: FastifyReply): void {
  varyOn(reply, 'Accept');
}

/** Adds a request header's name to Vary, keeping what is there. */
export function varyOn(reply: FastifyReply, header: string): void {
  const current = reply.getHeader('vary');
  if (current === undefined) {
    reply.header('vary', header);
    return;
  }
  const names = (Array.isArray(current) ? current.join(',') : String(current))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const lower = header.toLowerCase();
  if (names.some((name) => name === '*' || name.toLowerCase() === lower)) return;
  reply.header('vary', [...names, header].join(', '));
}
