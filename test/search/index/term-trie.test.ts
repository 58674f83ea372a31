import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortedTerms } from '../../../src/search/index/sorted-terms.js';
import { termTrie, trieNode } from '../../../src/search/index/term-trie.js';

const view = (terms: string[]) => sortedTerms({ size: terms.length, text: (i) => terms[i] as string });

describe('term trie', () => {
  const alphabet = fc.constantFrom('a', 'b', 'é', '\u{1d4b3}', '\uffee');
  const word = fc.array(alphabet, { maxLength: 6 }).map((a) => a.join(''));

  it('holds every term once, in the view order, and a prefix node holds exactly the terms starting with it', () => {
    fc.assert(
      fc.property(fc.uniqueArray(word, { maxLength: 40 }), word, (terms, prefix) => {
        const v = view(terms);
        const trie = termTrie(v);
        const inOrder: number[] = [];
        for (let n = 0; n < trie.term.length; n++) if ((trie.term[n] as number) >= 0) inOrder.push(trie.term[n] as number);
        expect(inOrder).toEqual(v.texts.map((_, i) => i));
        const node = trieNode(trie, prefix);
        const below: string[] = [];
        if (node >= 0) for (let n = node; n < (trie.next[node] as number); n++) if ((trie.term[n] as number) >= 0) below.push(v.texts[trie.term[n] as number] as string);
        expect(below).toEqual(v.texts.filter((t) => t.startsWith(prefix)));
        if (node >= 0) expect(trie.depth[node]).toBe([...prefix].length);
      }),
      { numRuns: 300 },
    );
  });

  it('is built once per view and again when terms are added', () => {
    const terms = ['python', 'perl'];
    const source = { size: 2, text: (i: number) => terms[i] as string };
    const first = termTrie(sortedTerms(source));
    expect(termTrie(sortedTerms(source))).toBe(first);
    terms.push('pyton');
    source.size = 3;
    const grown = termTrie(sortedTerms(source));
    expect(grown).not.toBe(first);
    expect(trieNode(grown, 'pyto')).toBeGreaterThan(0);
    expect(trieNode(first, 'pyto')).toBe(-1);
  });
});
