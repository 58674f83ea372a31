import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBulk, parseBulkSliced } from '../../../src/search/requests/bulk.js';

describe('bulk parser', () => {
  it('reads a compact index/create action line exactly as the JSON parser does', () => {
    const id = fc.string({ unit: fc.constantFrom('a', '7', ' ', '"', '\\', '\u0001', 'é', '\u{1f600}', '/'), maxLength: 12 });
    fc.assert(
      fc.property(fc.constantFrom('index', 'create'), id, fc.constantFrom('', ' ', '\r', '\t'), (op, docId, trailer) => {
        const source = '{"n":1}';
        const compact = `${JSON.stringify({ [op]: { _id: docId } })}${trailer}\n${source}\n`;
        // The same action with a space after the colon always takes the JSON parser.
        const spaced = `${JSON.stringify({ [op]: { _id: docId } }).replace('":{', '": {')}${trailer}\n${source}\n`;
        expect(spans(parseBulk(compact, 'i'))).toEqual(spans(parseBulk(spaced, 'i')));
        expect(spans(parseBulk(compact, 'i'))).toEqual([{ op, index: 'i', id: docId, source: undefined, raw: source }]);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a body whose last line lacks the final newline, after the errors of earlier lines', () => {
    const unterminated = 'The bulk request must be terminated by a newline [\\n]';
    expect(() => parseBulk('{"index":{"_id":"1"}}\n{"n":1}', 'i')).toThrow(unterminated);
    expect(() => parseBulk('{"delete":{"_id":"1"}}', 'i')).toThrow(unterminated);
    expect(() => parseBulk('{"index":{"_id":"1"}}\n{"n":1}\n  ', 'i')).toThrow(unterminated);
    expect(() => parseBulk('{"nope":{}}\n{"n":1}', 'i')).toThrow('Malformed action/metadata line [1]');
  });

  // An action whose value is not an object is malformed, as ES's parser says
  // (it is not an object with unknown keys "0", "1", …, nor an action without an index).
  it('refuses an action whose value is not an object with ES\'s malformed-line text', () => {
    expect(() => parseBulk('{"index":{"_id":"1"}}\n{"n":1}\n{"index":"foo"}\n{"n":1}\n', 'i')).toThrow(
      'Malformed action/metadata line [3], expected START_OBJECT or END_OBJECT but found [VALUE_STRING]',
    );
    expect(() => parseBulk('{"index":[1]}\n{"n":1}\n', 'i')).toThrow('Malformed action/metadata line [1], expected START_OBJECT or END_OBJECT but found [START_ARRAY]');
    expect(() => parseBulk('{"delete":null}\n', undefined)).toThrow('Malformed action/metadata line [1], expected START_OBJECT or END_OBJECT but found [VALUE_NULL]');
  });

  it('keeps a malformed source line for the item to report', () => {
    expect(spans(parseBulk('{"index":{"_id":"1"}}\n{"n":\n', 'i'))).toEqual([{ op: 'index', index: 'i', id: '1', source: undefined, raw: '{"n":' }]);
  });

  it('says where each source lies in the body, whatever whitespace and blank lines surround it', () => {
    const pad = fc.string({ unit: fc.constantFrom(' ', '\t', '\r'), maxLength: 3 });
    const blank = fc.constantFrom('', '\n', ' \n', '\r\n\n');
    const item = fc.record({ spaced: fc.boolean(), id: fc.string({ unit: fc.constantFrom('a', '7', 'é'), maxLength: 4 }), before: pad, after: pad, gap: blank, n: fc.nat() });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 6 }), fc.boolean(), (items, finalNewline) => {
        const body = items
          .map((it) => `${it.gap}${it.spaced ? `{ "index": {"_id": "${it.id}"} }` : `{"index":{"_id":"${it.id}"}}`}\n${it.before}{"n":${it.n}}${it.after}`)
          .join('\n') + (finalNewline ? '\n' : '');
        // ES refuses any bytes after the last newline.
        if (!finalNewline) {
          expect(() => parseBulk(body, 'i')).toThrow('The bulk request must be terminated by a newline [\\n]');
          return;
        }
        const actions = parseBulk(body, 'i');
        expect(spans(actions)).toEqual(items.map((it) => ({ op: 'index', index: 'i', id: it.id, source: undefined, raw: `{"n":${it.n}}` })));
      }),
      { numRuns: 300 },
    );
  });

  it('reads raw bytes as it reads the same body decoded and re-encoded (Unicode whitespace, invalid UTF-8, other action forms)', () => {
    const piece = fc.constantFrom(
      '{"index":{"_id":"1"}}', '{"create":{"_id":"é"}}', '{ "index": {"_id": "2"} }', '{"delete":{"_id":"3"}}', '{"index":{}}',
      '{"update":{"_id":"4"}}', '{"doc":{"a":1}}', '{"n":1}', '{"s":"é\u{1f600}"}', '{"n":', '',
      ' ', '\r', '\t', '\u00a0', '\ufeff', '\u2028', '\u3000', '\u0085',
    );
    const bad = fc.constantFrom(Buffer.from([0xe2]), Buffer.from([0xff]), Buffer.from([0xc3, 0xa9]), Buffer.from([0xf0, 0x9f]));
    const line = fc.array(fc.oneof(piece.map((t) => Buffer.from(t)), bad), { maxLength: 3 }).map((parts) => Buffer.concat(parts));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.boolean(), (lines, finalNewline) => {
        const body = Buffer.concat(lines.flatMap((l, n) => (n < lines.length - 1 || finalNewline ? [l, Buffer.from('\n')] : [l])));
        const viaBytes = outcome(() => parseBulk(body, 'i'));
        const viaText = outcome(() => parseBulk(body.toString('utf8'), 'i'));
        // A source that is not UTF-8 is refused from the bytes (never read as U+FFFD), where the
        // decoded text has replacement characters instead: the only way the two may differ.
        if (!isUtf8(body) && JSON.stringify(viaBytes).includes('UTF-8')) return;
        expect(viaBytes).toEqual(viaText);
        // The span of every source decodes to the very text that is stored.
        if (!('thrown' in (viaBytes as object))) spans(parseBulk(body, 'i'));
      }),
      { numRuns: 500 },
    );
  });

  it('treats a line of Unicode whitespace as blank and trims it around a source, with byte-exact spans', () => {
    const body = Buffer.from('\u00a0\u3000\n{"index":{"_id":"1"}}\r\n\ufeff {"s":"é"}\u00a0\r\n');
    const actions = parseBulk(body, 'i');
    expect(spans(actions)).toEqual([{ op: 'index', index: 'i', id: '1', source: undefined, raw: '{"s":"é"}' }]);
  });
});

/** The parse result, or the error it threw (as its body), for comparing two parses. */
function outcome(parse: () => ReturnType<typeof parseBulk>): unknown {
  try {
    return parse().map((a) => (a instanceof Error ? { error: (a as { toBody?: () => unknown }).toBody?.() } : plain(a)));
  } catch (e) {
    return { thrown: (e as { toBody?: () => unknown }).toBody?.() ?? String(e) };
  }
}

/** An index/create action as plain data (its source text decoded), anything else as is. */
function plain(a: ReturnType<typeof parseBulk>[number]): unknown {
  return 'raw' in a ? { op: a.op, index: a.index, id: a.id, source: a.source, raw: a.raw } : a;
}

/** The actions as plain data, after checking that each source span points at its `raw`. */
function spans(actions: ReturnType<typeof parseBulk>): unknown[] {
  return actions.map((a) => {
    if (!('raw' in a)) return a;
    const rawIn = a.rawIn;
    expect(rawIn).toBeDefined();
    if (rawIn !== undefined) expect(Buffer.from(rawIn.bytes).toString('utf8', rawIn.start, rawIn.end)).toBe(a.raw);
    return plain(a);
  });
}

describe('bulk parser in slices (parseBulkSliced)', () => {
  const outcome = async <T>(fn: () => T | Promise<T>): Promise<unknown> => {
    try {
      return { ok: await fn() };
    } catch (e) {
      return { error: e };
    }
  };
  // Lines of every kind: the compact action the fast path reads, the general one, updates,
  // deletes, a bad action, a missing id, blank lines.
  const lineArb = fc.constantFrom(
    '{"index":{"_id":"a"}}\n{"t":1}\n',
    '{"index":{"_index":"other","_id":"b"}}\n{"t":"x y"}\n',
    '{"create":{"_id":"c"}}\n{"n":2}\n',
    '{"update":{"_id":"a"}}\n{"doc":{"t":3}}\n',
    '{"delete":{"_id":"a"}}\n',
    '{"delete":{}}\n',
    '\n',
    '{"index":{"_id":"' + 'l'.repeat(600) + '"}}\n{}\n',
  );

  it('reads any body as parseBulk reads it, whatever the slices (0 ms: a yield every 32 items)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { maxLength: 120 }), fc.constantFrom<string | undefined>('i', undefined), async (lines, index) => {
        const body = lines.join('');
        const whole = await outcome(() => parseBulk(body, index));
        expect(await outcome(() => parseBulkSliced(body, index, false, undefined, undefined, 0))).toEqual(whole);
        expect(await outcome(() => parseBulkSliced(Buffer.from(body), index, false, undefined, undefined, Infinity))).toEqual(whole);
      }),
      { numRuns: 60, seed: 23 },
    );
  });

  it('lets the event loop run between its slices, and never with Infinity', async () => {
    const body = Array.from({ length: 200 }, (_, i) => `{"index":{"_id":"${i}"}}\n{"n":${i}}\n`).join('');
    const order: string[] = [];
    setImmediate(() => order.push('other request'));
    const sliced = parseBulkSliced(body, 'i', false, undefined, undefined, 0).then((a) => order.push(`parsed ${a.length}`));
    await sliced;
    expect(order).toEqual(['other request', 'parsed 200']);
    order.length = 0;
    setImmediate(() => order.push('other request'));
    await parseBulkSliced(body, 'i', false, undefined, undefined, Infinity).then((a) => order.push(`parsed ${a.length}`));
    expect(order).toEqual(['parsed 200']);
  });
});
