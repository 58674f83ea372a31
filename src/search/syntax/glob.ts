/**
 * Elasticsearch's simple glob (`Glob.globMatch`): `*` matches any run of characters (none
 * included), every other character itself. Used for `filter_path` segments, `_source`
 * include/exclude patterns, index name expressions and query field patterns.
 *
 * Matched by hand, retrying only from the last star seen, so a match takes at most
 * length x pattern steps. A RegExp with a `.*` per star backtracks exponentially instead:
 * `*a*a*a*a*a*a*a*a*a*b` against a 40-character name of `a`s held the event loop for minutes.
 */

const STAR = 42; // '*'

export function globMatch(pattern: string, text: string): boolean {
  return starMatch(pattern, text, -1);
}

const QUESTION = 63; // '?'

/**
 * Lucene's wildcard match (`wildcard` queries, `te?m*` in query strings): `*` any run of
 * characters, `?` exactly one; by hand as globMatch, for the same reason.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  return starMatch(pattern, text, QUESTION);
}

/** The matcher of both: `*` any run, `any` (a code unit, or -1 for none) exactly one character. */
function starMatch(pattern: string, text: string, any: number): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    const c = pattern.charCodeAt(p);
    if (p < pattern.length && c !== STAR && (c === any || c === text.charCodeAt(t))) {
      p++;
      t++;
    } else if (p < pattern.length && c === STAR) {
      star = p++;
      resume = t;
    } else if (star !== -1) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern.charCodeAt(p) === STAR) p++;
  return p === pattern.length;
}
