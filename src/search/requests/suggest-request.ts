import { errors, SearchError } from '../errors.js';
import { isJsonObject } from '../syntax/json-members.js';
import { phraseSuggestion, type PhraseSuggestion, type SpellCheckerSettings } from './phrase-suggest-request.js';

/**
 * The `suggest` section of a search body: named suggestions, each with its text (or the section's
 * global `text`) and its suggester. Portico runs the `term` suggester (TermSuggestionBuilder's
 * options, with the `internal` string distance) and the `phrase` suggester
 * (phrase-suggest-request.ts); the `completion` suggester is refused once the index is known, as
 * ES refuses a field that is no completion field.
 */

export type SuggestMode = 'missing' | 'popular' | 'always';

export interface TermSuggestion extends SpellCheckerSettings {
  /** `completion`: refused once the index is known, as ES refuses a field that is no completion field (Portico maps none). */
  readonly kind: 'term' | 'completion';
  readonly name: string;
  readonly text: string;
  readonly field: string;
  readonly size: number;
  readonly shardSize: number;
  readonly sort: 'score' | 'frequency';
  readonly suggestMode: SuggestMode;
  readonly lowercaseTerms: boolean;
}

const TERM_OPTIONS = new Set([
  'field', 'analyzer', 'size', 'shard_size', 'sort', 'suggest_mode', 'accuracy', 'max_edits', 'max_inspections', 'max_term_freq',
  'prefix_length', 'min_word_length', 'min_doc_freq', 'string_distance', 'lowercase_terms',
]);

function number(v: unknown, name: string, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || Number.isNaN(n)) throw errors.parsing(`[${name}] must be a number, got [${JSON.stringify(v)}]`);
  return n;
}

function termSuggestion(name: string, text: string, o: Record<string, unknown>): TermSuggestion {
  for (const k of Object.keys(o)) if (!TERM_OPTIONS.has(k)) throw errors.parsing(`suggester[term] doesn't support field [${k}]`);
  if (typeof o.field !== 'string') throw errors.parse('the required field option [field] is missing');
  // Only the field's own analyzer, and only the distance Lucene's fuzzy enumeration computes.
  if (o.analyzer !== undefined && o.analyzer !== 'standard') throw errors.parsing(`suggester[term] doesn't support field [analyzer]`);
  if (o.string_distance !== undefined && String(o.string_distance).toLowerCase() !== 'internal') {
    throw errors.illegalArgument(`string_distance [${String(o.string_distance)}] is not supported by this server`);
  }
  const mode = String(o.suggest_mode ?? 'missing').toLowerCase();
  if (mode !== 'missing' && mode !== 'popular' && mode !== 'always') throw errors.illegalArgument(`Illegal suggest mode ${String(o.suggest_mode).toUpperCase()}`);
  const sort = String(o.sort ?? 'score').toLowerCase();
  if (sort !== 'score' && sort !== 'frequency') throw errors.illegalArgument(`Illegal suggest sort ${String(o.sort)}`);
  const size = number(o.size, 'size', 5);
  if (size <= 0) throw errors.illegalArgument('size must be positive');
  const maxEdits = number(o.max_edits, 'max_edits', 2);
  if (maxEdits < 1 || maxEdits > 2) throw errors.illegalArgument(`Illegal max_edits value ${maxEdits}`);
  return {
    kind: 'term', name, text, field: o.field, size, shardSize: number(o.shard_size, 'shard_size', Math.max(size, 5)), sort, suggestMode: mode,
    accuracy: number(o.accuracy, 'accuracy', 0.5), maxEdits, maxInspections: number(o.max_inspections, 'max_inspections', 5),
    maxTermFreq: number(o.max_term_freq, 'max_term_freq', 0.01), prefixLength: number(o.prefix_length, 'prefix_length', 1),
    minWordLength: number(o.min_word_length, 'min_word_length', 4), minDocFreq: number(o.min_doc_freq, 'min_doc_freq', 0),
    lowercaseTerms: o.lowercase_terms === true || o.lowercase_terms === 'true',
  };
}

/** A suggestion of the `suggest` section. */
export type Suggestion = TermSuggestion | PhraseSuggestion;

/** The `suggest` section, with ES's errors for what it does not know and this server's refusal of what it does not run. */
export function parseSuggest(raw: unknown): Suggestion[] {
  if (!isJsonObject(raw)) throw errors.parsing('suggest must be an object');
  const global = raw.text;
  const out: Suggestion[] = [];
  for (const [name, body] of Object.entries(raw)) {
    if (name === 'text') continue;
    if (!isJsonObject(body)) throw errors.parsing(`suggestion [${name}] must be an object`);
    const text = body.text ?? global;
    let found = false;
    for (const [key, value] of Object.entries(body)) {
      if (key === 'text') continue;
      if (key === 'prefix' || key === 'regex') throw errors.illegalArgument(`suggester option [${key}] is not supported by this server`);
      if (key === 'phrase') {
        if (!isJsonObject(value)) throw errors.parsing(`suggester [phrase] must be an object`);
        out.push(phraseSuggestion(name, text === undefined || text === null ? undefined : String(text), value));
        found = true;
        continue;
      }
      if (key === 'completion' && isJsonObject(value) && typeof value.field === 'string') {
        out.push({ ...termSuggestion(name, String(text ?? ''), { field: value.field }), kind: 'completion' });
        found = true;
        continue;
      }
      if (key !== 'term') throw new SearchError(400, { type: 'named_object_not_found_exception', reason: `[1:1] unknown field [${key}]` });
      if (!isJsonObject(value)) throw errors.parsing(`suggester [term] must be an object`);
      if (text === undefined || text === null) throw errors.illegalArgument(`The required text option is missing`);
      out.push(termSuggestion(name, String(text), value));
      found = true;
    }
    if (!found) throw errors.illegalArgument(`suggestion [${name}] names no suggester`);
  }
  return out;
}
