import type { FieldDef, Mappings } from '../mapping/mapping.js';
import type { Query } from '../requests/query-dsl.js';
import type { HighlightFieldOptions, HighlightRequest } from '../requests/highlight-request.js';
import { globMatch } from '../syntax/glob.js';
import { plainFragments, unifiedFragments } from './field-highlighters.js';
import { collectTerms, emptyTerms, type FieldTerms } from './highlight-terms.js';
import { VALUE_SEPARATOR } from './text-breaks.js';

/**
 * The `highlight` of each hit: the requested fields (patterns resolved against the index's text
 * and keyword fields), their values read from the hit's `_source` (a multi-field's from its
 * parent's), and each field's fragments from its highlighter. What a query marks in a field is
 * worked out once per search and field.
 */

export class Highlighter {
  private readonly terms = new Map<string, FieldTerms>();

  constructor(
    private readonly request: HighlightRequest,
    private readonly query: Query,
  ) {}

  /** The hit's `highlight` member, undefined when no field has a fragment (ES then leaves it out). */
  highlight(mappings: Mappings, source: unknown): Record<string, string[]> | undefined {
    const out: Record<string, string[]> = {};
    let any = false;
    for (const f of this.request.fields) {
      for (const def of this.resolve(mappings, f.name)) {
        if (Object.hasOwn(out, def.path)) continue;
        const values = valuesAt(source, sourcePath(mappings, def.path));
        if (values.length === 0) continue;
        const fragments = this.fragments(def, values, f.options);
        if (fragments.length > 0) {
          out[def.path] = fragments;
          any = true;
        }
      }
    }
    return any ? out : undefined;
  }

  private resolve(mappings: Mappings, name: string): FieldDef[] {
    const highlightable = (d: FieldDef | undefined): d is FieldDef => d !== undefined && (d.kind === 'text' || d.kind === 'keyword');
    if (!name.includes('*')) {
      const d = mappings.field(name);
      return highlightable(d) ? [d] : [];
    }
    return [...mappings.fields.values()].filter((d) => highlightable(d) && globMatch(name, d.path));
  }

  private fragments(def: FieldDef, values: string[], opts: HighlightFieldOptions): string[] {
    const keyword = def.kind === 'keyword';
    const key = `${opts.query === undefined ? '' : 'q'}${opts.requireFieldMatch ? 'r' : ''}:${def.path}:${keyword}`;
    let t = opts.query === undefined ? this.terms.get(key) : undefined;
    if (t === undefined) {
      t = emptyTerms();
      collectTerms(opts.query ?? this.query, def.path, keyword, opts.requireFieldMatch, t);
      if (opts.query === undefined) this.terms.set(key, t);
    }
    const frags = opts.type === 'plain' ? plainFragments(values, keyword, t, opts) : unifiedFragments(values.join(VALUE_SEPARATOR), keyword, t, opts);
    return frags.map((f) => f.text);
  }
}

/** Where a field's values are in the source: a multi-field (`title.raw`) is read from its parent. */
function sourcePath(mappings: Mappings, path: string): string {
  for (const [parent, subs] of mappings.subfields) if (subs.some((s) => s.path === path)) return parent;
  return path;
}

/** The values at a dotted path of a source (arrays flattened, dotted keys and nested objects alike), as text. */
function valuesAt(source: unknown, path: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown, rest: string): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, rest);
      return;
    }
    if (rest === '') {
      if (typeof v === 'string') out.push(v);
      else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    const parts = rest.split('.');
    for (let i = 1; i <= parts.length; i++) {
      const key = parts.slice(0, i).join('.');
      if (Object.hasOwn(o, key)) walk(o[key], parts.slice(i).join('.'));
    }
  };
  walk(source, path);
  return out;
}
