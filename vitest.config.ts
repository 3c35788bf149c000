import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql ships CommonJS (main) and ESM (module) builds. Node (and so Nest and Apollo) loads
    // the CommonJS one; Vite would give our sources the ESM one, and a schema or GraphQLError
    // from one copy is not an instance of the other's classes. One copy for everyone:
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['src/**/*.spec.ts', 'test/medium/**/*.spec.ts', 'test/**/*.e2e-spec.ts'],
    environment: 'node',
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
