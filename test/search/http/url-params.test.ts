import { describe, expect, it } from 'vitest';
import { checkParams, SEARCH_PARAMS } from '../../../src/search/http/url-params.js';

const message = (params: Record<string, string>): string => {
  try {
    checkParams('/i/_search', params, SEARCH_PARAMS);
    return 'ok';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('URL parameter check', () => {
  it('accepts what the handler reads', () => {
    expect(message({ q: 'x', size: '1', pretty: 'true', _source_includes: 'a' })).toBe('ok');
  });

  it('names unknown parameters, with the close known names best first', () => {
    expect(message({ zzz_unknown: '1' })).toBe('request [/i/_search] contains unrecognized parameter: [zzz_unknown]');
    expect(message({ sise: '1' })).toBe('request [/i/_search] contains unrecognized parameter: [sise] -> did you mean [size]?');
    expect(message({ zzz: '1', fromm: '1' })).toBe('request [/i/_search] contains unrecognized parameters: [fromm] -> did you mean [from]?, [zzz]');
    expect(message({ timeou: '1' })).toMatch(/^request \[\/i\/_search\] contains unrecognized parameter: \[timeou\] -> did you mean \[timeout\]\?$/);
  });
});
