import module from 'node:module';

// Node's compile cache (Node >= 22.1): the code of the service's ~3,000 modules is compiled once
// and read back on later starts. Enabled before anything else is imported, so it covers them
// all. The directory is Node's default (NODE_COMPILE_CACHE, or node-compile-cache in the
// temporary directory); when it cannot be written, Node says so in the result and starts
// without it, as does an older Node, which has no enableCompileCache.
// (@types/node 20 does not declare it.)
const { enableCompileCache } = module as { enableCompileCache?: () => unknown };
try {
  enableCompileCache?.();
} catch {
  // The cache is only an optimisation: start without it.
}

await import('./server.js');
