// The loader hooks of module-recorder.mjs (they run on the loader's thread).
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (file) appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
