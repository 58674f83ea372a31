import { describe, expect, it } from 'vitest';
import { SearchError } from '../../../src/search/errors.js';
import { checkCompatibleVersions, parseMediaType, requestMediaType, responseContentType } from '../../../src/search/http/media-type.js';

const vnd = (v: number, kind = 'json') => `application/vnd.elasticsearch+${kind}; compatible-with=${v}`;

function refusal(f: () => void): { type: string; reason: string; cause: string } {
  try {
    f();
  } catch (e) {
    if (!(e instanceof SearchError)) throw e;
    const body = e.toBody() as { error: { type: string; reason: string; caused_by: { reason: string } } };
    return { type: body.error.type, reason: body.error.reason, cause: body.error.caused_by.reason };
  }
  throw new Error('not refused');
}

describe('search media types', () => {
  it('reads JSON, NDJSON and the vendor types with their version', () => {
    expect(parseMediaType('application/json; charset=UTF-8')).toEqual({ kind: 'json', compatibleWith: undefined, vendor: undefined });
    expect(parseMediaType(vnd(8, 'x-ndjson'))).toEqual({ kind: 'ndjson', compatibleWith: 8, vendor: 'elasticsearch' });
    expect(requestMediaType('text/plain')?.kind).toBe('json');
    expect(() => requestMediaType('application/octet-stream')).toThrow(SearchError);
    expect(responseContentType(`${vnd(9)},text/plain`, undefined)).toBe('application/vnd.elasticsearch+json;compatible-with=9');
    expect(responseContentType(undefined, 'application/json')).toBe('application/json; charset=UTF-8');
  });

  it('accepts what the clients send: both headers versioned alike, or neither', () => {
    for (const v of [7, 8, 9]) expect(() => checkCompatibleVersions(vnd(v), vnd(v), true)).not.toThrow();
    expect(() => checkCompatibleVersions(`${vnd(9)},text/plain`, vnd(9, 'x-ndjson'), true)).not.toThrow();
    expect(() => checkCompatibleVersions('application/json', 'application/json', true)).not.toThrow();
    expect(() => checkCompatibleVersions(undefined, undefined, false)).not.toThrow();
    // Without a body the Content-Type does not count.
    expect(() => checkCompatibleVersions(vnd(8), 'application/json', false)).not.toThrow();
  });

  it('refuses one-sided or mismatched versions with a body, as ES does', () => {
    const oneSided = refusal(() => checkCompatibleVersions('*/*', vnd(8), true));
    expect(oneSided.type).toBe('media_type_header_exception');
    expect(oneSided.reason).toBe('Invalid media-type value on headers [Content-Type, Accept]');
    expect(oneSided.cause).toBe(
      `A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version. Accept=*/*, Content-Type=${vnd(8)}`,
    );
    const mismatch = refusal(() => checkCompatibleVersions(vnd(7), vnd(8), true));
    expect(mismatch.cause).toMatch(/^A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version and the compatible versions must match\. Accept=/);
  });

  it('refuses versions the server does not speak', () => {
    expect(refusal(() => checkCompatibleVersions(vnd(10), undefined, false)).cause).toMatch(/^Accept version must be either version 9, 8 or 7, but found 10\. Accept=/);
    expect(refusal(() => checkCompatibleVersions(vnd(6), vnd(6), true)).cause).toMatch(/^Accept version must be/);
  });
});
