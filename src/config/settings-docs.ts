import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { plainText, type Setting } from './setting-kinds.js';
import { SETTINGS } from './settings.js';

/**
 * `.env.example`, the settings table of docs/configuration.md and the limits table of
 * docs/security.md, rendered from the declarations in settings.ts. `npm run settings:docs`
 * writes them; settings-docs.spec.ts fails when the checked-in files differ from what this renders.
 */
export const DOCS_COMMAND = 'npm run settings:docs';
export const ENV_EXAMPLE_FILE = '.env.example';
export const SETTINGS_DOCS_FILE = 'docs/configuration.md';
export const LIMITS_DOCS_FILE = 'docs/security.md';
export const TABLE_BEGIN = '<!-- settings:begin -->';
export const TABLE_END = '<!-- settings:end -->';
export const LIMITS_BEGIN = '<!-- limits:begin -->';
export const LIMITS_END = '<!-- limits:end -->';

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

/** The security section's table: every setting that bounds what a client may do or hold. */
export function renderLimitsTable(settings: readonly AnySetting[] = DECLARED): string {
  const rows = ['| Limit | Setting | Default |', '|---|---|---|'];
  for (const setting of settings) {
    if (setting.limit !== undefined) rows.push(`| ${cell(setting.limit)} | \`${setting.env}\` | ${cell(setting.defaultText ?? '—')} |`);
  }
  return `${rows.join('\n')}\n`;
}

type Markers = readonly [begin: string, end: string];
const SETTINGS_MARKERS: Markers = [TABLE_BEGIN, TABLE_END];
const LIMITS_MARKERS: Markers = [LIMITS_BEGIN, LIMITS_END];

/** Where a generated table is in a page: after the begin marker's line, up to the end marker. */
function tableBounds(readme: string, [open, close]: Markers): [number, number] {
  const begin = readme.indexOf(`${open}\n`);
  const end = readme.indexOf(close);
  if (begin < 0 || end < begin || readme.indexOf(open, begin + 1) >= 0 || readme.indexOf(close, end + 1) >= 0) {
    throw new Error(`${open === LIMITS_BEGIN ? LIMITS_DOCS_FILE : SETTINGS_DOCS_FILE} needs exactly one "${open}" line followed by one "${close}" around a generated table`);
  }
  return [begin + open.length + 1, end];
}

/** The settings table of a page as it is now (between the markers). */
export function settingsTableOf(readme: string, markers: Markers = SETTINGS_MARKERS): string {
  const [begin, end] = tableBounds(readme, markers);
  return readme.slice(begin, end);
}

/** The page with the part between the markers replaced by `table`. */
export function withSettingsTable(readme: string, table: string, markers: Markers = SETTINGS_MARKERS): string {
  const [begin, end] = tableBounds(readme, markers);
  return readme.slice(0, begin) + table + readme.slice(end);
}

/** The security section's table as it is now. */
export function limitsTableOf(readme: string): string {
  return settingsTableOf(readme, LIMITS_MARKERS);
}

/** Writes `.env.example` and the two tables' pages under `root`; returns the files that changed. */
export function writeSettingsDocs(root: string): string[] {
  const page = (name: string) => readFileSync(join(root, name), 'utf8');
  const rendered: [string, string][] = [
    [ENV_EXAMPLE_FILE, renderEnvExample()],
    [SETTINGS_DOCS_FILE, withSettingsTable(page(SETTINGS_DOCS_FILE), renderSettingsTable())],
    [LIMITS_DOCS_FILE, withSettingsTable(page(LIMITS_DOCS_FILE), renderLimitsTable(), LIMITS_MARKERS)],
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
