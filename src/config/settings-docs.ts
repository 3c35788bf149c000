import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { plainText, type Setting } from './setting-kinds.js';
import { SETTINGS } from './settings.js';

/**
 * `.env.example` and the README's settings table, rendered from the declarations in
 * settings.ts. `npm run settings:docs` writes them; settings-docs.spec.ts fails when the
 * checked-in files differ from what this renders.
 */
export const DOCS_COMMAND = 'npm run settings:docs';
export const ENV_EXAMPLE_FILE = '.env.example';
export const README_FILE = 'README.md';
export const TABLE_BEGIN = '<!-- settings:begin -->';
export const TABLE_END = '<!-- settings:end -->';

type AnySetting = Setting<unknown>;

const DECLARED: readonly AnySetting[] = Object.values(SETTINGS);
const WIDTH = 100;
const SECRET_NOTE = 'Secret: start-up messages never show its value.';

/** The settings by group, groups in the order they first appear, settings in declaration order. */
function byGroup(settings: readonly AnySetting[]): Map<string, AnySetting[]> {
  const groups = new Map<string, AnySetting[]>();
  for (const setting of settings) groups.set(setting.group, [...(groups.get(setting.group) ?? []), setting]);
  return groups;
}

/** `# ` comment lines of at most WIDTH characters (a longer single word keeps its own line). */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '#' && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

function envNote(setting: AnySetting): string {
  const parts = [setting.description, `Accepts ${setting.accepts}.`];
  if (setting.example === '' && setting.defaultText !== undefined) parts.push(`Unset: ${setting.defaultText}.`);
  if (setting.secret) parts.push(SECRET_NOTE);
  return plainText(parts.join(' '));
}

export function renderEnvExample(settings: readonly AnySetting[] = DECLARED): string {
  const lines = [
    ...comment(
      'Every setting of the blog service with its default. Copy to .env (optional) or set in the environment; ' +
        'the environment wins over .env. A bad value stops start-up with a message naming the setting.',
    ),
    ...comment(`Generated from src/config/settings.ts by \`${DOCS_COMMAND}\`: change a setting there, not here.`.replaceAll('`', '')),
  ];
  for (const [group, members] of byGroup(settings)) {
    lines.push('', `# --- ${group} ---`);
    for (const setting of members) lines.push(...comment(envNote(setting)), `${setting.env}=${setting.example}`);
  }
  return `${lines.join('\n')}\n`;
}

function cell(markdown: string): string {
  return markdown.replaceAll('|', '\\|');
}

export function renderSettingsTable(settings: readonly AnySetting[] = DECLARED): string {
  const rows = ['| Setting | Default | Accepts | Meaning |', '|---|---|---|---|'];
  for (const members of byGroup(settings).values()) {
    for (const setting of members) {
      const meaning = setting.secret ? `${setting.description} ${SECRET_NOTE}` : setting.description;
      rows.push(`| \`${setting.env}\` | ${cell(setting.defaultText ?? '—')} | ${cell(setting.accepts)} | ${cell(meaning)} |`);
    }
  }
  return `${rows.join('\n')}\n`;
}

/** Where the table is in the README: after the begin marker's line, up to the end marker. */
function tableBounds(readme: string): [number, number] {
  const begin = readme.indexOf(`${TABLE_BEGIN}\n`);
  const end = readme.indexOf(TABLE_END);
  if (begin < 0 || end < begin || readme.indexOf(TABLE_BEGIN, begin + 1) >= 0 || readme.indexOf(TABLE_END, end + 1) >= 0) {
    throw new Error(`${README_FILE} needs exactly one "${TABLE_BEGIN}" line followed by one "${TABLE_END}" around the settings table`);
  }
  return [begin + TABLE_BEGIN.length + 1, end];
}

/** The README's settings table as it is now (between the markers). */
export function settingsTableOf(readme: string): string {
  const [begin, end] = tableBounds(readme);
  return readme.slice(begin, end);
}

/** The README with the part between the markers replaced by `table`. */
export function withSettingsTable(readme: string, table: string): string {
  const [begin, end] = tableBounds(readme);
  return readme.slice(0, begin) + table + readme.slice(end);
}

/** Writes `.env.example` and the README's table under `root`; returns the files that changed. */
export function writeSettingsDocs(root: string): string[] {
  const readme = readFileSync(join(root, README_FILE), 'utf8');
  const rendered: [string, string][] = [
    [ENV_EXAMPLE_FILE, renderEnvExample()],
    [README_FILE, withSettingsTable(readme, renderSettingsTable())],
  ];
  const changed: string[] = [];
  for (const [name, content] of rendered) {
    const path = join(root, name);
    if (existsSync(path) && readFileSync(path, 'utf8') === content) continue;
    writeFileSync(path, content);
    changed.push(name);
  }
  return changed;
}
