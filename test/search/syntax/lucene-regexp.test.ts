import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRegexp, parseFlags, REGEXP_FLAGS, RegexpSyntaxError } from '../../../src/search/syntax/lucene-regexp.js';

const m = (re: string, term: string, flags: number = REGEXP_FLAGS.ALL, ci = false) => compileRegexp(re, flags, ci).matches(term);

describe("Lucene's regexp syntax", () => {
  it('matches whole terms only', () => {
    expect(m('pyth.*', 'python3')).toBe(true);
    expect(m('yth', 'python')).toBe(false);
    expect(m('.*yth.*', 'python')).toBe(true);
  });

  it('reads repetitions, classes, alternatives and literal strings', () => {
    expect(m('a{2,3}', 'aaa')).toBe(true);
    expect(m('a{2,3}', 'aaaa')).toBe(false);
    expect(m('a{2,}', 'aaaaa')).toBe(true);
    expect(m('[a-c]+x?', 'abcx')).toBe(true);
    expect(m('[^a-c]+', 'abd')).toBe(false);
    expect(m('lib(xml|yaml)2?', 'libyaml2')).toBe(true);
    expect(m('"a.b"', 'a.b')).toBe(true);
    expect(m('"a.b"', 'axb')).toBe(false);
    expect(m('\\d+\\w', '12a')).toBe(true);
    expect(m('()a', 'a')).toBe(true);
    expect(m('*a', '*a')).toBe(true);
  });

  it('runs the optional operators only with their flags, reading them as characters otherwise', () => {
    expect(m('pyth~n', 'python')).toBe(true);
    expect(m('pyth~n', 'pythn')).toBe(false);
    expect(m('pyth~n', 'pythn', REGEXP_FLAGS.NONE)).toBe(false);
    expect(m('pyth~n', 'pyth~n', REGEXP_FLAGS.NONE)).toBe(true);
    expect(m('.*a.*&.*b.*', 'xbya')).toBe(true);
    expect(m('.*a.*&.*b.*', 'xya')).toBe(false);
    expect(m('a@', 'abc')).toBe(true);
    expect(m('a@', 'a@', REGEXP_FLAGS.NONE)).toBe(true);
    expect(m('#', '')).toBe(false);
    expect(m('<1-20>', '7')).toBe(true);
    expect(m('<1-20>', '21')).toBe(false);
    expect(m('<01-20>', '7')).toBe(false);
    expect(m('<01-20>', '07')).toBe(true);
  });

  it('matches case-insensitively when asked', () => {
    expect(m('PyTh[O]n', 'python', REGEXP_FLAGS.ALL, true)).toBe(true);
    expect(m('PyTh[O]n', 'python')).toBe(false);
  });

  it("refuses bad expressions with Lucene's messages", () => {
    const err = (re: string) => {
      try {
        compileRegexp(re);
      } catch (e) {
        expect(e).toBeInstanceOf(RegexpSyntaxError);
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err('[a')).toBe("expected ']' at position 2");
    expect(err('(a')).toBe("expected ')' at position 2");
    expect(err('a)')).toBe('end-of-string expected at position 1');
    expect(err('a{2,1}')).toBe('invalid repetition range(out of order): 2..1');
    expect(err('a{,3}')).toBe('integer expected at position 2');
    expect(err('a\\')).toBe('unexpected end-of-string');
  });

  it('reads flag names', () => {
    expect(parseFlags('INTERSECTION|COMPLEMENT')).toBe(3);
    expect(parseFlags('none')).toBe(0);
    expect(parseFlags('NOPE')).toBeUndefined();
  });

  it('gives the literal prefix every match starts with', () => {
    expect(compileRegexp('pyth.*').prefix).toBe('pyth');
    expect(compileRegexp('.*x').prefix).toBe('');
  });

  it('agrees with JavaScript regular expressions on the shared syntax', () => {
    const atom = fc.constantFrom('a', 'b', '.', '[ab]', '(a|b)', '(ab)');
    const rep = fc.tuple(atom, fc.constantFrom('', '*', '+', '?', '{1,2}')).map(([a, r]) => a + r);
    fc.assert(
      fc.property(fc.array(rep, { minLength: 1, maxLength: 4 }), fc.stringMatching(/^[abc]{0,6}$/), (parts, term) => {
        const re = parts.join('');
        expect(m(re, term)).toBe(new RegExp(`^(?:${re})$`).test(term));
      }),
      { numRuns: 300 },
    );
  });
});

describe("the regexp's cheap checks before the matcher (literal suffix, length bounds, `lit.*`)", () => {
  it('keep the exact answers at their edges', () => {
    expect(m('lib[a-z]{3}', 'libfoo')).toBe(true);
    expect(m('lib[a-z]{3}', 'libfo')).toBe(false);
    expect(m('lib[a-z]{3}', 'libfooo')).toBe(false);
    expect(m('gr.*cal', 'graphical')).toBe(true);
    expect(m('gr.*cal', 'grcal')).toBe(true);
    expect(m('gr.*cal', 'grcalx')).toBe(false);
    expect(m('doc.*', 'doc')).toBe(true);
    expect(m('doc.*', 'xdoc')).toBe(false);
    expect(m('doc@', 'documents')).toBe(true);
    expect(m('#', '')).toBe(false);
    expect(m('#*', '')).toBe(true);
    expect(m('a{0}', '')).toBe(true);
    expect(m('a{0}b', 'b')).toBe(true);
    expect(m('~(abc)', 'abcd')).toBe(true);
    expect(m('~(abc)', 'abc')).toBe(false);
    expect(m('a.*&.*z', 'abz')).toBe(true);
    expect(m('a.*&.*z', 'ab')).toBe(false);
    expect(m('a..&.*b', 'ab')).toBe(false);
    expect(m('<1-100>', '0100')).toBe(true);
    expect(m('<01-10>', '05')).toBe(true);
    expect(m('<01-10>', '5')).toBe(false);
    // Lengths count code points: an astral character is one.
    expect(m('x.', 'x😀')).toBe(true);
    expect(m('x..', 'x😀')).toBe(false);
    expect(m('DOC.*', 'docs', REGEXP_FLAGS.ALL, true)).toBe(true);
    expect(m('doc.*', 'DOCS', REGEXP_FLAGS.ALL, true)).toBe(true);
  });

  it('agree with a JavaScript RegExp over the syntax both share', () => {
    const atom = fc.constantFrom('a', 'b', '.', '[ab]', '😀');
    const pattern = fc.letrec<{ re: string }>((tie) => ({
      re: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        atom,
        fc.tuple(tie('re'), tie('re')).map(([x, y]) => `${x}${y}`),
        fc.tuple(tie('re'), tie('re')).map(([x, y]) => `(${x}|${y})`),
        fc.tuple(tie('re'), fc.constantFrom('*', '+', '?', '{2}', '{0,2}', '{1,}')).map(([x, q]) => `(${x})${q}`),
      ),
    })).re;
    const term = fc.array(fc.constantFrom('a', 'b', 'c', '😀'), { maxLength: 6 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(pattern, fc.array(term, { minLength: 1, maxLength: 8 }), (re, terms) => {
        const js = new RegExp(`^(?:${re})$`, 'u');
        const lucene = compileRegexp(re, REGEXP_FLAGS.NONE);
        for (const t of terms) expect(lucene.matches(t), `${re} on ${t}`).toBe(js.test(t));
      }),
      { numRuns: 500 },
    );
  });
});
