import { scanTokens } from './analyzer.js';
import { analyzeWith, standardType, type AnalyzedToken } from './analysis.js';

/**
 * Analysis chains built of parts (what ES calls a custom analyzer, and `_analyze` with a
 * `tokenizer` and `filter`s): a tokenizer, then token filters in order. The parts Portico has:
 * the `standard`, `whitespace`, `letter` and `keyword` tokenizers (as they cut text, before any
 * lowercasing), and the `lowercase` and `shingle` filters, as Lucene defines them.
 */

export type TokenizerName = 'standard' | 'whitespace' | 'letter' | 'keyword';

export const TOKENIZERS: readonly TokenizerName[] = ['standard', 'whitespace', 'letter', 'keyword'];

/** Lucene's ShingleFilter settings (ES's `shingle` token filter). */
export interface ShingleSettings {
  readonly minShingleSize: number;
  readonly maxShingleSize: number;
  readonly outputUnigrams: boolean;
  readonly outputUnigramsIfNoShingles: boolean;
  readonly tokenSeparator: string;
}

export type TokenFilter = { readonly kind: 'lowercase' } | ({ readonly kind: 'shingle' } & ShingleSettings);

export interface TokenChain {
  readonly tokenizer: TokenizerName;
  readonly filters: readonly TokenFilter[];
}

/** A token of a chain: `positionLength` is the number of positions a shingle spans (1 for a word). */
export interface ChainToken extends AnalyzedToken {
  readonly positionLength: number;
}

/** The tokens the tokenizer cuts `text` into, as written (the standard and letter tokenizers do not lowercase). */
function tokenize(tokenizer: TokenizerName, text: string): ChainToken[] {
  const out: ChainToken[] = [];
  if (tokenizer === 'standard') {
    let position = 0;
    // scanTokens reports the token's offsets in the text (it lowercases what it reads; the tokenizer
    // does not). U+0130 is the one letter whose lowercase is longer (it would lose the offsets): it
    // is read as the `I` of the same word-break class.
    scanTokens(text.replace(/\u0130/g, 'I'), (_src, start, end) => {
      const token = text.slice(start, end);
      out.push({ token, start, end, type: standardType(token), position: position++, positionLength: 1 });
    });
    return out;
  }
  // The letter tokenizer is the simple analyzer without its lowercasing.
  analyzeWith(tokenizer === 'letter' ? 'simple' : tokenizer, text, (t) => out.push({ ...t, token: text.slice(t.start, t.end), positionLength: 1 }));
  return out;
}

/** Java's Character.toLowerCase on each code point (LowerCaseFilter): no context (a final sigma stays σ), U+0130 gives `i`. */
export function lowercase(s: string): string {
  let out = '';
  for (const ch of s) out += ch === '\u0130' ? 'i' : ch.toLowerCase();
  return out;
}

/**
 * Lucene's ShingleFilter over one text's tokens (consecutive positions: Portico's tokenizers
 * leave no gaps, so no filler tokens): at each position the word (with `output_unigrams`), then
 * the shingles of `min_shingle_size` to `max_shingle_size` words starting there, joined by
 * `token_separator`, typed `shingle`, from the first word's start offset to the last one's end.
 * Without unigrams each position's first shingle takes the position and all span one position;
 * with them a shingle spans its words. `output_unigrams_if_no_shingles` outputs the words of a
 * text too short for any shingle.
 */
export function shingle(tokens: readonly ChainToken[], s: ShingleSettings): ChainToken[] {
  const out: ChainToken[] = [];
  // Each token of the input takes the next position, whatever its own increment (a shingle of a
  // shingle filter's output included), as Lucene's filter reads its input window.
  for (let i = 0; i < tokens.length; i++) {
    const first = tokens[i] as ChainToken;
    if (s.outputUnigrams) out.push({ ...first, position: i, positionLength: 1 });
    let text = first.token;
    for (let n = 2; n <= s.maxShingleSize && i + n - 1 < tokens.length; n++) {
      const last = tokens[i + n - 1] as ChainToken;
      text += s.tokenSeparator + last.token;
      if (n < s.minShingleSize) continue;
      // Without unigrams, a shingle spans the positions the smaller shingles start at.
      const positionLength = s.outputUnigrams ? n : Math.max(1, n - s.minShingleSize + 1);
      out.push({ token: text, start: first.start, end: last.end, type: 'shingle', position: i, positionLength });
    }
  }
  if (!s.outputUnigrams && out.length === 0 && s.outputUnigramsIfNoShingles) return tokens.map((t, i) => ({ ...t, position: i, positionLength: 1 }));
  return out;
}

/** The tokens `chain` makes of `text`, positions from 0. */
export function analyzeChain(chain: TokenChain, text: string): ChainToken[] {
  let tokens = tokenize(chain.tokenizer, text);
  for (const f of chain.filters) {
    tokens = f.kind === 'lowercase' ? tokens.map((t) => ({ ...t, token: lowercase(t.token) })) : shingle(tokens, f);
  }
  return tokens;
}
