/**
 * Generated requests for typo tolerance and prefixes over the Debian sample: misspelled words
 * (one or two edits: insertions, deletions, substitutions, transpositions) in `fuzzy`, `match` and
 * `multi_match` with `fuzziness`; prefixes, wildcards and regular expressions made from the
 * corpus's words; `match_phrase_prefix` and `match_bool_prefix` on phrases cut from real summaries;
 * and the errors both servers must give. A fixed seed: each run sends the same requests.
 */
import { DEBIAN_WORDS, Rng } from './corpus.js';
import type { DiffRequest } from './requests.js';

type Q = Record<string, unknown>;

const TEXT = ['summary', 'description'];
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';

/** `word` with `edits` random edits (the kinds Lucene's automaton counts as one each). */
export function misspell(rng: Rng, word: string, edits: number): string {
  let w = word;
  for (let e = 0; e < edits; e++) {
    const i = rng.int(0, Math.max(0, w.length - 1));
    const kind = rng.int(0, 3);
    if (kind === 0) w = w.slice(0, i) + rng.pick([...ALPHABET]) + w.slice(i);
    else if (kind === 1 && w.length > 2) w = w.slice(0, i) + w.slice(i + 1);
    else if (kind === 2) w = w.slice(0, i) + rng.pick([...ALPHABET]) + w.slice(i + 1);
    else if (i + 1 < w.length) w = w.slice(0, i) + (w[i + 1] as string) + (w[i] as string) + w.slice(i + 2);
  }
  return w;
}

/** Words of the sample's summaries, for phrases and prefixes that exist. */
function summaryWords(docs: readonly [string, Record<string, unknown>][]): string[][] {
  return docs.map(([, d]) => String(d.summary ?? '').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0)).filter((ws) => ws.length >= 3);
}

function fuzzyOptions(rng: Rng, q: Q): Q {
  if (rng.chance(0.6)) q.fuzziness = rng.pick(['AUTO', 0, 1, 2, '1', 'AUTO:2,4', 'AUTO:4,7']);
  if (rng.chance(0.3)) q.prefix_length = rng.int(0, 2);
  if (rng.chance(0.3)) q.max_expansions = rng.pick([1, 2, 3, 10, 50]);
  if (rng.chance(0.2)) q[q.query === undefined ? 'transpositions' : 'fuzzy_transpositions'] = rng.chance(0.5);
  if (rng.chance(0.2)) q.boost = rng.pick([0.5, 2, 3.5]);
  return q;
}

function typo(rng: Rng): string {
  const w = rng.pick(DEBIAN_WORDS.filter((x) => x.length >= 3));
  return misspell(rng, w, rng.int(0, 2));
}

function pattern(rng: Rng, words: string[][]): { kind: string; query: Q } {
  const word = rng.pick(rng.pick(words));
  const field = rng.pick([...TEXT, 'package']);
  const cut = word.slice(0, rng.int(1, Math.max(1, word.length - 1)));
  switch (rng.int(0, 5)) {
    case 0:
      return { kind: 'prefix', query: { prefix: { [field]: rng.chance(0.5) ? cut : { value: cut, ...(rng.chance(0.3) ? { case_insensitive: true } : {}) } } } };
    case 1: {
      const chars = [...word].map((c) => (rng.chance(0.2) ? '?' : c));
      const value = `${chars.slice(0, rng.int(1, chars.length)).join('')}${rng.chance(0.7) ? '*' : ''}`;
      return { kind: 'wildcard', query: { wildcard: { [field]: { value: rng.chance(0.2) ? `*${value.slice(1)}` : value } } } };
    }
    case 2:
      return { kind: 'regexp', query: { regexp: { [field]: { value: `${cut}.*` } } } };
    case 3: {
      const a = rng.pick([...ALPHABET.slice(0, 20)]);
      const value = rng.pick([`[${a}-z]${word.slice(1, 3)}.*`, `${word.slice(0, 2)}(${word.slice(2, 3)}|x)?.{0,4}`, `${word.slice(0, 3)}[^aeiou]+`, `.*${word.slice(-3)}`]);
      return { kind: 'regexp', query: { regexp: { [field]: { value } } } };
    }
    case 4: {
      const value = rng.pick([`${cut}.*&.*s`, `${cut}~(.*s)`, `${cut}@`, `<1-20>`, `${cut}.*&~(.*e.*)`]);
      const flags = rng.pick(['(default)', 'ALL', 'INTERSECTION|COMPLEMENT|ANYSTRING|INTERVAL', 'NONE']);
      return { kind: 'regexp-flags', query: { regexp: { [field]: { value, ...(flags === '(default)' ? {} : { flags }) } } } };
    }
    default:
      return { kind: 'fuzzy', query: { fuzzy: { [field]: fuzzyOptions(rng, { value: field === 'package' ? misspell(rng, word, 1) : typo(rng) }) } } };
  }
}

function phraseQuery(rng: Rng, words: string[][]): { kind: string; query: Q } {
  const ws = rng.pick(words);
  const start = rng.int(0, ws.length - 2);
  const len = rng.int(1, Math.min(3, ws.length - start));
  const picked = ws.slice(start, start + len);
  const last = picked[picked.length - 1] as string;
  picked[picked.length - 1] = last.slice(0, rng.int(1, last.length));
  const text = picked.join(' ');
  if (rng.chance(0.5)) {
    const o: Q = { query: text };
    if (rng.chance(0.3)) o.slop = rng.int(1, 3);
    if (rng.chance(0.3)) o.max_expansions = rng.pick([1, 3, 10]);
    return { kind: 'match_phrase_prefix', query: { match_phrase_prefix: { summary: o } } };
  }
  const o: Q = { query: rng.chance(0.3) ? `${typo(rng)} ${text}` : text };
  if (rng.chance(0.3)) o.operator = 'and';
  if (rng.chance(0.2)) o.minimum_should_match = rng.pick(['50%', 2]);
  if (rng.chance(0.3)) o.fuzziness = 'AUTO';
  return { kind: 'match_bool_prefix', query: { match_bool_prefix: { [rng.pick(TEXT)]: o } } };
}

function matchQuery(rng: Rng): { kind: string; query: Q } {
  const text = Array.from({ length: rng.int(1, 3) }, () => typo(rng)).join(' ');
  if (rng.chance(0.5)) {
    const o = fuzzyOptions(rng, { query: text });
    o.fuzziness ??= 'AUTO';
    if (rng.chance(0.3)) o.operator = 'and';
    return { kind: 'match-fuzzy', query: { match: { [rng.pick(TEXT)]: o } } };
  }
  const type = rng.pick(['best_fields', 'most_fields', 'bool_prefix', 'phrase_prefix']);
  const q: Q = { query: text, fields: rng.pick([['summary', 'description'], ['summary^2', 'description', 'package'], ['summary']]), type };
  if (type !== 'phrase_prefix') q.fuzziness = rng.pick(['AUTO', 1, 2]);
  if (rng.chance(0.4)) q.tie_breaker = rng.pick([0, 0.3, 1]);
  if (rng.chance(0.2)) q.operator = 'and';
  return { kind: `multi_match-${type}`, query: { multi_match: q } };
}

/** A `suggest` body: the term suggester over misspelled and correct words, with its options. */
function suggestBody(rng: Rng): Q {
  const text = Array.from({ length: rng.int(1, 4) }, () => (rng.chance(0.7) ? typo(rng) : rng.pick(DEBIAN_WORDS))).join(' ');
  const term: Q = { field: rng.pick([...TEXT, 'package', 'summary']) };
  if (rng.chance(0.3)) term.suggest_mode = rng.pick(['missing', 'popular', 'always']);
  if (rng.chance(0.3)) term.sort = rng.pick(['score', 'frequency']);
  if (rng.chance(0.3)) term.size = rng.pick([1, 3, 10]);
  if (rng.chance(0.2)) term.max_edits = rng.pick([1, 2]);
  if (rng.chance(0.2)) term.prefix_length = rng.pick([0, 2]);
  if (rng.chance(0.2)) term.min_word_length = rng.pick([2, 6]);
  if (rng.chance(0.1)) term.accuracy = rng.pick([0.3, 0.8]);
  return rng.chance(0.2) ? { text, s: { term } } : { s: { text, term } };
}

const ERRORS: Q[] = [
  { fuzzy: { summary: { value: 'pyton', fuzziness: 'abc' } } },
  { fuzzy: { summary: { value: 'pyton', max_expansions: 0 } } },
  { fuzzy: { summary: { value: 'pyton', prefix_length: -1 } } },
  { fuzzy: { installed_size: { value: '12' } } },
  { match: { summary: { query: 'pyton', fuzziness: 'AUTO:2,x' } } },
  { match: { summary: { query: 'pyton', fuzziness: 'AUTO:5,2' } } },
  { regexp: { summary: { value: 'pyth[on' } } },
  { regexp: { summary: { value: 'a{2,1}' } } },
  { regexp: { summary: { value: '(ab' } } },
  { regexp: { summary: { value: 'ab)' } } },
  { regexp: { summary: { value: 'py', flags: 'NOPE' } } },
  { match_phrase_prefix: { package: 'pyth' } },
  { multi_match: { query: 'pyton', fields: ['summary'], type: 'phrase_prefix', fuzziness: 1 } },
];

/**
 * simple_query_string texts with its operators as ES's flags=ALL reads them: `word*` prefixes
 * (also upper case, which text fields lower-case), `typo~N` fuzzy terms (`~` alone: 2 edits),
 * `"phrase"~N` slops, mixed with plain words, `-`, `|`, `+` and groups, over a few field lists
 * (none: every field, lenient) with the fuzzy options. Kinds `sqs-*`.
 */
export function simpleOperatorRequests(count: number, seed: number, docs: readonly [string, Record<string, unknown>][]): DiffRequest[] {
  const rng = new Rng(seed);
  const words = summaryWords(docs);
  const out: DiffRequest[] = [];
  while (out.length < count) {
    const line = rng.pick(words);
    const word = () => rng.pick(line);
    const part = (): { kind: string; text: string } => {
      switch (rng.int(0, 4)) {
        case 0: {
          const w = word();
          const cut = w.slice(0, rng.int(1, Math.max(1, w.length - 1)));
          return { kind: 'prefix', text: `${rng.chance(0.2) ? cut.toUpperCase() : cut}*` };
        }
        case 1:
          return { kind: 'fuzzy', text: `${rng.chance(0.5) ? misspell(rng, word(), rng.int(1, 2)) : typo(rng)}~${rng.pick(['', '0', '1', '2'])}` };
        case 2: {
          const at = rng.int(0, Math.max(0, line.length - 3));
          const phrase = line.slice(at, at + rng.int(2, 3)).join(' ');
          return { kind: 'phrase', text: `"${phrase}"${rng.chance(0.7) ? `~${rng.int(0, 3)}` : ''}` };
        }
        case 3:
          return { kind: 'negated', text: `-${word()}` };
        default:
          return { kind: 'word', text: word() };
      }
    };
    const parts = Array.from({ length: rng.int(1, 3) }, part);
    const joiner = rng.pick([' ', ' ', ' | ', ' + ']);
    const text = parts.length === 3 && rng.chance(0.3) ? `${parts[0]?.text}${joiner}(${parts[1]?.text} ${parts[2]?.text})` : parts.map((x) => x.text).join(joiner);
    const q: Q = { query: text };
    const fields = rng.pick([['summary', 'description'], ['summary^2', 'package'], ['description'], 'every field']);
    if (Array.isArray(fields)) q.fields = fields;
    if (rng.chance(0.3)) q.default_operator = 'and';
    if (rng.chance(0.2)) q.fuzzy_prefix_length = rng.int(0, 2);
    if (rng.chance(0.15)) q.fuzzy_max_expansions = rng.pick([1, 5]);
    if (rng.chance(0.15)) q.fuzzy_transpositions = false;
    if (rng.chance(0.2)) q.lenient = true;
    const kinds = new Set(parts.map((x) => x.kind).filter((k) => k === 'prefix' || k === 'fuzzy'));
    out.push({ index: 'debian', body: { query: { simple_query_string: q }, size: rng.pick([10, 20]) }, kind: `sqs-${kinds.size === 0 ? 'other' : [...kinds].sort().join('+')}` });
  }
  return out;
}

/** `count` requests over the `debian` index built from `docs`. */
export function multiTermRequests(count: number, seed: number, docs: readonly [string, Record<string, unknown>][]): DiffRequest[] {
  const rng = new Rng(seed);
  const words = summaryWords(docs);
  const out: DiffRequest[] = ERRORS.map((query) => ({ index: 'debian', body: { query }, kind: 'error' }));
  for (const suggest of [{ s: { text: 'pyton', completion: { field: 'summary' } } }, { s: { text: 'pyton', term: { field: 'summary', nope: 1 } } }, { s: { text: 'pyton', term: {} } }, { s: { text: 'pyton', term: { field: 'nofield' } } }]) {
    out.push({ index: 'debian', body: { size: 0, suggest }, kind: 'error' });
  }
  while (out.length < count) {
    if (rng.chance(0.15)) {
      out.push({ index: 'debian', body: { size: 0, suggest: suggestBody(rng) }, kind: 'suggest' });
      continue;
    }
    const r = rng.int(0, 2);
    const { kind, query } = r === 0 ? pattern(rng, words) : r === 1 ? phraseQuery(rng, words) : matchQuery(rng);
    const body: Q = { query, size: rng.pick([10, 10, 20, 50]) };
    if (rng.chance(0.15)) body.from = rng.pick([5, 20]);
    out.push({ index: 'debian', body, kind });
  }
  return out;
}

/** How two answers' `suggest` sections differ (texts, offsets, options with their scores and frequencies), or undefined. */
export function suggestDifference(portico: { body: any }, reference: { body: any }): string | undefined { // eslint-disable-line @typescript-eslint/no-explicit-any -- ES answers, read loosely
  const a = JSON.stringify(portico.body?.suggest);
  const b = JSON.stringify(reference.body?.suggest);
  return a === b ? undefined : `suggest ${a?.slice(0, 400)} vs ${b?.slice(0, 400)}`;
}
