import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';

/**
 * A real PgBouncer (the Debian package's binary) in front of the test PostgreSQL, started by a
 * test and stopped after it: for the suites that run the service through a connection pooler.
 */

/** The pgbouncer binary: on PATH, or where Debian puts it (/usr/sbin, often not on a user's PATH). */
export function findPgbouncer(): string | undefined {
  const directories = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const directory of directories.filter(Boolean)) {
    const candidate = join(directory, 'pgbouncer');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export type PoolMode = 'session' | 'transaction' | 'statement';

export interface Pgbouncer {
  port: number;
  /** The same URL (user, database), through the pooler. */
  rewrite(url: string): string;
  /** What it wrote to stderr (its log). */
  log(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts pgbouncer on a free port of 127.0.0.1 in front of the server of `target` (a
 * postgres:// URL): every database name is passed through (`*`), trust authentication for the
 * target's user, no Unix socket, and no prepared statement support of its own (1.18 has none):
 * the strict case. Resolves once it accepts a query.
 */
export async function startPgbouncer(target: string, options: { poolMode?: PoolMode; poolSize?: number } = {}): Promise<Pgbouncer> {
  const binary = findPgbouncer();
  if (!binary) throw new Error('pgbouncer is not installed (Debian: apt-get install pgbouncer)');
  const server = new URL(target);
  const user = decodeURIComponent(server.username || 'postgres');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'blog-pgbouncer-'));
  const authFile = join(dir, 'users.txt');
  writeFileSync(authFile, `"${user}" "${decodeURIComponent(server.password)}"\n`);
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${authFile}`,
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `default_pool_size = ${options.poolSize ?? 5}`,
      'max_client_conn = 500',
      // A server connection left by one client goes to any other: what production sees.
      'server_round_robin = 1',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: as root, it reads its files first and then switches user.
  const args = process.getuid?.() === 0 ? ['-u', 'postgres', ini] : [ini];
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const rewrite = (url: string) => {
    const through = new URL(url);
    through.hostname = '127.0.0.1';
    through.port = String(port);
    return through.toString();
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`pgbouncer exited at start-up:\n${log}`);
    }
    const probe = new pg.Client({ connectionString: rewrite(target), connectionTimeoutMillis: 1000 });
    try {
      await probe.connect();
      await probe.query('SELECT 1');
      await probe.end();
      break;
    } catch (error) {
      await probe.end().catch(() => undefined);
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`pgbouncer did not answer within 15 s (${(error as Error).message}):\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { port, rewrite, log: () => log, stop };
}
