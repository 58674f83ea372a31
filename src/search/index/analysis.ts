import { scanTokens, tokenText } from './analyzer.js';

/**
 * The token streams of ES's built-in analyzers that `_analyze` and the highlighter read: each
 * token with its text, its offsets in the analysed text (UTF-16 units, as Lucene's), its position
 * and its type. `standard` is the analyzer every text field is indexed with (analyzer.ts, the same
 * tokens); `simple` (runs of letters, lower-cased), `whitespace` (runs of non-whitespace, as
 * written) and `keyword` (the whole text) as Lucene defines them.
 */

export type AnalyzerName = 'standard' | 'simple' | 'whitespace' | 'keyword';

export const ANALYZERS: readonly AnalyzerName[] = ['standard', 'simple', 'whitespace', 'keyword'];

export interface AnalyzedToken {
  readonly token: string;
  readonly start: number;
  readonly end: number;
  readonly type: string;
  readonly position: number;
}

/** Lucene's CharTokenizer limit: a longer run is cut into tokens of 255 units. */
const MAX_WORD_LEN = 255;

const RE_HAN = /\p{Script=Han}/u;
const RE_HIRAGANA = /\p{Script=Hiragana}/u;
const RE_KATAKANA = /[\p{Script=Katakana}\u30fc\uff70]/u;
const RE_HANGUL = /\p{Script=Hangul}/u;
const RE_SEA = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}\p{Script=Tai_Tham}\p{Script=Tai_Viet}]/u;
const RE_EMOJI = /[\p{Extended_Pictographic}\p{Regional_Indicator}]/u;
const RE_LETTER = /[\p{Alphabetic}\p{Nl}]/u;

/** The type Lucene's StandardTokenizer gives a token, from the characters it is made of. */
export function standardType(token: string): string {
  if (RE_EMOJI.test(token) && !RE_LETTER.test(token)) return '<EMOJI>';
  if (RE_HAN.test(token)) return '<IDEOGRAPHIC>';
  if (RE_HIRAGANA.test(token)) return '<HIRAGANA>';
  if (RE_KATAKANA.test(token)) return '<KATAKANA>';
  if (RE_HANGUL.test(token)) return '<HANGUL>';
  if (RE_SEA.test(token)) return '<SOUTHEAST_ASIAN>';
  return RE_LETTER.test(token) ? '<ALPHANUM>' : '<NUM>';
}

/** Calls `emit` with each token `analyzer` makes of `text`, positions from 0. */
export function analyzeWith(analyzer: AnalyzerName, text: string, emit: (t: AnalyzedToken) => void): void {
  let position = 0;
  if (analyzer === 'standard') {
    scanTokens(text, (src, start, end) => {
      const token = tokenText(src, start, end);
      emit({ token, start, end, type: standardType(token), position: position++ });
    });
    return;
  }
  if (analyzer === 'keyword') {
    emit({ token: text, start: 0, end: text.length, type: 'word', position: 0 });
    return;
  }
  const inToken = analyzer === 'simple' ? isLetterAt : isNotWhitespaceAt;
  let i = 0;
  while (i < text.length) {
    if (!inToken(text, i)) {
      i += unitLength(text, i);
      continue;
    }
    const start = i;
    while (i < text.length && inToken(text, i) && i - start < MAX_WORD_LEN) i += unitLength(text, i);
    const raw = text.slice(start, i);
    emit({ token: analyzer === 'simple' ? raw.toLowerCase() : raw, start, end: i, type: 'word', position: position++ });
  }
}

function unitLength(text: string, i: number): number {
  const c = text.codePointAt(i) as number;
  return c > 0xffff ? 2 : 1;
}

const RE_LETTER_ONLY = /^\p{L}$/u;

/** Java's Character.isLetter on the code point at `i` (what LetterTokenizer keeps). */
function isLetterAt(text: string, i: number): boolean {
  return RE_LETTER_ONLY.test(String.fromCodePoint(text.codePointAt(i) as number));
}

/** Not Java's Character.isWhitespace: space separators other than no-break spaces, and the ASCII controls it names. */
function isNotWhitespaceAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) return false;
  if (c < 0x80 || c === 0xa0 || c === 0x2007 || c === 0x202f) return true;
  return !/[\p{Zs}\u2028\u2029]/u.test(text[i] as string);
}
