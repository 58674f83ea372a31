import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quickRouter, quickService } from '../../src/dynamic-config/quick-checks.js';
import { fullRouter, fullService, SnapshotValidationError, validateChangedLines, validateProviderSnapshot } from '../../src/dynamic-config/validation.js';

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

// Values shaped like routers and services, right and wrong in every field the quick checks read.
const anyValue = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }), fc.array(fc.integer(), { maxLength: 2 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }));
const field = (arb: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: arb, weight: 4 }, { arbitrary: anyValue, weight: 1 });
const observabilityLike = fc.record({
  accessLogs: field(fc.boolean()), metrics: field(fc.boolean()), tracing: field(fc.boolean()), traceVerbosity: field(fc.string()),
  metadata: field(fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 })), other: anyValue,
}, { requiredKeys: [] });
const routerLike = fc.record({
  entryPoints: field(fc.array(fc.string(), { maxLength: 2 })), middlewares: field(fc.array(fc.string(), { maxLength: 2 })), parentRefs: field(fc.array(fc.string(), { maxLength: 2 })),
  service: field(fc.string()), rule: field(fc.string()), ruleSyntax: field(fc.string()), priority: field(fc.integer()),
  observability: field(observabilityLike), tls: field(fc.record({ options: fc.string() })),
}, { requiredKeys: [] });
const serverLike = fc.record({ url: field(fc.string()), weight: field(fc.integer()), preservePath: field(fc.boolean()), fenced: field(fc.boolean()), other: anyValue }, { requiredKeys: [] });
const loadBalancerLike = fc.record({
  servers: field(fc.array(serverLike, { maxLength: 3 })), strategy: field(fc.string()), serversTransport: field(fc.string()),
  passHostHeader: field(fc.oneof(fc.boolean(), fc.constant(null))), responseForwarding: field(fc.record({ flushInterval: field(fc.string()), other: anyValue }, { requiredKeys: [] })),
  sticky: field(fc.record({})), healthCheck: field(fc.record({})), passiveHealthCheck: field(fc.record({})), other: anyValue,
}, { requiredKeys: [] });
const serviceLike = fc.record({ middlewares: field(fc.array(fc.string(), { maxLength: 2 })), loadBalancer: field(loadBalancerLike), weighted: field(fc.record({})) }, { requiredKeys: [] });
/** The same with an unknown field. */
const withOther = (arb: fc.Arbitrary<Record<string, unknown>>) => fc.tuple(arb, anyValue).map(([r, other]) => ({ ...r, other }));

describe('snapshot validation', () => {
  it('quick checks pass only what the full checks pass, and pass the usual records (property)', () => {
    const passes = (check: typeof fullRouter, v: unknown) => {
      try {
        check(v, 'x');
        return true;
      } catch (err) {
        if (!(err instanceof SnapshotValidationError)) throw err;
        return false;
      }
    };
    let quick = 0;
    fc.assert(fc.property(fc.oneof(routerLike, withOther(routerLike), anyValue), (v) => {
      if (quickRouter(v)) {
        quick++;
        expect(passes(fullRouter, v)).toBe(true);
      }
    }), { numRuns: 1000 });
    fc.assert(fc.property(fc.oneof(serviceLike, withOther(serviceLike), anyValue), (v) => {
      if (quickService(v)) {
        quick++;
        expect(passes(fullService, v)).toBe(true);
      }
    }), { numRuns: 1000 });
    expect(quick).toBeGreaterThan(20);
    expect(quickRouter({ service: 's', rule: 'Host(`a`)', entryPoints: ['web'], observability: { metadata: { ingress: {} } } })).toBe(true);
    expect(quickService({ loadBalancer: { servers: [{ url: 'http://a' }], strategy: 'wrr', passHostHeader: true, responseForwarding: { flushInterval: '100ms' } } })).toBe(true);
  });

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

describe('changed lines of sources', () => {
  // The operator sends one `sources` line per record: a change to one must stay on the fast path
  // (only the changed lines checked), and a bad one must fall back to the full check.
  const snapshot = (source: unknown) => ({ configuration: {}, sources: { http: { routers: { r: source } } } });
  const path = ['sources', 'http', 'routers', 'r'];

  it('checks a changed source line alone', () => {
    const good = { kind: 'IngressRoute', name: 'web', namespace: 'default', uid: 'u', resourceVersion: '7' };
    expect(validateChangedLines(snapshot(good), [{ path, value: good }], [{ path }])?.sources?.http?.routers?.r).toEqual(good);
  });

  it('leaves a bad or misplaced source line to the full check', () => {
    const bad = { kind: 'IngressRoute' };
    expect(validateChangedLines(snapshot(bad), [{ path, value: bad }], [])).toBeUndefined();
    expect(() => validateProviderSnapshot(snapshot(bad))).toThrow('sources.http.routers.r.name is required (a non-empty string)');
    const udpMiddleware = ['sources', 'udp', 'middlewares', 'm'];
    expect(validateChangedLines({ configuration: {} }, [{ path: udpMiddleware, value: { kind: 'X', name: 'y' } }], [])).toBeUndefined();
  });
});
