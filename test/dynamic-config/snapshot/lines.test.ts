import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SnapshotLineDecoder, SnapshotLineEncoder, SnapshotLinesError, snapshotLinesBody, snapshotLinesChunks } from '../../../src/dynamic-config/snapshot/lines.js';

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

/** The format as documented, decoded the plain way: the oracle for the decoder's shortcuts. */
function referenceDecode(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  const containers = new Set<object>([root]);
  body.split('\n').forEach((line, index) => {
    const at = `line ${index + 1}`;
    if (line === '') return;
    const tab = line.indexOf('\t');
    if (tab === -1) throw new Error(`${at}: expected <path><TAB><value>`);
    let path: unknown;
    try {
      path = JSON.parse(line.slice(0, tab));
    } catch {
      throw new Error(`${at}: the path is not valid JSON`);
    }
    if (!Array.isArray(path) || path.length === 0 || !path.every((p) => typeof p === 'string')) throw new Error(`${at}: the path must be a non-empty JSON array of strings`);
    let value: unknown;
    try {
      value = JSON.parse(line.slice(tab + 1));
    } catch (err) {
      throw new Error(`${at}: the value is not valid JSON (${(err as Error).message})`);
    }
    let target = root;
    for (const k of path.slice(0, -1) as string[]) {
      let next = Object.prototype.hasOwnProperty.call(target, k) ? target[k] : undefined;
      if (next === undefined) {
        next = {};
        containers.add(next as object);
        target[k] = next;
      } else if (!containers.has(next as object)) {
        throw new Error(`${at}: the path ${JSON.stringify(path)} runs through a value set by another line`);
      }
      target = next as Record<string, unknown>;
    }
    const last = path[path.length - 1] as string;
    if (Object.prototype.hasOwnProperty.call(target, last)) throw new Error(`${at}: the path ${JSON.stringify(path)} is assigned twice`);
    target[last] = value;
  });
  return root;
}

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
      ['["serverStatus","a"]\t{}\n["serverStatus","b"]\t{"__proto__":"UP"}', /line 2: the value holds a key that is not allowed/],
      ['["serverStatus","a"]\t{}\n["serverStatus","b"]\t{"x":"UP","prototype":"DOWN"}', /line 2: the value holds a key that is not allowed/],
      ['["serverStatus","a"]\t{}\n["serverStatus","__proto__"]\t{"x":"UP"}', /line 2: the key "__proto__" is not allowed/],
    ];
    for (const [body, message] of cases) {
      expect(() => new SnapshotLineDecoder().decode(body)).toThrow(SnapshotLinesError);
      expect(() => new SnapshotLineDecoder().decode(body)).toThrow(message);
    }
  });

  it('decodes lines under a path seen before, server states included, as JSON.parse does, value or error', () => {
    // Lines after the first of a map take the quick way (their path from its bytes; server
    // states without JSON.parse): values, key order and errors must be those of the plain way.
    const stateKey = fc.oneof(fc.string(), fc.constantFrom('0', '12', 'http://10.0.0.1:8080', 'a"b', 'tab\tx', 'valueOf', '__proto__', 'constructor', ''));
    const stateValue = fc.oneof(fc.constantFrom('UP', 'DOWN', 'U\\P'), fc.string());
    const text = fc.oneof(
      fc.dictionary(stateKey, stateValue, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.constantFrom('{}', '{"a":"UP"', '{"a":"UP"}}', '{"a":"UP",}', '{"a": "UP"}', '{"a":"U\\u0050"}', '{"a":1}', '{"a":"UP","a":"DOWN"}', '{"b":"x","1":"y","a":"z"}'),
    );
    const name = fc.oneof(fc.string(), fc.constantFrom('s', 'a"b', 'x\\y', '__proto__', 'é'));
    const lineArb = fc.tuple(fc.constantFrom('serverStatus', 'routers'), name, text)
      .map(([where, n, t]) => `${JSON.stringify(where === 'serverStatus' ? ['serverStatus', n] : ['configuration', 'http', 'routers', n])}\t${t}`);
    // The reference decoder does not refuse these keys (tested below).
    fc.assert(fc.property(fc.array(lineArb, { minLength: 1, maxLength: 6 }).filter((l) => !/__proto__|constructor|prototype/.test(l.join())), (lines) => {
      const body = lines.join('\n');
      let expected: unknown;
      let problem: string | undefined;
      try {
        expected = referenceDecode(body);
      } catch (err) {
        problem = (err as Error).message;
      }
      if (problem !== undefined) {
        expect(() => new SnapshotLineDecoder().decode(body)).toThrow(problem);
        return;
      }
      const got = new SnapshotLineDecoder().decode(body).value;
      expect(got).toEqual(expected);
      expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
    }), { numRuns: 500 });
  });

  it('decoding against the last accepted body gives what decoding from scratch gives, value or error', () => {
    // Bodies made of lines of a few snapshots, then cut about: lines dropped, moved, doubled,
    // blanked, garbled, so that runs match, part and resync at every place.
    const edit = fc.oneof(
      fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
      fc.record({ op: fc.constant('move' as const), at: fc.nat(), to: fc.nat() }),
      fc.record({ op: fc.constant('double' as const), at: fc.nat() }),
      fc.record({
        op: fc.constant('insert' as const), at: fc.nat(),
        line: fc.constantFrom(
          '', '["a"]\t1', '["a","b"]\t2', '["configuration","x"]\t{}', '["configuration"]\t{}', '["configuration","http","routers"]\t{}',
          'garbage', '["version"]\t"v"', '["x"]\t{',
        ),
      }),
      fc.record({ op: fc.constant('end' as const), newline: fc.boolean() }),
      // A line that a previous line is the beginning of.
      fc.record({ op: fc.constant('extend' as const), at: fc.nat(), tail: fc.constantFrom('0', ' ', 'x') }),
    );
    // Each body is the previous one edited (most steps) or a new snapshot's.
    const bodyArb = fc.tuple(
      fc.option(snapshotArb, { freq: 3 }), fc.array(edit, { maxLength: 4 }),
      // Where the body is cut into pieces as it arrives (none: decoded whole).
      fc.option(fc.array(fc.nat(), { maxLength: 6 }), { nil: undefined }),
    );
    fc.assert(fc.property(snapshotArb, fc.array(bodyArb, { minLength: 2, maxLength: 6 }), fc.boolean(), (start, bodies, encodeShared) => {
      const shared = new SnapshotLineEncoder();
      const kept = new SnapshotLineDecoder();
      let previous = snapshotLinesBody(shared.encode(start, DEPTHS)).split('\n');
      for (const [value, edits, cuts] of bodies) {
        const encoder = encodeShared ? shared : new SnapshotLineEncoder();
        const lines = value === null ? [...previous] : snapshotLinesBody(encoder.encode(value, DEPTHS)).split('\n');
        previous = lines;
        let trailing = '';
        for (const e of edits) {
          const at = lines.length === 0 ? 0 : ('at' in e ? e.at % lines.length : 0);
          if (e.op === 'drop') lines.splice(at, 1);
          else if (e.op === 'move') lines.splice(e.to % (lines.length || 1), 0, ...lines.splice(at, 1));
          else if (e.op === 'double') lines.splice(at, 0, lines[at] ?? '');
          else if (e.op === 'insert') lines.splice(at, 0, e.line);
          else if (e.op === 'extend') lines[at] = `${lines[at] ?? ''}${e.tail}`;
          else trailing = e.newline ? '\n' : '';
        }
        const body = lines.join('\n') + trailing;
        const outcome = (decoder: SnapshotLineDecoder, cuts?: readonly number[]) => {
          try {
            const bytes = Buffer.from(body);
            let decoded;
            if (cuts === undefined) {
              decoded = decoder.decode(bytes);
            } else {
              // As it arrives: in pieces, into a buffer with stale bytes after what was received.
              const session = decoder.begin();
              const buf = Buffer.alloc(bytes.length + 8, '\n["x"]\t1');
              let at = 0;
              for (const cut of [...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
                bytes.copy(buf, at, at, cut);
                at = Math.max(at, cut);
                session.feed(buf, at, false);
              }
              decoded = session.finish(buf.subarray(0, bytes.length));
            }
            return { ok: JSON.stringify(decoded.value), decoded };
          } catch (err) {
            return { error: (err as Error).message };
          }
        };
        let reference: { ok?: string; error?: string };
        try {
          reference = { ok: JSON.stringify(referenceDecode(body)) };
        } catch (err) {
          reference = { error: (err as Error).message };
        }
        const fromScratch = outcome(new SnapshotLineDecoder());
        const incremental = outcome(kept, cuts);
        expect(fromScratch.error).toBe(reference.error);
        expect(fromScratch.ok).toBe(reference.ok);
        expect(incremental.error).toBe(reference.error);
        expect(incremental.ok).toBe(reference.ok);
        if (incremental.decoded !== undefined) {
          // What a line-level consumer reads: the previous value plus the changes gives the new lines.
          expect(incremental.decoded.parsed).toBe(incremental.decoded.added.length);
          kept.commit(incremental.decoded);
        }
      }
    }), { numRuns: 300 });
  });

  it('starts over when another body was committed while one was arriving', () => {
    const decoder = new SnapshotLineDecoder();
    const line = (name: string, rule: string) => `["configuration","http","routers",${JSON.stringify(name)}]\t{"rule":${JSON.stringify(rule)}}`;
    decoder.commit(decoder.decode([line('a', '1'), line('b', '2')].join('\n')));
    const late = Buffer.from([line('a', '1'), line('b', '3'), line('c', '4')].join('\n'));
    const session = decoder.begin();
    session.feed(late, late.length, false);
    const other = decoder.decode([line('a', '9'), line('b', '3')].join('\n'));
    decoder.commit(other);
    const decoded = session.finish(late);
    expect(decoded.previous).toBe(other.value);
    expect(decoded.value).toEqual({ configuration: { http: { routers: { a: { rule: '1' }, b: { rule: '3' }, c: { rule: '4' } } } } });
    expect(decoded.added.map((l) => l.path[3])).toEqual(['a', 'c']);
  });

  it('reports the lines added and removed since the last accepted body', () => {
    const decoder = new SnapshotLineDecoder();
    const body = (rules: string[]) => rules.map((r, i) => `["configuration","http","routers","r${i}"]\t{"rule":${JSON.stringify(r)}}`).join('\n');
    const first = decoder.decode(body(['a', 'b', 'c', 'd']));
    expect(first.previous).toBeUndefined();
    expect(first.added).toHaveLength(4);
    decoder.commit(first);
    const second = decoder.decode(body(['a', 'x', 'c', 'd']));
    expect(second.previous).toBe(first.value);
    expect(second.added.map((l) => l.path)).toEqual([['configuration', 'http', 'routers', 'r1']]);
    expect(second.removed.map((l) => l.value)).toEqual([{ rule: 'b' }]);
    const routers = (v: Record<string, unknown>) => (v.configuration as { http: { routers: Record<string, unknown> } }).http.routers;
    expect(routers(second.value).r0).toBe(routers(first.value).r0);
    expect(Object.keys(routers(second.value))).toEqual(['r0', 'r1', 'r2', 'r3']);
    decoder.commit(second);
    // An identical body: nothing parsed, the very same value.
    const third = decoder.decode(body(['a', 'x', 'c', 'd']));
    expect(third.parsed).toBe(0);
    expect(third.value).toBe(second.value);
  });
});
