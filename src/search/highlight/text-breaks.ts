/**
 * The text boundaries the highlighters cut fragments at, as the JDK's BreakIterators that
 * Elasticsearch's unified highlighter uses find them:
 * - sentences end after `.`, `?` or `!` (and closing quotes or brackets) and the whitespace that
 *   follows (see `ends`: `e.g. this` goes on); a line break alone does not end one; a field's
 *   values (joined by U+0000) and paragraph separators always do;
 * - words: a run of letters, digits and joining marks is one segment, any other character one of
 *   its own.
 * Offsets are UTF-16 units, as Java's.
 */

/** Joins a multi-valued field's values, as ES's highlighter does (MULTIVAL_SEP_CHAR). */
export const VALUE_SEPARATOR = '\u0000';

const RE_LOWER = /\p{Ll}/u;
const RE_DIGIT = /\p{Nd}/u;
const CLOSING = new Set(['"', "'", ')', ']', '}', '\u2019', '\u201d', '»']);

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\u000b' || c === '\u00a0' || c === '\u3000';
}

/**
 * Whether a sentence ends after terminator `c` followed by `spaces` whitespace characters and then
 * `next`: always after `?` and `!`; after `.` when two or more spaces follow, or one and then
 * something that does not carry the sentence on (a lower-case letter, a digit, `,`, `;`, `:`).
 */
function ends(c: string, spaces: number, next: string): boolean {
  if (c !== '.') return true;
  if (spaces === 0) return false;
  return spaces >= 2 || !(RE_LOWER.test(next) || RE_DIGIT.test(next) || next === ',' || next === ';' || next === ':');
}

/** Every sentence boundary of `text`, ascending, with 0 and text.length. */
export function sentenceBoundaries(text: string): number[] {
  const out = [0];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text[i] as string;
    if (c === VALUE_SEPARATOR || c === '\u2029') {
      // The separator ends the value's last sentence; the next value starts after it.
      if (out[out.length - 1] !== i + 1) out.push(i + 1);
      i++;
      continue;
    }
    if (c !== '.' && c !== '?' && c !== '!') {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && (text[j] === '.' || text[j] === '?' || text[j] === '!' || CLOSING.has(text[j] as string))) j++;
    let k = j;
    while (k < n && isSpace(text[k])) k++;
    if (k < n && ends(c, k - j, text[k] as string) && out[out.length - 1] !== k) out.push(k);
    i = Math.max(k, i + 1);
  }
  if (out[out.length - 1] !== n) out.push(n);
  return out;
}

const RE_LET = /[\p{L}\p{Mc}\p{Mn}]/u;
const RE_DGT = /\p{N}/u;
const MID_WORD = new Set(['-', '\u00ad', '\u2010', '\u2011', '\u2027', '"', "'", '.', '\u2019']);
const MID_NUM = new Set(['"', "'", ',', '.', '\u066b']);

/**
 * Every word boundary of `text`, ascending, with 0 and text.length: a word is letters and digits,
 * letter runs joined by one hyphen, apostrophe, quote or period between letters (`UNIX-like`,
 * `application's`), digit runs by one comma, period or quote between digits (`1,000.5`); a run
 * of whitespace is one segment, any other character one of its own.
 */
export function wordBoundaries(text: string): number[] {
  const out = [0];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text[i] as string;
    if (RE_LET.test(c) || RE_DGT.test(c)) {
      while (i < n) {
        const d = text[i] as string;
        if (RE_LET.test(d) || RE_DGT.test(d)) {
          i++;
          continue;
        }
        const prev = text[i - 1] as string;
        const next = text[i + 1];
        const joinsLetters = MID_WORD.has(d) && RE_LET.test(prev) && next !== undefined && RE_LET.test(next);
        const joinsDigits = MID_NUM.has(d) && RE_DGT.test(prev) && next !== undefined && RE_DGT.test(next);
        if (!joinsLetters && !joinsDigits) break;
        i++;
      }
    } else if (/\s/.test(c)) {
      while (i < n && /\s/.test(text[i] as string)) i++;
    } else i++;
    out.push(i);
  }
  return out;
}

/** A BreakIterator's `preceding` and `following` over sorted boundaries. */
export class Boundaries {
  constructor(private readonly at: readonly number[]) {}

  /** The last boundary before `offset` (0 when there is none). */
  preceding(offset: number): number {
    let lo = 0;
    let hi = this.at.length - 1;
    let best = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.at[mid] as number;
      if (v < offset) {
        best = v;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best;
  }

  /** The first boundary after `offset` (the text's end when there is none). */
  following(offset: number): number {
    let lo = 0;
    let hi = this.at.length - 1;
    let best = this.at[this.at.length - 1] as number;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.at[mid] as number;
      if (v > offset) {
        best = v;
        hi = mid - 1;
      } else lo = mid + 1;
    }
    return best;
  }
}

/**
 * BoundedSentences over each value of a multi-valued field on its own (values joined by
 * VALUE_SEPARATOR), as ES's splitting break iterator hands each value to it: no passage crosses
 * from one value into the next.
 */
export class BoundedValueSentences {
  private current: { start: number; scanner: BoundedSentences } | undefined;
  private end = 0;

  constructor(private readonly content: string, private readonly maxLen: number) {}

  preceding(offset: number): number {
    const sep = this.content.lastIndexOf(VALUE_SEPARATOR, offset - 1);
    const start = sep + 1;
    if (this.current?.start !== start) {
      const next = this.content.indexOf(VALUE_SEPARATOR, start);
      this.current = { start, scanner: new BoundedSentences(this.content.slice(start, next === -1 ? this.content.length : next), this.maxLen) };
    }
    const at = this.current.scanner.preceding(offset - start) + start;
    this.end = this.current.scanner.following() + start;
    return at;
  }

  following(): number {
    return this.end;
  }
}

/**
 * Passages of sentences bounded to `maxLen` characters, as ES's bounded sentence scanner cuts
 * them: a passage starts at the sentence holding its first match and takes the sentences that fit
 * in `maxLen`; a sentence longer than that is cut at word boundaries around the match. `preceding`
 * must be called with rising offsets, each followed by `following` (the UnifiedHighlighter's use).
 */
export class BoundedSentences {
  private windowStart = -1;
  private windowEnd = -1;
  private innerStart = -1;
  private innerEnd = 0;
  private readonly sentences: Boundaries;
  private readonly words: Boundaries;

  constructor(private readonly text: string, private readonly maxLen: number) {
    this.sentences = new Boundaries(sentenceBoundaries(text));
    this.words = new Boundaries(wordBoundaries(text));
  }

  preceding(offset: number): number {
    if (offset > this.windowStart && offset < this.windowEnd) {
      this.innerStart = this.innerEnd;
      this.innerEnd = this.windowEnd;
    } else {
      this.innerStart = Math.max(this.sentences.preceding(offset), 0);
      const targetEnd = offset + Math.max(0, this.maxLen - (offset - this.innerStart));
      this.innerEnd = targetEnd + 1 > this.text.length ? this.text.length : this.sentences.preceding(targetEnd + 1);
      // No sentence ends within maxLen: the one that goes past it is cut below.
      if (this.innerStart === this.innerEnd) this.innerEnd = this.sentences.following(targetEnd);
      this.windowStart = this.innerStart;
      this.windowEnd = this.innerEnd;
    }
    if (this.innerEnd - this.innerStart > this.maxLen) {
      if (offset - this.maxLen > this.innerStart) this.innerStart = Math.max(this.innerStart, this.words.preceding(offset - this.maxLen));
      const remaining = Math.max(0, this.maxLen - (offset - this.innerStart));
      if (offset + remaining < this.windowEnd) this.innerEnd = Math.min(this.windowEnd, this.words.following(offset + remaining));
    }
    return this.innerStart;
  }

  following(): number {
    return this.innerEnd;
  }
}
