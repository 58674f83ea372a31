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
});
