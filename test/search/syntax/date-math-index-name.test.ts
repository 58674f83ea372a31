import { describe, expect, it } from 'vitest';
import { resolveDateMathExpression, resolveDateMathName } from '../../../src/search/syntax/date-math-index-name.js';
import { SearchError } from '../../../src/search/errors.js';

/** 2024-03-22T23:30:00Z */
const NOW = Date.UTC(2024, 2, 22, 23, 30);

function refusal(name: string): { type: string; reason: string } {
  try {
    resolveDateMathName(name, NOW);
  } catch (e) {
    if (e instanceof SearchError) return { type: e.cause_.type, reason: e.cause_.reason };
    throw e;
  }
  throw new Error(`${name} was not refused`);
}

describe('date-math index names', () => {
  it('resolves placeholders as ES does: UTC, uuuu.MM.dd unless a format and zone are given', () => {
    expect(resolveDateMathName('<logs-{now/d}>', NOW)).toBe('logs-2024.03.22');
    expect(resolveDateMathName('<logs-{now/M{yyyy.MM}}>', NOW)).toBe('logs-2024.03');
    expect(resolveDateMathName('<logs-{now/d{yyyy.MM.dd|+12:00}}>', NOW)).toBe('logs-2024.03.23');
    expect(resolveDateMathName('<logs-{now/d-1d}-x>', NOW)).toBe('logs-2024.03.21-x');
    expect(resolveDateMathName('<a\\{b\\}-{now/y{yyyy}}>', NOW)).toBe('a{b}-2024');
    expect(resolveDateMathName('plain', NOW)).toBe('plain');
    expect(resolveDateMathExpression('<a-{now/d}>,b', NOW)).toBe('a-2024.03.22,b');
  });

  it('refuses malformed names with ES parse_exception', () => {
    expect(refusal('<logs-{now/d>')).toEqual({ type: 'parse_exception', reason: 'invalid dynamic name expression [logs-{now/d]. date math placeholder is open ended' });
    expect(refusal('<logs-}>').reason).toMatch(/^invalid dynamic name expression \[logs-}\]\. invalid character at position \[6\]/);
    expect(refusal('<logs-{now/d{}}>').reason).toBe('invalid dynamic name expression [now/d{}]. missing date format');
    expect(refusal('<{}>').type).toBe('parse_exception');
  });
});
