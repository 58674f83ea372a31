/**
 * The `standard` analyzer as Elasticsearch configures it: Lucene's StandardTokenizer (Unicode
 * UAX#29 word boundaries, max_token_length 255) followed by a lowercase filter, no stop words.
 *
 * Why not `Intl.Segmenter`: ICU segments CJK text with a dictionary into multi-character words,
 * whereas Lucene emits one token per ideograph and per hiragana character, and ICU is about ten
 * times slower than this loop on the ASCII text that dominates real corpora. The rules below are
 * the UAX#29 word-break rules (WB4-WB13b) over the word-break classes, with ASCII classified by a
 * table and everything else by Unicode property escapes.
 *
 * Token rules that matter in practice (checked against Lucene's documented behaviour):
 * - letters and digits join (`v1`, `2nd`); `_` joins alphanumerics (`foo_bar`);
 * - `.`, `'` and `:` join letters on both sides (`example.com`, `dog's`, `a:b`);
 * - `.`, `,`, `;` and `'` join digits on both sides (`3.14`, `1,000`);
 * - everything else separates: `john@example.com` gives `john`, `example.com`;
 *   `https://a.org/x` gives `https`, `a.org`, `x`;
 * - each Han ideograph and each hiragana character is its own token; katakana runs stay together;
 *   Thai, Lao, Myanmar and Khmer runs are one token each (Lucene's SOUTHEAST_ASIAN type);
 * - each emoji is a token, as in Lucene ≥ 8 (UTS #51): an Extended_Pictographic character (which
 *   includes `©`, `®` and `™`) with its modifiers and variation selectors, emoji joined by ZWJ, and
 *   a pair of regional indicators (a flag); other symbols are dropped.
 */

import { randomInt } from 'node:crypto';

/** Longest token; longer runs are split every 255 UTF-16 units, as Lucene does. */
export const MAX_TOKEN_LENGTH = 255;

// Word-break classes we distinguish.
// The three classes an ASCII token is made of come first (1-3: one unsigned compare in the byte
// loop), then the three middle classes (4-6).
const OTHER = 0;
const ALETTER = 1;
const NUMERIC = 2;
const EXTEND_NUM_LET = 3;
const MID_LETTER = 4; // joins letters only
const MID_NUM = 5; // joins digits only
const MID_NUM_LET = 6; // joins letters or digits (incl. apostrophe, treated as Single_Quote)
const EXTEND = 7; // combining marks, format chars, ZWJ: attach to what precedes (WB4)
const KATAKANA = 8;
const IDEOGRAPHIC = 9; // also hiragana: one token per character
const COMPLEX = 10; // Thai and friends: one token per run
const EMOJI = 11; // one token per emoji sequence

const ASCII = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) ASCII[c] = NUMERIC;
for (let c = 0x41; c <= 0x5a; c++) ASCII[c] = ALETTER;
for (let c = 0x61; c <= 0x7a; c++) ASCII[c] = ALETTER;
ASCII[0x3a] = MID_LETTER; // :
ASCII[0x2c] = MID_NUM; // ,
ASCII[0x3b] = MID_NUM; // ;
ASCII[0x2e] = MID_NUM_LET; // .
ASCII[0x27] = MID_NUM_LET; // '
ASCII[0x5f] = EXTEND_NUM_LET; // _

const RE_EXTEND = /^[\p{M}\p{Cf}\u200d]$/u;
const RE_IDEO = /^[\p{Script=Han}\p{Script=Hiragana}\u3005\u3007\u3021-\u3029\u3038-\u303b]$/u;
const RE_KATAKANA = /^[\p{Script=Katakana}\u30fc\uff70]$/u;
const RE_COMPLEX = /^[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}\p{Script=Tai_Tham}\p{Script=Tai_Viet}]$/u;
const RE_EMOJI = /^[\p{Extended_Pictographic}\p{Regional_Indicator}]$/u;
const RE_NUMERIC = /^\p{Nd}$/u;
const RE_LETTER = /^[\p{Alphabetic}\p{Nl}]$/u;
const MID_LETTER_SET = new Set([0xb7, 0x387, 0x5f4, 0x2027, 0xfe13, 0xfe55, 0xff1a]);
const MID_NUM_SET = new Set([0x37e, 0x589, 0x60c, 0x60d, 0x66c, 0x7f8, 0x2044, 0xfe10, 0xfe14, 0xfe50, 0xfe54, 0xff0c, 0xff1b]);
const MID_NUM_LET_SET = new Set([0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e]);
const RE_EXTEND_NUM_LET = /^[\p{Pc}\u202f]$/u;

const classCache = new Map<number, number>();

function classifyNonAscii(cp: number): number {
  const cached = classCache.get(cp);
  if (cached !== undefined) return cached;
  const ch = String.fromCodePoint(cp);
  let cls = OTHER;
  if (RE_EXTEND.test(ch)) cls = EXTEND;
  else if (MID_LETTER_SET.has(cp)) cls = MID_LETTER;
  else if (MID_NUM_SET.has(cp)) cls = MID_NUM;
  else if (MID_NUM_LET_SET.has(cp)) cls = MID_NUM_LET;
  else if (RE_EXTEND_NUM_LET.test(ch)) cls = EXTEND_NUM_LET;
  else if (RE_IDEO.test(ch)) cls = IDEOGRAPHIC;
  else if (RE_KATAKANA.test(ch)) cls = KATAKANA;
  else if (RE_COMPLEX.test(ch)) cls = COMPLEX;
  else if (RE_EMOJI.test(ch)) cls = EMOJI;
  else if (RE_NUMERIC.test(ch)) cls = NUMERIC;
  else if (RE_LETTER.test(ch)) cls = ALETTER;
  // The cache is bounded by the number of distinct code points seen; cap it anyway.
  if (classCache.size < 65536) classCache.set(cp, cls);
  return cls;
}

function isWordish(cls: number): boolean {
  return cls === ALETTER || cls === NUMERIC || cls === KATAKANA || cls === EXTEND_NUM_LET;
}

/**
 * Lowercases like Java's Character.toLowerCase per code point (JS's toLowerCase differs only for a
 * few special cases such as U+0130, which we map to a plain `i` as Java does).
 */
function lower(s: string): string {
  const l = s.toLowerCase();
  return l.includes('\u0307') && s.includes('\u0130') ? l.replace(/i\u0307/g, 'i') : l;
}

/**
 * Calls `emit` with each token of `text`, lowercased, in order. `emit` receives the token and its
 * position (0-based; the standard analyzer never leaves gaps).
 */
export function analyze(original: string, emit: (token: string, position: number) => void): number {
  let pos = 0;
  return scanTokens(original, (src, start, end) => emit(tokenText(src, start, end), pos++));
}

/** Lower case of ASCII letters by code unit (other units map to themselves). */
const LOWER = new Uint8Array(128);
for (let c = 0; c < 128; c++) LOWER[c] = c >= 0x41 && c <= 0x5a ? c + 32 : c;

/** The code unit of a token at src[i] (see scanTokens: ASCII letters may still be upper case). */
export function tokenUnit(src: string, i: number): number {
  const c = src.charCodeAt(i);
  return c < 128 ? (LOWER[c] as number) : c;
}

/** The text of the token src[start, end) as `scanTokens` reports it. */
export function tokenText(src: string, start: number, end: number): string {
  const t = src.slice(start, end);
  // Upper case ASCII only occurs in tokens of the ASCII path, which are ASCII throughout.
  return HAS_UPPER_ASCII.test(t) ? t.toLowerCase() : t;
}

const HAS_UPPER_ASCII = /[A-Z]/;

/**
 * The tokenizer's core: calls `emit(src, start, end, hash?)` for each token and returns the number
 * of tokens. The token is src[start, end) with ASCII letters lowercased (`tokenText`, `tokenUnit`):
 * ASCII text, the vast majority of field values, is scanned in place, without first making a
 * lowercased copy of the whole value, and `hash` is then hashRange of the token, computed during the
 * scan. At the first non-ASCII unit the scan restarts at the last token boundary with the general
 * loop over the lowercased value; the general loop keeps no state across a token boundary, so
 * this is the same as running it from the start.
 */
export function scanTokens(original: string, emitRange: (src: string, start: number, end: number, hash?: number) => void): number {
  // Function-local copies of the module's constants and tables (see scanAsciiBytes: V8 reads a
  // module-level `const` from the module context at every use).
  const ALETTER = 1;
  const NUMERIC = 2;
  const EXTEND_NUM_LET = 3;
  const MID_LETTER = 4;
  const MID_NUM = 5;
  const MID_NUM_LET = 6;
  const MAX_TOKEN_LENGTH = 255;
  const basis = HASH_BASIS;
  const key = HASH_KEY;
  const FNV_PRIME = 0x01000193;
  const asciiClass = ASCII;
  const lower = LOWER;
  const n = original.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    let c = original.charCodeAt(i);
    if (c >= 128) return count + scanGeneral(original, i, emitRange);
    let last = asciiClass[c] as number;
    if (last !== ALETTER && last !== NUMERIC && last !== EXTEND_NUM_LET) {
      i++;
      continue;
    }
    const start = i;
    let alnum = last !== EXTEND_NUM_LET;
    let h = Math.imul(basis ^ (lower[c] as number), FNV_PRIME);
    h ^= h >>> 15;
    i++;
    while (i < n) {
      c = original.charCodeAt(i);
      if (c >= 128) return count + scanGeneral(original, start, emitRange);
      const k = asciiClass[c] as number;
      if (k === ALETTER || k === NUMERIC || k === EXTEND_NUM_LET) {
        if (k !== EXTEND_NUM_LET) alnum = true;
        last = k;
        h = Math.imul(h ^ (lower[c] as number), FNV_PRIME);
        h ^= h >>> 15;
        i++;
        continue;
      }
      if ((k === MID_LETTER || k === MID_NUM || k === MID_NUM_LET) && i + 1 < n) {
        const c2 = original.charCodeAt(i + 1);
        if (c2 >= 128) return count + scanGeneral(original, start, emitRange);
        const next = asciiClass[c2];
        if ((last === ALETTER && next === ALETTER && k !== MID_NUM) || (last === NUMERIC && next === NUMERIC && k !== MID_LETTER)) {
          h = Math.imul(h ^ c, FNV_PRIME);
          h ^= h >>> 15;
          i++;
          continue;
        }
      }
      break;
    }
    if (!alnum) continue;
    if (i - start <= MAX_TOKEN_LENGTH) {
      // The finish of hashRange (see finishHash), inline.
      h ^= key;
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      emitRange(original, start, i, h | 0);
      count++;
    } else {
      for (let k = start; k < i; k += MAX_TOKEN_LENGTH) {
        emitRange(original, k, Math.min(i, k + MAX_TOKEN_LENGTH));
        count++;
      }
    }
  }
  return count;
}

const UTF8 = new TextEncoder();

/**
 * Copies `value` into `bytes` (which holds at least value.length bytes) when it is ASCII, and
 * returns its length; else returns -1 and the caller tokenizes the string (`scanTokens`).
 * `scanAsciiBytes` lowercases the bytes as it reads them.
 *
 * Why: V8 reads a string one `charCodeAt` at a time through a representation check of about 25
 * instructions per character; the native encoder copies ASCII in bulk. The value is not lowercased
 * first (String.prototype.toLowerCase): that made a second string of every value, about 500 bytes
 * per document of the Debian corpus for the garbage collector, where the scan lowercases the
 * letters it reads anyway.
 *
 * Same tokens as `scanTokens(value)`: for an ASCII value, lowercasing changes only A-Z, and
 * scanTokens' general loop tokenizes the lowercased text as scanAsciiBytes does (its ASCII fast
 * path agrees with the general loop). A value that is not ASCII goes to scanTokens, which also
 * handles the few non-ASCII characters that lowercase to ASCII (KELVIN SIGN → `k`).
 */
export function asciiBytes(value: string, bytes: Uint8Array): number {
  const n = value.length;
  const r = UTF8.encodeInto(value, bytes);
  // UTF-8 is as long as UTF-16 exactly when every character is ASCII.
  return r.read === n && r.written === n ? n : -1;
}

/**
 * The tokens of the ASCII text in `bytes[0, n)` (see asciiBytes), whose upper-case letters it
 * lowercases in place, written to `out` as triples (start, end, hashRange of the lowercased token) — `out` holds at least
 * 3 * ceil(n / 2) + 3 int32: tokens are separated, and a split run gives 255-byte pieces — and
 * counted in the return value. The same tokens as `scanTokens` gives for the text. A batch
 * rather than a callback per token keeps this loop small enough for V8 to keep its state in
 * registers.
 *
 * Why the classes are tested by byte ranges rather than read from a table, the middle
 * characters' neighbours read back from `bytes`, and the constants local: V8 (11.x) reloads a
 * typed array's map, length and data pointer at every iteration of a loop with a stack check,
 * and reads a module-level `const` from the module context, type-checked, at every use. With a
 * class table and module constants this loop ran about 55 instructions a byte (callgrind);
 * compares against literals leave about half of that.
 */
export function scanAsciiBytes(bytes: Uint8Array, n: number, out: Int32Array): number {
  const maxLength = 255; // MAX_TOKEN_LENGTH
  const basis = HASH_BASIS;
  const key = HASH_KEY;
  const fnvPrime = 0x01000193;
  let count = 0;
  let o = 0;
  let i = 0;
  while (i < n) {
    let c = bytes[i] as number;
    // A token starts with a letter, a digit or `_` (ALETTER, NUMERIC, EXTEND_NUM_LET). Upper-case
    // letters are lowercased in `bytes` as they are read (see asciiBytes): every letter is in a
    // token, so the tokens' bytes are all lowercase afterwards, as internBytes stores them.
    if ((c - 0x41) >>> 0 < 26) {
      c |= 0x20;
      bytes[i] = c;
    } else if (!((c - 0x61) >>> 0 < 26 || (c - 0x30) >>> 0 < 10 || c === 0x5f)) {
      i++;
      continue;
    }
    const start = i;
    let h = Math.imul(basis ^ c, fnvPrime);
    h ^= h >>> 15;
    i++;
    while (i < n) {
      c = bytes[i] as number;
      if ((c - 0x61) >>> 0 < 26 || (c - 0x30) >>> 0 < 10 || c === 0x5f) {
        h = Math.imul(h ^ c, fnvPrime);
        h ^= h >>> 15;
        i++;
        continue;
      }
      if ((c - 0x41) >>> 0 < 26) {
        c |= 0x20;
        bytes[i] = c;
        h = Math.imul(h ^ c, fnvPrime);
        h ^= h >>> 15;
        i++;
        continue;
      }
      // `.` and `'` join letters or digits, `:` letters, `,` and `;` digits (WB6/7, WB11/12), when
      // the character after is of the same kind as the one before: inside a token the byte before
      // is always a letter, digit or `_`, the class of the last character the rules look at.
      if ((c === 0x2e || c === 0x27 || c === 0x3a || c === 0x2c || c === 0x3b) && i + 1 < n) {
        const prev = bytes[i - 1] as number;
        const next = bytes[i + 1] as number;
        const letters = c !== 0x2c && c !== 0x3b && ((prev - 0x61) >>> 0 < 26 || (prev - 0x41) >>> 0 < 26) && ((next - 0x61) >>> 0 < 26 || (next - 0x41) >>> 0 < 26);
        if (letters || (c !== 0x3a && (prev - 0x30) >>> 0 < 10 && (next - 0x30) >>> 0 < 10)) {
          h = Math.imul(h ^ c, fnvPrime);
          h ^= h >>> 15;
          i++;
          continue;
        }
      }
      break;
    }
    // Middle characters join only letters or digits, so a token without one is all `_`: dropped.
    if (bytes[start] === 0x5f && onlyUnderscores(bytes, start, i)) continue;
    if (i - start <= maxLength) {
      // The finish of hashRange (see finishHash), inline: a call here cost more than the mix.
      h ^= key;
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      out[o] = start;
      out[o + 1] = i;
      out[o + 2] = h | 0;
      o += 3;
      count++;
    } else {
      for (let k = start; k < i; k += maxLength) {
        const end = Math.min(i, k + maxLength);
        out[o] = k;
        out[o + 1] = end;
        out[o + 2] = hashBytes(bytes, k, end);
        o += 3;
        count++;
      }
    }
  }
  return count;
}

function onlyUnderscores(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] !== 0x5f) return false;
  return true;
}

/** hashRange of a lowercased ASCII token held as bytes. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = HASH_BASIS;
  for (let i = start; i < end; i++) h = step(h, bytes[i] as number);
  return finishHash(h);
}

/**
 * The general loop (UAX#29 over word-break classes) from `from`, which must be a token boundary, to
 * the end of `original`; returns the number of tokens.
 */
// eslint-disable-next-line complexity -- the UAX#29 word-break loop, one branch per character class; a call per character here is measurable in the bulk rate
function scanGeneral(original: string, from: number, emitRange: (src: string, start: number, end: number, hash?: number) => void): number {
  // Lowercase once per field, not once per token; fall back to per-token lowercasing in the rare
  // case where lowercasing changes the length (U+0130). Lowercasing the whole value (not the rest
  // from `from`) keeps the context that final sigma depends on.
  const lowered = original.toLowerCase();
  const sameLength = lowered.length === original.length;
  const text = sameLength ? lowered : original;
  const emit = sameLength
    ? (start: number, end: number) => emitRange(text, start, end)
    : (start: number, end: number) => {
        const t = lower(text.slice(start, end));
        emitRange(t, 0, t.length);
      };
  const n = text.length;
  let pos = 0;
  let i = from;
  while (i < n) {
    let c = text.charCodeAt(i);
    let cls: number;
    let width = 1;
    if (c < 128) cls = ASCII[c] as number;
    else {
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
        c = text.codePointAt(i) as number;
        width = c > 0xffff ? 2 : 1;
      }
      cls = classifyNonAscii(c);
    }
    if (cls === IDEOGRAPHIC) {
      let end = i + width;
      while (end < n && classOfAt(text, end) === EXTEND) end += widthAt(text, end);
      emit(i, end);
      pos++;
      i = end;
      continue;
    }
    if (cls === EMOJI) {
      const end = emojiEnd(text, i, width, c);
      emit(i, end);
      pos++;
      i = end;
      continue;
    }
    if (cls === COMPLEX) {
      let end = i + width;
      while (end < n) {
        const k = classOfAt(text, end);
        if (k !== COMPLEX && k !== EXTEND) break;
        end += widthAt(text, end);
      }
      pos = emitSplit(i, end, pos, emit);
      i = end;
      continue;
    }
    if (!isWordish(cls)) {
      i += width;
      continue;
    }
    // A word: extend while the UAX#29 rules say "no break".
    const start = i;
    let last = cls; // class of the last non-Extend char in the word
    let hasAlnum = cls !== EXTEND_NUM_LET;
    i += width;
    while (i < n) {
      const k = classOfAt(text, i);
      const w = widthAt(text, i);
      if (k === EXTEND) {
        i += w;
        continue;
      }
      if (joins(last, k)) {
        last = k;
        if (k !== EXTEND_NUM_LET) hasAlnum = true;
        i += w;
        continue;
      }
      if (k === MID_LETTER || k === MID_NUM || k === MID_NUM_LET) {
        // WB6/7 and WB11/12: a single middle char between two letters or two digits.
        let j = i + w;
        while (j < n && classOfAt(text, j) === EXTEND) j += widthAt(text, j);
        if (j < n) {
          const next = classOfAt(text, j);
          const letterJoin = last === ALETTER && next === ALETTER && (k === MID_LETTER || k === MID_NUM_LET);
          const numJoin = last === NUMERIC && next === NUMERIC && (k === MID_NUM || k === MID_NUM_LET);
          if (letterJoin || numJoin) {
            i = j;
            continue;
          }
        }
      }
      break;
    }
    if (hasAlnum) pos = emitSplit(start, i, pos, emit);
  }
  return pos;
}

function emitSplit(start: number, end: number, pos: number, emit: (start: number, end: number) => void): number {
  if (end - start <= MAX_TOKEN_LENGTH) {
    emit(start, end);
    return pos + 1;
  }
  for (let k = start; k < end; k += MAX_TOKEN_LENGTH) {
    emit(k, Math.min(end, k + MAX_TOKEN_LENGTH));
    pos++;
  }
  return pos;
}

function joins(prev: number, next: number): boolean {
  switch (next) {
    case ALETTER:
      return prev === ALETTER || prev === NUMERIC || prev === EXTEND_NUM_LET; // WB5, WB10, WB13b
    case NUMERIC:
      return prev === ALETTER || prev === NUMERIC || prev === EXTEND_NUM_LET; // WB9, WB8, WB13b
    case KATAKANA:
      return prev === KATAKANA || prev === EXTEND_NUM_LET; // WB13, WB13b
    case EXTEND_NUM_LET:
      return prev === ALETTER || prev === NUMERIC || prev === KATAKANA || prev === EXTEND_NUM_LET; // WB13a
    default:
      return false;
  }
}

const ZWJ = 0x200d;
const isRegionalIndicator = (cp: number): boolean => cp >= 0x1f1e6 && cp <= 0x1f1ff;

/**
 * The end of the emoji sequence starting at `i` (its first code point `cp`, `width` units long):
 * its modifiers and variation selectors (Extend), further emoji joined by ZWJ, and the second
 * regional indicator of a flag.
 */
function emojiEnd(text: string, i: number, width: number, cp: number): number {
  const n = text.length;
  let end = i + width;
  if (isRegionalIndicator(cp) && end < n && isRegionalIndicator(text.codePointAt(end) as number)) end += widthAt(text, end);
  while (end < n && classOfAt(text, end) === EXTEND) {
    if (text.charCodeAt(end) === ZWJ && end + 1 < n && classOfAt(text, end + 1) === EMOJI) {
      end += 1 + widthAt(text, end + 1);
      continue;
    }
    end += widthAt(text, end);
  }
  return end;
}

function classOfAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 128) return ASCII[c] as number;
  return classifyNonAscii(c >= 0xd800 && c <= 0xdbff ? (text.codePointAt(i) as number) : c);
}

function widthAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
}

const FNV_PRIME = 0x01000193;

/*
 * The token hash: FNV-1a over the token's lowercased UTF-16 units from a secret starting state,
 * with one fold per unit (h ^= h >>> 15 after the multiplication), then a keyed finish (murmur3's
 * fmix32 of h ^ a second secret). Both secrets are drawn per process (per thread: a worker's module
 * has its own), so a hash is only meaningful to the thread that computed it: it must never cross a
 * thread or a restart (TermDictionary.restore rehashes the terms of a snapshot; the TermDictionary
 * is the one consumer of these hashes).
 *
 * Why keyed: the TermDictionary is an open-addressing table indexed by these hashes, and tokens
 * come from the outside (_bulk). With a public hash, tokens crafted to share the hash, or merely its
 * low bits (the slot, with linear probing), pile into one probe run, and every insert and lookup
 * walks it: indexing N such tokens costs O(N^2) (a reviewer's run did not finish in 10 minutes).
 *
 * Why each part:
 * - The fold. Plain FNV-1a never moves information downwards: XOR with a unit changes the low 16
 *   bits (7 for ASCII), and a multiplication's low bits depend only on its inputs' low bits. So the
 *   high bits of the starting state only add a constant that depends on the token's length (the
 *   basis's high part times P^n): two tokens of one length whose states collide from one basis
 *   collide from every basis that shares its low 7 bits (ASCII) or 16 bits. A secret basis without
 *   the fold therefore had 7 bits of secret against ASCII tokens: tokens crafted against the public
 *   basis (two 5-letter blocks that take one state to the same state, found by a birthday search of
 *   ~2^16 hashes; k such pairs give 2^k tokens of one hash, see
 *   test/search/index/term-dictionary.test.ts) flooded one process in 128, and a set crafted for
 *   each of the 128 low parts floods every process. The fold brings the high bits down into the
 *   bits the next unit and multiplication mix, so whether two paths reconverge depends on all 32
 *   bits of the secret state.
 * - The keyed finish: FNV-1a's low bits (the slot) depend only on the low bits of the state and of
 *   the units, so two tokens that differ in one unit by bit 15 alone (U+2C30 and U+AC30 are both
 *   lowercase letters) would land in one slot of any table up to 32,768 slots without a finish
 *   that makes every bit of the slot depend on all 32 bits of the state. It is a bijection, so it
 *   creates no collisions of its own; the key XORed in before it costs one instruction and keeps
 *   the mix's input unknown even for a state whose relation to another one is known.
 * Cost: two operations a unit on the scanning loop, six a token for the finish. A keyed PRF
 * (SipHash) would be stronger, at 2-3 times the per-unit cost on the hottest loop of bulk
 * indexing; collisions here cost probe steps, never correctness.
 */

/** FNV-1a's offset basis XOR a per-process secret. */
const HASH_BASIS = (0x811c9dc5 ^ randomInt(0x100000000)) | 0;
/** Per-process secret XORed into the FNV state before the finishing mix. */
const HASH_KEY = randomInt(0x100000000) | 0;

/** One unit of the token hash: FNV-1a's step and the fold (see above); the scanners inline it. */
function step(h: number, unit: number): number {
  h = Math.imul(h ^ unit, FNV_PRIME);
  return h ^ (h >>> 15);
}

/**
 * The token hash of `token` (already lowercased) from the given secrets: the definition that
 * hashRange and the scanners compute with this process's secrets (`hashSecrets`). For tests.
 */
export function keyedHash(basis: number, key: number, token: string): number {
  let h = basis | 0;
  for (let i = 0; i < token.length; i++) h = step(h, token.charCodeAt(i));
  return mix(h ^ key);
}

/** This process's secrets, for tests that check hashRange against keyedHash. */
export function hashSecrets(): { basis: number; key: number } {
  return { basis: HASH_BASIS, key: HASH_KEY };
}

/** The keyed finish of an FNV-1a state (see above); scanTokens and scanAsciiBytes inline it. */
function finishHash(h: number): number {
  return mix(h ^ HASH_KEY);
}

/** murmur3's fmix32. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/**
 * The keyed hash of the token src[start, end) over its (lowercased, see tokenUnit) UTF-16 units
 * (see above); the ASCII paths of `scanTokens` and `scanAsciiBytes` compute the same value while
 * they scan, so that indexing need not read the token a second time. Per process: never store it
 * beyond the process, never pass it to another thread.
 */
export function hashRange(src: string, start: number, end: number): number {
  let h = HASH_BASIS;
  for (let i = start; i < end; i++) h = step(h, tokenUnit(src, i));
  return finishHash(h);
}

/** hashRange of a token held as its lowercased UTF-16 units units[start, end) (a TermDictionary's pool). */
export function hashUnits(units: Uint16Array, start: number, end: number): number {
  let h = HASH_BASIS;
  for (let i = start; i < end; i++) h = step(h, units[i] as number);
  return finishHash(h);
}

/** The general tokenizer loop for any text, exposed for tests that compare it with the ASCII path. */
export function scanTokensGeneral(original: string, emitRange: (src: string, start: number, end: number) => void): number {
  return scanGeneral(original, 0, emitRange);
}

/** The tokens of `text` as an array (convenience for queries and tests). */
export function tokens(text: string): string[] {
  const out: string[] = [];
  analyze(text, (t) => out.push(t));
  return out;
}
