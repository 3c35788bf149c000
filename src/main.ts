import { accessSync, constants, statSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';

// Node's compile cache (Node >= 22.1): the code of the service's ~3,400 modules is compiled once
// and read back on later starts. Enabled before anything else is imported, so it covers them
// all. The directory is Node's default (node-compile-cache in the temporary directory, or
// NODE_COMPILE_CACHE, with which Node enables it by itself). Node reports a directory it cannot
// create in the result and starts without it, but on a temporary directory that is missing or
// read-only some versions hang (Node 24 under /proc): such a directory is not handed to it.
// An older Node has no enableCompileCache. (@types/node 20 does not declare it.)
const { enableCompileCache } = module as { enableCompileCache?: () => unknown };
try {
  const temporary = tmpdir();
  if (enableCompileCache && statSync(temporary).isDirectory()) {
    accessSync(temporary, constants.W_OK);
    enableCompileCache();
  }
} catch {
  // The cache is only an optimisation: start without it.
}

await import('./server.js');
