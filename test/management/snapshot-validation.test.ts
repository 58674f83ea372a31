import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SnapshotValidationError, validateProviderSnapshot } from '../../src/management/snapshot-validation.js';

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
const router = fc.record({
  entryPoints: fc.array(name, { maxLength: 3 }),
  middlewares: fc.array(name, { maxLength: 3 }),
  service: name,
  rule: fc.string(),
  priority: fc.integer({ min: -1000, max: 1_000_000 }),
}, { requiredKeys: [] });
const service = fc.oneof(
  fc.record({ loadBalancer: fc.record({ servers: fc.array(fc.record({ url: fc.webUrl() }), { maxLength: 3 }), passHostHeader: fc.boolean() }, { requiredKeys: [] }) }),
  fc.record({ weighted: fc.record({ services: fc.array(fc.record({ name, weight: fc.nat(100) }), { maxLength: 3 }) }) }),
);
const configuration = fc.record({
  http: fc.record({ routers: fc.dictionary(name, router), services: fc.dictionary(name, service) }, { requiredKeys: [] }),
}, { requiredKeys: [] });

describe('snapshot validation', () => {
  it('accepts every well-formed configuration unchanged (property)', () => {
    fc.assert(fc.property(configuration, fc.option(name, { nil: undefined }), (config, version) => {
      const body = version === undefined ? { configuration: config } : { configuration: config, version };
      expect(validateProviderSnapshot(body)).toEqual(body);
    }), { numRuns: 200 });
  });

  it('throws only SnapshotValidationError for arbitrary JSON (property)', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      try {
        validateProviderSnapshot({ configuration: v });
      } catch (err) {
        expect(err).toBeInstanceOf(SnapshotValidationError);
      }
    }), { numRuns: 300 });
  });

  it('treats a null configuration as empty', () => {
    expect(validateProviderSnapshot({ configuration: null })).toEqual({ configuration: {} });
  });

  // Messages as the one-pass validator worded them: the fast pass without paths must not change them.
  it.each([
    [{ http: { routers: { 'a.b': { entryPoints: ['web', 3] } } } }, 'configuration.http.routers["a.b"].entryPoints[1] must be a string, got number 3'],
    [{ http: { services: { s: { loadBalancer: { servers: [{ url: 'x' }, { url: 'y', weight: 1.5 }] } } } } }, 'configuration.http.services.s.loadBalancer.servers[1].weight must be an integer, got number 1.5'],
    [{ http: { routers: { r: { tls: { domains: [{ main: 'x', sans: ['a', null] }] } } } } }, 'configuration.http.routers.r.tls.domains[0].sans[1] must be a string, got null'],
    [{ http: { middlewares: { 'm-1': { headers: 'no' } } } }, 'configuration.http.middlewares["m-1"].headers must be an object, got string "no"'],
    [{ tcp: { routers: { t: { bogus: true } } } }, 'configuration.tcp.routers.t.bogus is not a known field (expected one of: entryPoints, middlewares, service, rule, ruleSyntax, priority, tls)'],
    [{ http: { routers: { 'x@y': {} } } }, 'configuration.http.routers["x@y"]: a name may not contain "@" (the server appends @provider)'],
    [{ udp: { services: { u: { loadBalancer: { servers: [{ address: 7 }] } } } } }, 'configuration.udp.services.u.loadBalancer.servers[0].address must be a string, got number 7'],
  ])('names the first problem with its full path (%#)', (configuration, message) => {
    expect(() => validateProviderSnapshot({ configuration })).toThrow(new SnapshotValidationError(message));
  });

  it('names a bad server state with its path', () => {
    expect(() => validateProviderSnapshot({ configuration: {}, serverStatus: { s: { 'http://x': 'MAYBE' } } }))
      .toThrow(new SnapshotValidationError('serverStatus.s["http://x"] must be "UP" or "DOWN", got string "MAYBE"'));
  });
});
