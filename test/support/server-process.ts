import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TEST_JWT_SECRET } from './test-app.js';

/**
 * The production build (`node dist/src/main.js`) as a child process, for the tests that need a
 * real process: signals, crashes, its log output. `npm test` builds first (pretest).
 */
export const MAIN = resolve('dist/src/main.js');

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Everything written to stdout so far, and stderr. */
  stdout: () => string;
  stderr: () => string;
  /** stdout's JSON lines, parsed (non-JSON lines are skipped). */
  logLines: () => Record<string, unknown>[];
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL if it is still running. */
  kill: () => void;
}

const running = new Set<ChildProcess>();

/** Kills every server process a test started and has not seen exit. For afterAll. */
export function killAllServers(): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  running.clear();
}

export function requireBuild(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm test does it)`);
}

/** A temporary directory as the working directory (no .env there), removed by the returned function. */
export function tempWorkDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts the built server on a free port (PORT=0) with LOG_LEVEL=info, and resolves once its
 * pino line "Listening on http://…:PORT" names the port.
 */
export async function startServer(env: Record<string, string>, cwd: string): Promise<ServerProcess> {
  requireBuild();
  const base = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'CORS_ORIGINS', 'PORT', 'HOST', 'TRUST_PROXY', 'METRICS_ENABLED']) {
    delete base[name];
  }
  const child = spawn(process.execPath, [MAIN], {
    cwd,
    env: {
      ...base,
      NODE_ENV: 'test',
      NO_COLOR: '1',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: '0',
      JWT_SECRET: TEST_JWT_SECRET,
      SEED_DEMO_DATA: 'true',
      RATE_LIMIT_MAX: '0',
      RATE_LIMIT_AUTH_MAX: '0',
      RATE_LIMIT_COMMENTS_MAX: '0',
      RATE_LIMIT_TAGS_MAX: '0',
      RATE_LIMIT_COST_MAX: '0',
      RATE_LIMIT_SEARCH_MAX: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolveExit({ code, signal });
    }),
  );
  const logLines = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      });

  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => done(new Error(`no "Listening on" line within 60 s:\n${stdout}\n${stderr}`)), 60_000);
    const check = () => {
      for (const line of logLines()) {
        const match = typeof line.msg === 'string' ? /Listening on https?:\/\/\S*?:(\d+)/.exec(line.msg) : null;
        if (match) return done(undefined, Number(match[1]));
      }
    };
    const onExit = () => done(new Error(`the server exited before listening:\n${stdout}\n${stderr}`));
    function done(error?: Error, value?: number) {
      clearTimeout(timer);
      child.stdout!.off('data', check);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolvePort(value!);
    }
    child.stdout!.on('data', check);
    child.once('exit', onExit);
    check();
  });

  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    stdout: () => stdout,
    stderr: () => stderr,
    logLines,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
