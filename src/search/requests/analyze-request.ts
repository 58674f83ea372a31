import { errors } from '../errors.js';
import { analyzeWith, ANALYZERS, type AnalyzedToken, type AnalyzerName } from '../index/analysis.js';
import { analyzeChain, type TokenChain } from '../index/token-chain.js';
import { MAX_SHINGLE_DIFF, tokenChainOf } from './token-chain-request.js';
import type { Mappings } from '../mapping/mapping.js';
import { didYouMean } from '../syntax/did-you-mean.js';
import { jsonToken, objectMembers, textLocation, type JsonToken } from '../syntax/json-members.js';

/**
 * `_analyze` as ES 8's AnalyzeAction reads and answers it: the body (`text` as a string or an
 * array, `analyzer`, `field`, or a chain of `tokenizer` and `filter`s, token-chain.ts) and the tokens, with Lucene's offsets and positions across the texts
 * of an array (each later text starts one offset past the previous one's end and, for a text
 * field, 100 positions later: its position_increment_gap).
 */

export interface AnalyzeRequest {
  readonly texts: readonly string[];
  readonly analyzer: string | undefined;
  readonly field: string | undefined;
  /** A `tokenizer` with `filter`s (or `filter`s alone: a normalizer), as written: built (and checked) once the index is known. */
  readonly chain?: { readonly tokenizer: unknown; readonly filters: readonly unknown[] } | undefined;
}

const PARSER = 'analyze_request';

/** The fields of ES's parser and the tokens each takes. */
const FIELDS: ReadonlyMap<string, readonly JsonToken[]> = new Map([
  ['text', ['VALUE_STRING', 'START_ARRAY']],
  ['analyzer', ['VALUE_STRING']],
  ['field', ['VALUE_STRING']],
  ['tokenizer', ['VALUE_STRING', 'START_OBJECT']],
  ['filter', ['START_ARRAY']],
  ['char_filter', ['START_ARRAY']],
  ['token_filter', ['START_ARRAY']],
  ['normalizer', ['VALUE_STRING']],
  ['explain', ['VALUE_BOOLEAN', 'VALUE_STRING']],
  ['attributes', ['START_ARRAY']],
]);

/** Keys ES acts on that Portico does not (character filters, normalizers by name, explain): refused, never ignored. */
const NOT_DONE = new Set(['char_filter', 'token_filter', 'normalizer', 'attributes']);

/** Reads an `_analyze` body (`text` is its JSON text, for error locations). */
export function parseAnalyzeRequest(text: string, body: unknown): AnalyzeRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw errors.xContentParse(1, 1, `[${PARSER}] Expected START_OBJECT but was: ${jsonToken(body)}`);
  }
  for (const m of objectMembers(text)) {
    const value = (body as Record<string, unknown>)[m.key];
    const accepts = FIELDS.get(m.key);
    const at = (offset: number) => textLocation(text, offset);
    if (accepts === undefined) {
      const { line, col } = at(m.keyAt);
      throw errors.xContentParse(line, col, `[${PARSER}] unknown field [${m.key}]${didYouMean(m.key, FIELDS.keys())}`);
    }
    if (!accepts.includes(jsonToken(value)) || (m.key === 'text' && Array.isArray(value) && value.some((v) => typeof v !== 'string'))) {
      const { line, col } = at(m.valueAt);
      throw errors.xContentParse(line, col, `[${PARSER}] ${m.key} doesn't support values of type: ${jsonToken(value)}`);
    }
    if (m.key === 'explain' && value !== true && value !== false && value !== 'true' && value !== 'false') {
      const { line, col } = at(m.valueAt);
      throw errors.fieldParse(line, col, PARSER, m.key, errors.notBoolean(String(value)).cause_);
    }
  }
  const b = body as Record<string, unknown>;
  const texts = b.text === undefined ? [] : Array.isArray(b.text) ? (b.text as string[]) : [b.text as string];
  if (b.text === undefined || texts.length === 0) throw errors.actionValidation(['text is missing']);
  const analyzer = b.analyzer as string | undefined;
  const extra = ['tokenizer', 'filter', 'char_filter', 'token_filter'].filter((k) => b[k] !== undefined);
  if (analyzer !== undefined && extra.length > 0) throw errors.actionValidation(['cannot define extra components on a named analyzer']);
  for (const k of Object.keys(b)) if (NOT_DONE.has(k)) throw errors.contextUnsupported(`[${k}] in _analyze`);
  if (b.explain === true || b.explain === 'true') throw errors.contextUnsupported('[explain] in _analyze');
  const chain = b.tokenizer === undefined && b.filter === undefined ? undefined : { tokenizer: b.tokenizer, filters: (b.filter as unknown[] | undefined) ?? [] };
  return { texts, analyzer, field: b.field as string | undefined, chain };
}

/** Lucene's position_increment_gap of the analyzer `_analyze` runs: 100 for a text field's, 0 for a global one's. */
interface Chosen {
  readonly analyzer: AnalyzerName;
  readonly positionGap: number;
}

/**
 * The analyzer a request names: `analyzer` (a built-in one), else the field's (a text field is
 * indexed with `standard`, a keyword field with `keyword`), else `standard`. `mappings` is the
 * index's when the path names one.
 */
function chooseAnalyzer(req: AnalyzeRequest, mappings: Mappings | undefined): Chosen {
  if (req.analyzer !== undefined) {
    if (!(ANALYZERS as readonly string[]).includes(req.analyzer)) {
      throw errors.illegalArgument(mappings === undefined ? `failed to find global analyzer [${req.analyzer}]` : `failed to find analyzer [${req.analyzer}]`);
    }
    return { analyzer: req.analyzer as AnalyzerName, positionGap: 0 };
  }
  if (req.field !== undefined) {
    if (mappings === undefined) throw errors.illegalArgument('analysis based on a specific field requires an index');
    const def = mappings.field(req.field);
    if (def === undefined || def.kind === 'text') return { analyzer: 'standard', positionGap: def === undefined ? 0 : 100 };
    if (def.kind === 'keyword') return { analyzer: 'keyword', positionGap: 0 };
    throw errors.illegalArgument(`Can't process field [${req.field}], Analysis requests are only supported on tokenized fields`);
  }
  return { analyzer: 'standard', positionGap: 0 };
}

/** The tokens of `_analyze`, offsets and positions running on across the texts as ES's do. */
export function analyzeTexts(req: AnalyzeRequest, mappings: Mappings | undefined, maxShingleDiff = MAX_SHINGLE_DIFF): (AnalyzedToken & { positionLength?: number })[] {
  const chain: TokenChain | undefined = req.chain === undefined ? undefined : tokenChainOf(req.chain.tokenizer, req.chain.filters, maxShingleDiff);
  // A chain's position_increment_gap is a custom analyzer's, 100 (a normalizer's too).
  const { analyzer, positionGap } = chain === undefined ? chooseAnalyzer(req, mappings) : { analyzer: 'keyword' as const, positionGap: 100 };
  const out: (AnalyzedToken & { positionLength?: number })[] = [];
  let lastPosition = -1;
  let lastOffset = 0;
  for (const text of req.texts) {
    const at = (t: AnalyzedToken) => ({ ...t, start: lastOffset + t.start, end: lastOffset + t.end, position: lastPosition + 1 + t.position });
    if (chain !== undefined) {
      for (const { positionLength, ...t } of analyzeChain(chain, text)) out.push(positionLength === 1 ? at(t) : { ...at(t), positionLength });
    }
    else analyzeWith(analyzer, text, (t) => out.push(at(t)));
    const last = out[out.length - 1];
    if (last !== undefined) lastPosition = last.position;
    // Lucene's end(): the final offset is the text's length; each text then adds the offset gap (1).
    lastOffset += text.length + 1;
    lastPosition += positionGap;
  }
  return out;
}
