/**
 * String order as Go compares strings: by UTF-8 bytes, which is code point order. JavaScript's `<`
 * compares UTF-16 code units, which differs when a character in U+E000..U+FFFF meets one above
 * U+FFFF (surrogate pairs start at 0xD800): Go sorts U+F172 before U+1F600, `<` the other way.
 * client_golang orders exposed metrics by label values this way, so exposition order depends on it.
 */
export function compareGoStrings(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Move surrogates (D800-DFFF) above E000-FFFF: UTF-8 puts supplementary characters last.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
