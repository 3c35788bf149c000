import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config/settings.js';
import { killAllServers, type ServerProcess, startServer, tempWorkDir } from './support/server-process.js';
import { docsPagesOnDisk, USER_DOCS } from './support/user-docs.js';

/**
 * The newcomer's walkthrough (issue 37): every shell block of the quick-start docs runs, in
 * order, in one bash session (variables carry over from block to block), against a fresh
 * instance started as `npm start` starts one: the built server, a new SQLite file in an empty
 * working directory, the demo data, the default limits. Any answer of 400 or more, a GraphQL
 * answer with `errors`, or any other failing command is a failure, unless the command says what
 * it expects on its last line: `# expect: 412`.
 *
 * A block is a ```sh or ```bash fence of these files: the README, then the pages of docs/, in
 * the order of USER_DOCS (test/support/user-docs.ts). A block that cannot run on a fresh
 * instance (installing, another service, another machine) is preceded by a line
 * `<!-- walkthrough: skip <reason> -->`.
 */
const WALKTHROUGH_FILES: readonly string[] = USER_DOCS;

const BASE_IN_DOCS = 'localhost:3000';
const SKIP = /^<!--\s*walkthrough:\s*skip\b\s*(.*?)\s*-->$/;

interface Block {
  where: string;
  text: string;
  skip?: string;
}

/** The shell blocks of one Markdown file, in order; fences may be indented (inside list items). */
function shellBlocks(file: string): Block[] {
  const lines = readFileSync(resolve(file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(sh|bash|shell)\s*$/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1];
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i].trim() !== '```'; i++) body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i]);
    let previous = start - 1;
    while (previous >= 0 && lines[previous].trim() === '') previous--;
    const skip = previous >= 0 ? SKIP.exec(lines[previous].trim()) : null;
    if (skip && !skip[1]) throw new Error(`${file}:${previous + 1}: a skipped block needs a reason`);
    blocks.push({ where: `${file}:${start + 1}`, text: body.join('\n'), skip: skip?.[1] });
  }
  return blocks;
}

/**
 * `# expect: NNN` at the end of a command's last line makes NNN the status its curl must answer
 * (`# expect: 200 stream`: an event stream, read for five seconds); it becomes a variable set for
 * that command alone.
 */
function withExpectations(text: string, where: string): string {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const expectation = /#\s*expect:\s*(\d{3})(\s+stream)?\b/.exec(lines[i]);
    if (!expectation) continue;
    let first = i;
    while (first > 0 && lines[first - 1].endsWith('\\')) first--;
    const assignment = `WALK_EXPECT=${expectation[1]}${expectation[2] ? ' WALK_STREAM=1' : ''}`;
    const command = lines[first];
    const at = command.search(/\S/);
    // An assignment from a command substitution: the expectation goes inside it.
    const captured = /^(\s*\w+=\$\()\s*(.*)$/.exec(command);
    if (!/^curl\s/.test(captured ? captured[2] : command.trim())) throw new Error(`${where}: "# expect:" belongs on the last line of a curl command: ${command.trim()}`);
    lines[first] = captured ? `${captured[1]}${assignment} ${captured[2]}` : `${command.slice(0, at)}${assignment} ${command.slice(at)}`;
  }
  return lines.join('\n');
}

/** Checks every curl call and records every failing command: see the file. */
const PRELUDE = readFileSync(resolve('test/support/walkthrough-prelude.sh'), 'utf8');

function script(blocks: Block[], base: string): string {
  const parts = [PRELUDE];
  for (const block of blocks) {
    if (block.skip) continue;
    parts.push(`WALK_BLOCK='${block.where}'`, `echo "### ${block.where}"`, withExpectations(block.text.split(BASE_IN_DOCS).join(base), block.where));
  }
  // Reached only when bash ran the whole script (not cut short by the timeout below).
  parts.push('echo WALK_DONE');
  return `${parts.join('\n')}\n`;
}

function runBash(file: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('bash', [file], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolveRun({ code, output });
    });
  });
}

/** What `npm start` runs with: the defaults of every limit (the test helper turns them off). */
const DEFAULT_LIMITS = Object.fromEntries(
  Object.values(SETTINGS)
    .filter((setting) => setting.env.startsWith('RATE_LIMIT_'))
    .map((setting) => [setting.env, setting.example]),
);

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside fences). */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  let fence = false;
  for (const line of readFileSync(resolve(file), 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    const heading = fence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]));
  }
  return anchors;
}

/** Every relative link of a Markdown file that names no existing file, or no heading of it. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(resolve(file), 'utf8').replace(/```[\s\S]*?```/g, '');
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [path, anchor] = target.split('#');
    const linked = path === '' ? resolve(file) : resolve(dirname(file), path);
    if (!existsSync(linked)) broken.push(`${file}: ${target} (no such file)`);
    else if (anchor && !statSync(linked).isDirectory() && !anchorsOf(linked).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
  }
  return broken;
}

describe('the user docs', () => {
  it('list every page of docs/ in the walkthrough order', () => {
    expect([...USER_DOCS].filter((page) => page.startsWith('docs/')).sort()).toEqual(docsPagesOnDisk(new URL('../', import.meta.url)));
  });

  it('link only to files and headings that exist', () => {
    expect(USER_DOCS.flatMap(brokenLinks)).toEqual([]);
  });
});

describe('README walkthrough', () => {
  const blocks = WALKTHROUGH_FILES.flatMap(shellBlocks);
  let work: ReturnType<typeof tempWorkDir>;
  let server: ServerProcess;

  beforeAll(async () => {
    // An empty working directory: the default DATABASE_URL, ./data/blog.sqlite, is a new file there.
    work = tempWorkDir('readme-walkthrough-');
    // WEBHOOK_ALLOW_PRIVATE: the webhooks example registers a local URL, and says so.
    server = await startServer({ ...DEFAULT_LIMITS, NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE: 'true', SUPPORTED_LOCALES: 'en,de,fr' }, work.dir);
  });
  afterAll(() => {
    killAllServers();
    work?.remove();
  });

  it('finds the blocks: most run, each skipped one says why', () => {
    for (const block of blocks) if (block.skip !== undefined) expect(block.skip, block.where).not.toBe('');
    expect(blocks.filter((block) => !block.skip).length).toBeGreaterThan(10);
  });

  it('runs every shell block in order on a fresh instance, each answer as the docs say', { timeout: 120_000 }, async () => {
    const file = join(work.dir, 'walkthrough.sh');
    const failures = join(work.dir, 'failures.tsv');
    writeFileSync(file, script(blocks, `127.0.0.1:${server.port}`));
    writeFileSync(failures, '');
    const { output } = await runBash(file, work.dir, { WALK_FAILURES: failures });
    const failed = readFileSync(failures, 'utf8').trim();
    const ran = blocks.filter((block) => !block.skip);
    expect(output.trimEnd().endsWith('WALK_DONE'), `the script did not run to its end:\n${output.slice(-3000)}`).toBe(true);
    const failedBlocks = new Set(failed.split('\n').filter((line) => /^\S+:\d+\t/.test(line)).map((line) => line.split('\t')[0]));
    expect(failed, `${failedBlocks.size} of ${ran.length} blocks failed (${[...failedBlocks].join(', ')}):\n${failed}\n\n--- output ---\n${output.slice(-3000)}`).toBe('');
  });
});
