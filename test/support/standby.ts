import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { POSTGRES_SKIPPED } from './databases.js';

/**
 * A streaming standby of the test cluster (TEST_DATABASE_URL), made by pg_basebackup and run
 * by pg_ctl as the postgres OS user, for the read-replica suite. Every run makes its own in a
 * fresh /tmp/blog-replica-* directory on a free port, and removes it in its afterAll; a standby
 * left behind by a run that crashed (its owner process gone) is stopped and removed first.
 */
const run = promisify(execFile);
const PREFIX = 'blog-replica-';
const OWNER_FILE = 'owner.pid';
const HBA_MARK = '# blog read-replica test';
const HBA_LINE = `host replication all 127.0.0.1/32 trust ${HBA_MARK}`;
const HBA_PRESENT = /^\s*host\s+replication\s+all\s+127\.0\.0\.1\/32\s+trust\b/m;
/** pg_basebackup copies the whole cluster: generous, since other suites' databases may be in it. */
const BASEBACKUP_TIMEOUT_MS = 600_000;

/** The PostgreSQL server programs, or why the suite cannot run here. */
export function standbyTools(): { bin: string } | { missing: string } {
  if (POSTGRES_SKIPPED) return { missing: POSTGRES_SKIPPED };
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return { missing: 'not running as root (the standby runs as the postgres OS user through runuser)' };
  if (!existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser') && !existsSync('/usr/bin/runuser')) return { missing: 'runuser is not available' };
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'pg_basebackup')) && existsSync(join(bin, 'pg_ctl'))) return { bin };
  }
  return { missing: 'pg_basebackup and pg_ctl were not found in /usr/lib/postgresql/*/bin' };
}

const asPostgres = (bin: string, program: string, args: string[], timeout = 120_000) =>
  run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args], { timeout, maxBuffer: 16 * 1024 * 1024 });

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ownerOf(dir: string): number {
  const ownerFile = join(dir, OWNER_FILE);
  return existsSync(ownerFile) ? Number(readFileSync(ownerFile, 'utf8').trim()) : NaN;
}

/** Whether another live test process has a standby now. */
function otherLiveRuns(): boolean {
  return readdirSync('/tmp')
    .filter((entry) => entry.startsWith(PREFIX))
    .some((entry) => {
      const owner = ownerOf(join('/tmp', entry));
      return Number.isInteger(owner) && owner !== process.pid && isAlive(owner);
    });
}

/** Standbys of earlier runs whose test process is gone (crashed, killed): stopped and removed. */
export async function removeLeftoverStandbys(bin: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of readdirSync('/tmp').filter((entry) => entry.startsWith(PREFIX))) {
    const dir = join('/tmp', name);
    const owner = ownerOf(dir);
    if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) continue;
    const data = join(dir, 'data');
    if (existsSync(join(data, 'postmaster.pid'))) await asPostgres(bin, 'pg_ctl', ['-D', data, 'stop', '-m', 'immediate', '-w', '-t', '60']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function query<T extends pg.QueryResultRow>(connectionString: string, text: string, options: Partial<pg.ClientConfig> = {}): Promise<T[]> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000, ...options });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Replication connections from 127.0.0.1 are trusted (pg_hba.conf, found through SHOW hba_file):
 * the line is added (and the configuration reloaded) only when missing. Returns whether it was
 * added (marked, so that it is removed again by remove()).
 */
async function allowReplication(primaryUrl: string): Promise<boolean> {
  const [{ hba_file: hbaFile }] = await query<{ hba_file: string }>(primaryUrl, 'SHOW hba_file');
  const text = readFileSync(hbaFile, 'utf8');
  let added = false;
  if (!HBA_PRESENT.test(text)) {
    writeFileSync(hbaFile, `${text.endsWith('\n') ? text : `${text}\n`}${HBA_LINE}\n`);
    added = true;
    await query(primaryUrl, 'SELECT pg_reload_conf()');
  }
  const url = new URL(primaryUrl);
  await until('a replication connection to the primary', 30_000, async () => {
    await query(`postgres://postgres@${url.hostname}:${url.port || 5432}/postgres`, 'IDENTIFY_SYSTEM', { replication: true } as Partial<pg.ClientConfig>);
    return true;
  });
  return added;
}

async function forgetReplicationLine(primaryUrl: string): Promise<void> {
  const [{ hba_file: hbaFile }] = await query<{ hba_file: string }>(primaryUrl, 'SHOW hba_file');
  const text = readFileSync(hbaFile, 'utf8');
  if (!text.includes(HBA_MARK)) return;
  writeFileSync(hbaFile, text.split('\n').filter((line) => !line.includes(HBA_MARK)).join('\n'));
  await query(primaryUrl, 'SELECT pg_reload_conf()');
}

export interface Standby {
  port: number;
  /** The primary's URL with the standby's port. */
  urlFor(primaryDatabaseUrl: string): string;
  /** Runs SQL on the standby, in `database`. */
  query<T extends pg.QueryResultRow>(database: string, text: string): Promise<T[]>;
  /** Stops it at once (pg_ctl stop -m immediate), as a crash would. */
  kill(): Promise<void>;
  /** Stopped and removed (also after kill); the marked pg_hba line too, unless another run's standby is alive. */
  remove(): Promise<void>;
}

export async function startStandby(bin: string, primaryUrl: string): Promise<Standby> {
  await removeLeftoverStandbys(bin);
  const primary = new URL(primaryUrl);
  await allowReplication(primaryUrl);
  const dir = mkdtempSync(join('/tmp', PREFIX));
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
  chownPostgres(dir);
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  let started = false;
  const remove = async () => {
    if (started || existsSync(join(data, 'postmaster.pid'))) {
      await asPostgres(bin, 'pg_ctl', ['-D', data, 'stop', '-m', 'immediate', '-w', '-t', '60']).catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
    // Our marked line goes when no other run's standby is left (also one a crashed run added).
    if (!otherLiveRuns()) await forgetReplicationLine(primaryUrl).catch(() => undefined);
  };
  try {
    // -R: standby.signal and primary_conninfo; -X stream: no WAL archive needed, and only the
    // temporary slot pg_basebackup makes for itself (nothing is left on the primary).
    // Another suite dropping its database meanwhile can fail a copy: tried again from scratch.
    for (let attempt = 1; ; attempt++) {
      try {
        await asPostgres(
          bin,
          'pg_basebackup',
          ['-h', primary.hostname, '-p', primary.port || '5432', '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '--checkpoint=fast'],
          BASEBACKUP_TIMEOUT_MS,
        );
        break;
      } catch (error) {
        rmSync(data, { recursive: true, force: true });
        if (attempt >= 3) throw error;
      }
    }
    // A hot standby needs these at least as high as the primary's; the configuration files of a
    // packaged cluster (Debian's /etc/postgresql) are not in the data directory.
    const settings = await query<{ name: string; setting: string }>(
      primaryUrl,
      "SELECT name, setting FROM pg_settings WHERE name IN ('max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction')",
    );
    writeFileSync(
      join(data, 'postgresql.conf'),
      [
        "listen_addresses = '127.0.0.1'",
        'hot_standby = on',
        'shared_buffers = 16MB',
        'fsync = off',
        ...settings.map(({ name, setting }) => `${name} = ${setting}`),
        '',
      ].join('\n'),
    );
    writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    writeFileSync(join(data, 'pg_ident.conf'), '');
    chownPostgres(...['postgresql.conf', 'pg_hba.conf', 'pg_ident.conf'].map((file) => join(data, file)));
    const port = await freePort();
    started = true;
    await asPostgres(bin, 'pg_ctl', ['-D', data, '-o', `-p ${port} -k ${dir}`, '-l', join(dir, 'log'), 'start', '-w', '-t', '120'], 180_000).catch((error: Error) => {
      const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8').slice(-2000) : '';
      throw new Error(`pg_ctl start failed: ${error.message}\n${log}`);
    });
    const urlFor = (databaseUrl: string) => {
      const url = new URL(databaseUrl);
      url.port = String(port);
      return url.toString();
    };
    await until('the standby to accept connections in recovery', 120_000, async () => {
      const [row] = await query<{ recovery: boolean }>(urlFor(primaryUrl), 'SELECT pg_is_in_recovery() AS recovery');
      return row.recovery ? true : undefined;
    });
    return {
      port,
      urlFor,
      query: (database, text) => {
        const url = new URL(primaryUrl);
        url.pathname = `/${database}`;
        return query(urlFor(url.toString()), text);
      },
      kill: async () => {
        await asPostgres(bin, 'pg_ctl', ['-D', data, 'stop', '-m', 'immediate', '-w', '-t', '60']);
      },
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

function chownPostgres(...paths: string[]): void {
  const uid = Number(execFileSyncText('id', ['-u', 'postgres']));
  const gid = Number(execFileSyncText('id', ['-g', 'postgres']));
  for (const path of paths) chownSync(path, uid, gid);
}

const execFileSyncText = (file: string, args: string[]) => execFileSync(file, args, { encoding: 'utf8' }).trim();

export { until };
