/**
 * Issue 43, item 3: what graphql-jit would gain over graphql-js for a document that is NOT
 * planned (it runs field by field through the resolvers): the production build's app on a
 * dataset a bench run kept (`--keep`), its schema and resolvers, the same document executed
 * sequentially by graphql-js `execute` + `JSON.stringify` and by graphql-jit's compiled query
 * (with its own `stringify`, and with `JSON.stringify`). graphql-jit is installed once under the
 * temp dir (not a dependency of the service), against the service's own `graphql`.
 *
 *   npm run build && node bench/graphql-jit.mjs --sqlite /tmp/blog-bench-…/bench.sqlite [--query '…'] [--n 4000]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { out as print, POST_PAGE_QUERY } from './shared.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VERSION = '0.8.9';
const { values } = parseArgs({ options: { sqlite: { type: 'string' }, query: { type: 'string', default: POST_PAGE_QUERY }, n: { type: 'string', default: '4000' }, rounds: { type: 'string', default: '3' } } });
if (!values.sqlite) {
  process.stderr.write('usage: node bench/graphql-jit.mjs --sqlite FILE (a dataset kept by node bench/run.mjs --keep)\n');
  process.exit(2);
}

const dir = path.join(os.tmpdir(), `blog-bench-graphql-jit-${VERSION}`);
if (!existsSync(path.join(dir, 'node_modules', 'graphql-jit'))) {
  mkdirSync(dir, { recursive: true });
  execFileSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `graphql-jit@${VERSION}`], { stdio: 'inherit' });
}
// One graphql for both: the schema's classes are checked by identity.
rmSync(path.join(dir, 'node_modules', 'graphql'), { recursive: true, force: true });
symlinkSync(path.join(ROOT, 'node_modules', 'graphql'), path.join(dir, 'node_modules', 'graphql'));
const { compileQuery, isCompiledQuery } = createRequire(path.join(dir, 'index.js'))('graphql-jit');

const { parse, execute } = await import('graphql');
const { GraphQLSchemaHost } = await import('@nestjs/graphql');
const { createApp } = await import(path.join(ROOT, 'dist/src/app.factory.js'));
const { loadConfig } = await import(path.join(ROOT, 'dist/src/config/app-config.js'));
const { Loaders } = await import(path.join(ROOT, 'dist/src/common/graphql/loaders.js'));

const config = loadConfig({
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  JWT_SECRET: 'bench-graphql-jit-secret-of-32-characters',
  DATABASE_URL: `sqlite:${values.sqlite}`,
  SEED_DEMO_DATA: 'false',
  RESPONSE_CACHE: 'off',
});
const app = await createApp(config);
await app.init();
const schema = app.get(GraphQLSchemaHost).schema;
const document = parse(values.query);
const compiled = compileQuery(schema, document, undefined, {});
if (!isCompiledQuery(compiled)) throw new Error(`graphql-jit cannot compile it: ${JSON.stringify(compiled)}`);
const context = () => ({ actor: null, clientAddress: '127.0.0.1', loaders: new Loaders() });
const N = Number(values.n);
const variables = (index) => ({ id: 1 + (index % 2000) });

async function time(once) {
  const started = process.hrtime.bigint();
  for (let index = 0; index < N; index++) await once(index);
  return (Number(process.hrtime.bigint() - started) / N / 1000).toFixed(1);
}
const js = JSON.stringify(await execute({ schema, document, variableValues: variables(6), contextValue: context() }));
const jit = compiled.stringify(await compiled.query(undefined, context(), variables(6)));
print(`the same bytes: ${js === jit}`);
for (let round = 0; round < Number(values.rounds); round++) {
  const a = await time(async (index) => JSON.stringify(await execute({ schema, document, variableValues: variables(index), contextValue: context() })));
  const b = await time(async (index) => compiled.stringify(await compiled.query(undefined, context(), variables(index))));
  const c = await time(async (index) => JSON.stringify(await compiled.query(undefined, context(), variables(index))));
  print(`graphql-js ${a} µs; graphql-jit ${b} µs (its stringify), ${c} µs (JSON.stringify) per document`);
}
await app.close();
