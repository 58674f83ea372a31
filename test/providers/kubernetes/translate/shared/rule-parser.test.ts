import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRule } from '../../../../../src/providers/kubernetes/translate/shared/rule-parser.js';

describe('rule checker', () => {
  it.each([
    'Host(`foo.com`) && PathPrefix(`/bar`)',
    'Host("whoami.test") && PathPrefix("/whoami")',
    '(Host(`a`) || Host(`b`)) && !Method(`POST`)',
    'Header(`X-A`, `b`) && Query(`q`) && QueryRegexp(`q`, `^a$`)',
    'PathRegexp(`^/api/v[0-9]+`)',
  ])('accepts %s', (rule) => expect(checkRule(rule, 'http')).toEqual({ ok: true }));

  it.each([
    ['', 'empty rule'],
    ['Host(`a`', 'expected "," or ")"'],
    ['Host(`a`) &&', 'expected a matcher'],
    ['Nope(`x`)', 'unsupported function: Nope'],
    ['Host(`a`, `b`)', 'unexpected number of parameters'],
    ['Host(`a) ', 'unterminated string'],
    ['Host(`a`) & Path(`/`)', 'unexpected "&"'],
    ['HostSNI(`*`)', 'unsupported function: HostSNI'],
  ])('refuses %j (%s)', (rule, message) => {
    const r = checkRule(rule, 'http');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(message);
  });

  it('knows TCP matchers', () => {
    expect(checkRule('HostSNI(`*`)', 'tcp').ok).toBe(true);
    expect(checkRule('HostSNI(`a`) || ALPN(`h2`) && ClientIP(`10.0.0.0/8`)', 'tcp').ok).toBe(true);
    expect(checkRule('Host(`a`)', 'tcp').ok).toBe(false);
  });

  const arg = fc.stringMatching(/^[a-z0-9./*-]{0,12}$/).map((s) => `\`${s}\``);
  const leaf = fc.oneof(arg.map((a) => `Host(${a})`), arg.map((a) => `PathPrefix(${a})`), fc.tuple(arg, arg).map(([a, b]) => `Header(${a}, ${b})`));
  const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
    e: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf,
      fc.tuple(tie('e'), tie('e')).map(([a, b]) => `${a} && ${b}`),
      fc.tuple(tie('e'), tie('e')).map(([a, b]) => `(${a} || ${b})`),
      tie('e').map((a) => `!${a}`)),
  })).e;

  it('accepts every generated well-formed rule', () => {
    fc.assert(fc.property(expr, (rule) => {
      expect(checkRule(rule, 'http')).toEqual({ ok: true });
    }));
  });

  it('never throws on arbitrary input', () => {
    fc.assert(fc.property(fc.string(), (s) => {
      expect(typeof checkRule(s, 'http').ok).toBe('boolean');
    }));
  });
});
