/**
 * The one way the repositories write SQL: a tagged template. `sql\`SELECT … WHERE id = ${id}\``
 * is a Fragment whose values become parameters in order, and a Fragment interpolated into
 * another is SQL, not a parameter (`sql.raw` for names known at start-up, `sql.join`, `sql.in`).
 * Sql renders a fragment into the dialect's text and its parameters (`render`); that text is
 * the statement's prepared-statement key, and nothing else is.
 */
export class Fragment {
  /**
   * @param strings the SQL around the values, one more than `values` (a template's strings)
   * @param fixed holds no parameter and never changes: `sql.raw`, whose text a statement's may keep
   */
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
    readonly fixed = false,
  ) {}

  /** The same fragment with `map` applied to its SQL (and its fragments' SQL), never to its values. */
  mapText(map: (text: string) => string): Fragment {
    return new Fragment(
      this.strings.map(map),
      this.values.map((value) => (value instanceof Fragment ? value.mapText(map) : value)),
      this.fixed,
    );
  }
}

/** A statement as a database takes it: its text (placeholders in the dialect's form) and its parameters. */
export interface Statement {
  text: string;
  params: unknown[];
}

const EMPTY = new Fragment([''], [], true);
const spacers = new Map<string, string[]>();

/** `['', sep, sep, …, '']` for `count` values: one array per separator and count. */
function between(count: number, separator: string): readonly string[] {
  if (count === 0) return [''];
  const key = `${count}\u0000${separator}`;
  let strings = spacers.get(key);
  if (strings === undefined) {
    strings = ['', ...Array.from({ length: count - 1 }, () => separator), ''];
    if (spacers.size < 10_000) spacers.set(key, strings);
  }
  return strings;
}

function template(strings: TemplateStringsArray, ...values: unknown[]): Fragment {
  return new Fragment(strings, values);
}

export const sql = Object.assign(template, {
  /** SQL text as it is: only for names and expressions the code declares, never for input. */
  raw(text: string): Fragment {
    return new Fragment([text], [], true);
  },
  /** Nothing (an optional clause left out). */
  empty: EMPTY,
  /** The fragments one after another, `separator` between them (nothing for none). */
  join(fragments: readonly Fragment[], separator = ', '): Fragment {
    if (fragments.length === 1) return fragments[0];
    return new Fragment(between(fragments.length, separator), fragments);
  },
  /** ` WHERE a AND b …` of the conditions; nothing for none. */
  where(conditions: readonly Fragment[]): Fragment {
    return conditions.length === 0 ? EMPTY : new Fragment([' WHERE ', ''], [conditions.length === 1 ? conditions[0] : new Fragment(between(conditions.length, ' AND '), conditions)]);
  },
  /** The values as a list of parameters (`$1, $2, $3`), for `IN (${sql.in(ids)})`. */
  in(values: readonly unknown[]): Fragment {
    return new Fragment(between(values.length, ', '), values);
  },
});

/** A variant of a call site's text: the fixed fragments it was rendered with (by identity), or none at a value's place. */
interface Rendered {
  fixed: readonly (Fragment | undefined)[];
  text: string;
  /** Every value is a parameter: the values are the parameters. */
  allParams: boolean;
}

/** Call sites with more variants than this (fixed fragments made per call) are rendered every time. */
const VARIANTS_MAX = 16;

/**
 * Renders fragments for one dialect. A template whose values are parameters or fixed fragments
 * is rendered once per call site (its strings array, the same object at every call) and set of
 * fixed fragments, so a statement that reads the same text each time builds it once, as a
 * fixed string did; any other is rendered per call.
 */
export class Renderer {
  private readonly sites = new WeakMap<readonly string[], Rendered[]>();

  constructor(private readonly placeholder: (index: number) => string) {}

  render(fragment: Fragment): Statement {
    const { strings, values } = fragment;
    const variants = this.sites.get(strings);
    if (variants !== undefined) {
      for (const variant of variants) {
        if (matches(variant, values)) return { text: variant.text, params: variant.allParams ? (values as unknown[]) : values.filter((value) => !(value instanceof Fragment)) };
      }
    }
    const params: unknown[] = [];
    const text = this.write(fragment, params);
    if (values.every((value) => !(value instanceof Fragment) || value.fixed) && (variants?.length ?? 0) < VARIANTS_MAX) {
      const fixed = values.map((value) => (value instanceof Fragment ? value : undefined));
      const variant = { fixed, text, allParams: fixed.every((value) => value === undefined) };
      if (variants === undefined) this.sites.set(strings, [variant]);
      else variants.push(variant);
    }
    return { text, params };
  }

  private write(fragment: Fragment, params: unknown[]): string {
    const { strings, values } = fragment;
    let text = strings[0];
    for (let index = 0; index < values.length; index += 1) {
      const value = values[index];
      text += value instanceof Fragment ? this.write(value, params) : this.placeholder(params.push(value));
      text += strings[index + 1];
    }
    return text;
  }
}

function matches(variant: Rendered, values: readonly unknown[]): boolean {
  const { fixed } = variant;
  if (fixed.length !== values.length) return false;
  for (let index = 0; index < values.length; index += 1) {
    const expected = fixed[index];
    const value = values[index];
    if (expected === undefined ? value instanceof Fragment : value !== expected) return false;
  }
  return true;
}
