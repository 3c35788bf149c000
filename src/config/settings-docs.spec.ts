import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bool, int, setting, text } from './setting-kinds.js';
import {
  DOCS_COMMAND,
  ENV_EXAMPLE_FILE,
  limitsTableOf,
  LIMITS_DOCS_FILE,
  renderLimitsTable,
  renderEnvExample,
  renderSettingsTable,
  SETTINGS_DOCS_FILE,
  settingsTableOf,
  TABLE_BEGIN,
  TABLE_END,
  withSettingsTable,
} from './settings-docs.js';

describe('the settings docs are generated from src/config/settings.ts', () => {
  it(`${ENV_EXAMPLE_FILE} is what the declarations render (else run: ${DOCS_COMMAND})`, () => {
    expect(readFileSync(ENV_EXAMPLE_FILE, 'utf8'), `${ENV_EXAMPLE_FILE} differs from src/config/settings.ts: run ${DOCS_COMMAND}`).toBe(
      renderEnvExample(),
    );
  });

  it(`the settings table of ${SETTINGS_DOCS_FILE} is what the declarations render (else run: ${DOCS_COMMAND})`, () => {
    const page = readFileSync(SETTINGS_DOCS_FILE, 'utf8');
    expect(settingsTableOf(page), `${SETTINGS_DOCS_FILE}'s settings table differs from src/config/settings.ts: run ${DOCS_COMMAND}`).toBe(
      renderSettingsTable(),
    );
  });

  it(`the security table of ${LIMITS_DOCS_FILE} is what the declarations render (else run: ${DOCS_COMMAND})`, () => {
    const page = readFileSync(LIMITS_DOCS_FILE, 'utf8');
    expect(limitsTableOf(page), `${LIMITS_DOCS_FILE}'s security table differs from src/config/settings.ts: run ${DOCS_COMMAND}`).toBe(renderLimitsTable());
  });

  it('.env.example keeps its lines within 100 characters', () => {
    for (const line of renderEnvExample().split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });
});

describe('rendering', () => {
  const declared = [
    setting('DEMO_LIMIT', int(1, 5), { group: 'Demo', default: '2', description: 'How many `demos` at once.', limit: 'Demos at once; past it, 429' }),
    setting('DEMO_TOKEN', text({ minLength: 10 }), { group: 'Demo', default: 'a-default-token', secret: true, description: 'A token.' }),
    setting('DEMO_VERBOSE', bool(), { group: 'Other', default: 'true', productionDefault: 'false', description: 'Talk a lot.' }),
    setting('DEMO_NOTE', text(), { group: 'Demo', description: 'A | note.' }),
  ];

  it('writes each setting under its group with its description, what it accepts and its default', () => {
    const example = renderEnvExample(declared);
    expect(example).toContain(
      [
        '# --- Demo ---',
        '# How many demos at once. Accepts a whole number from 1 to 5.',
        'DEMO_LIMIT=2',
        '# A token. Accepts at least 10 characters. Unset: a-default-token. Secret: start-up messages never',
        '# show its value.',
        'DEMO_TOKEN=',
        '# A | note. Accepts any text.',
        'DEMO_NOTE=',
        '',
        '# --- Other ---',
        '# Talk a lot. Accepts true or false. Unset: true (false when NODE_ENV=production).',
        'DEMO_VERBOSE=',
      ].join('\n'),
    );
  });

  it('renders one table row per setting, keeping the backticks and escaping pipes', () => {
    expect(renderSettingsTable(declared).split('\n')).toEqual([
      '| Setting | Default | Accepts | Meaning |',
      '|---|---|---|---|',
      '| `DEMO_LIMIT` | `2` | a whole number from 1 to 5 | How many `demos` at once. |',
      '| `DEMO_TOKEN` | `a-default-token` | at least 10 characters | A token. Secret: start-up messages never show its value. |',
      '| `DEMO_NOTE` | — | any text | A \\| note. |',
      '| `DEMO_VERBOSE` | `true` (`false` when `NODE_ENV=production`) | `true` or `false` | Talk a lot. |',
      '',
    ]);
  });

  it('lists the settings that declare a limit in the security table', () => {
    expect(renderLimitsTable(declared).split('\n')).toEqual(['| Limit | Setting | Default |', '|---|---|---|', '| Demos at once; past it, 429 | `DEMO_LIMIT` | `2` |', '']);
  });

  it('replaces only the part of a page between the markers', () => {
    const readme = `# Title\n\nBefore.\n\n${TABLE_BEGIN}\n| old |\n${TABLE_END}\n\nAfter.\n`;
    expect(withSettingsTable(readme, '| new |\n')).toBe(`# Title\n\nBefore.\n\n${TABLE_BEGIN}\n| new |\n${TABLE_END}\n\nAfter.\n`);
    expect(() => withSettingsTable('# No markers\n', '| new |\n')).toThrow(/settings:begin/);
    expect(() => withSettingsTable(`${TABLE_END}\n${TABLE_BEGIN}\n`, '| new |\n')).toThrow(/settings:begin/);
  });
});
