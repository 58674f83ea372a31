import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SnapshotLineDecoder, SnapshotLineEncoder, SnapshotLinesError, snapshotLinesBody, snapshotLinesChunks } from '../../src/management/snapshot-lines.js';

const DEPTHS = { configuration: 3, serverStatus: 1 };

// JSON values as a snapshot holds them: no undefined, no -0 (JSON writes 0).
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const key = fc.oneof(fc.string(), fc.constantFrom('routers', 'a.b', 'tab\there', 'line\nbreak', '0', '12', 'é', 'valueOf', 'toString', 'hasOwnProperty'))
  .filter((k) => !['__proto__', 'constructor', 'prototype'].includes(k));
const map = <T>(value: fc.Arbitrary<T>) => fc.dictionary(key, value, { maxKeys: 5 });
// fc.dictionary may add an own `__proto__` key by itself: the decoder refuses those (tested below).
const snapshotArb = fc.record({
  configuration: map(fc.oneof(map(map(json)), json)),
  serverStatus: map(map(fc.constantFrom('UP', 'DOWN'))),
}).filter((v) => !/"(__proto__|constructor|prototype)":/.test(JSON.stringify(v)));

function roundTrip(encoder: SnapshotLineEncoder, decoder: SnapshotLineDecoder, value: Record<string, unknown>) {
  const encoded = encoder.encode(value, DEPTHS);
  const decoded = decoder.decode(snapshotLinesBody(encoded));
  decoder.commit(decoded);
  return { encoded, decoded };
}

describe('snapshot lines', () => {
  it('decode(encode(x)) is x with its version, key order included, also with reused records', () => {
    const encoder = new SnapshotLineEncoder();
    const decoder = new SnapshotLineDecoder();
    fc.assert(fc.property(snapshotArb, (value) => {
      for (let pass = 0; pass < 2; pass++) {
        const { encoded, decoded } = roundTrip(encoder, decoder, value);
        expect(JSON.stringify(decoded.value)).toBe(JSON.stringify({ version: encoded.version, ...value }));
      }
    }));
  });

  it('cuts the body into pieces at line ends', () => {
    const routers: Record<string, object> = {};
    for (let i = 0; i < 50; i++) routers[`r${i}`] = { rule: `Host(\`h${i}.example.com\`)` };
    const encoded = new SnapshotLineEncoder().encode({ configuration: { http: { routers } } }, DEPTHS);
    const chunks = [...snapshotLinesChunks(encoded, 200)];
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks.slice(0, -1)) expect(c.endsWith('\n')).toBe(true);
    expect(chunks.join('')).toBe(snapshotLinesBody(encoded));
    expect(new SnapshotLineDecoder().decode(chunks.join('')).value).toEqual({ version: encoded.version, configuration: { http: { routers } } });
  });

  it('gives the same version for equal content and another one for a change', () => {
    const a = new SnapshotLineEncoder().encode({ configuration: { http: { routers: { r: { rule: 'x' } } } } }, DEPTHS);
    const b = new SnapshotLineEncoder().encode({ configuration: { http: { routers: { r: { rule: 'x' } } } } }, DEPTHS);
    const c = new SnapshotLineEncoder().encode({ configuration: { http: { routers: { r: { rule: 'y' } } } } }, DEPTHS);
    expect(a.version).toMatch(/^[0-9a-f]{16}$/);
    expect(b.version).toBe(a.version);
    expect(c.version).not.toBe(a.version);
  });

  it('writes one line per record and keeps unchanged records as the same objects', () => {
    const encoder = new SnapshotLineEncoder();
    const decoder = new SnapshotLineDecoder();
    const r1 = { rule: 'Host(`a`)', service: 's' };
    const r2 = { rule: 'Host(`b`)', service: 's' };
    const first = roundTrip(encoder, decoder, { configuration: { http: { routers: { r1, r2 }, services: {} } } });
    expect(snapshotLinesBody(first.encoded).split('\n')).toEqual([
      `["version"]\t"${first.encoded.version}"`,
      '["configuration","http","routers","r1"]\t{"rule":"Host(`a`)","service":"s"}',
      '["configuration","http","routers","r2"]\t{"rule":"Host(`b`)","service":"s"}',
      '["configuration","http","services"]\t{}',
    ]);
    expect(first.decoded.parsed).toBe(4);
    const second = roundTrip(encoder, decoder, { configuration: { http: { routers: { r1, r2: { ...r2, service: 't' } }, services: {} } } });
    expect(second.decoded.parsed).toBe(2); // the version and r2
    const routers = (second.decoded.value.configuration as { http: { routers: Record<string, object> } }).http.routers;
    const firstRouters = (first.decoded.value.configuration as { http: { routers: Record<string, object> } }).http.routers;
    expect(routers.r1).toBe(firstRouters.r1);
    expect(routers.r2).not.toBe(firstRouters.r2);
    expect(second.decoded.reused.has(routers.r1 as object)).toBe(true);
  });

  it('does not remember lines until a decode is committed', () => {
    const decoder = new SnapshotLineDecoder();
    const body = '["configuration","http"]\t{}';
    decoder.decode(body);
    expect(decoder.decode(body).parsed).toBe(1);
  });

  it('refuses malformed bodies, naming the line', () => {
    const cases: [string, RegExp][] = [
      ['["a"]', /line 1: expected <path><TAB><value>/],
      ['\n[1]\t{}', /line 2: the path must be a non-empty JSON array of strings/],
      ['[]\t{}', /the path must be a non-empty/],
      ['["a"\t{}', /the path is not valid JSON/],
      ['["a"]\t{x}', /line 1: the value is not valid JSON/],
      ['["a"]\t1\n["a"]\t2', /line 2: the path \["a"\] is assigned twice/],
      ['["a"]\t{}\n["a","b"]\t2', /line 2: the path \["a","b"\] runs through a value set by another line/],
      ['["__proto__","x"]\t1', /the key "__proto__" is not allowed/],
      ['["a"]\t{"b":[{"constructor":{}}]}', /holds a key that is not allowed/],
    ];
    for (const [body, message] of cases) {
      expect(() => new SnapshotLineDecoder().decode(body)).toThrow(SnapshotLinesError);
      expect(() => new SnapshotLineDecoder().decode(body)).toThrow(message);
    }
  });
});
