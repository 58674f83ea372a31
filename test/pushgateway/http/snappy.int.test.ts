/**
 * Snappy-compressed push bodies and compressed scrapes side by side with Pushgateway 1.11.1
 * (built by scripts/build-peers.sh): the same request to both gets the same status and text, and
 * a good push the same /metrics lines; randomly damaged snappy bodies (text and protobuf, several
 * chunk kinds) get the same answers.
 */
import fc from 'fast-check';
import snappy from 'snappyjs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOBUF_CONTENT_TYPE, encodeProtobufDelimited } from '../../../src/pushgateway/exposition/protobuf.js';
import { decodeSnappyFrames, maskedCrc } from '../../../src/pushgateway/http/snappy-frames.js';
import type { MetricFamily } from '../../../src/pushgateway/model.js';
import { TestClock, listenGateway, type Harness } from '../gateway-harness.js';
import { pushgatewayForFile, rawSend, type PeerResponse } from '../peer-processes.js';

const pg = pushgatewayForFile();
let portico: (Harness & { url: string }) | undefined;
beforeAll(async () => {
  portico = await listenGateway([], TestClock.real());
});
afterAll(async () => {
  await portico?.app.close();
});

type Chunk = { kind: 'compressed' | 'raw'; data: Uint8Array } | { kind: 'skip'; type: number; data: Uint8Array };

function chunkBytes(type: number, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt8(type, 0);
  header.writeUIntLE(payload.length, 1, 3);
  return Buffer.concat([header, payload]);
}

function withCrc(data: Uint8Array, payload: Uint8Array): Buffer {
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(maskedCrc(data), 0);
  return Buffer.concat([crc, payload]);
}

/** A framed snappy stream: the stream identifier, then the chunks. */
function frames(chunks: readonly Chunk[]): Buffer {
  const out: Buffer[] = [chunkBytes(0xff, Buffer.from('sNaPpY'))];
  for (const c of chunks) {
    if (c.kind === 'compressed') out.push(chunkBytes(0x00, withCrc(c.data, snappy.compress(c.data))));
    else if (c.kind === 'raw') out.push(chunkBytes(0x01, withCrc(c.data, c.data)));
    else if (c.kind === 'skip') out.push(chunkBytes(c.type, c.data));
  }
  return Buffer.concat(out);
}

/** `data` split into chunks of at most `size` bytes, alternating compressed and raw, with padding between. */
function chunked(data: Uint8Array, size = 65_536): Chunk[] {
  const out: Chunk[] = [];
  for (let at = 0, i = 0; at < data.length; at += size, i++) {
    out.push({ kind: i % 2 === 0 ? 'compressed' : 'raw', data: data.subarray(at, at + size) });
    if (i === 0) out.push({ kind: 'skip', type: 0xfe, data: new Uint8Array(3) });
  }
  return out;
}

const send = (url: string, method: string, path: string, body?: Uint8Array, headers?: Record<string, string>): Promise<PeerResponse> => rawSend(url, method, path, body, headers);

async function both(method: string, path: string, body: Uint8Array, headers: Record<string, string>): Promise<{ status: number; text: string; lines: string[] }[]> {
  const out = [];
  for (const url of [pg().url, portico?.url as string]) {
    const r = await send(url, method, path, body, headers);
    const job = /\/job\/([^/]+)/.exec(path)?.[1] ?? '';
    const lines = (await send(url, 'GET', '/metrics')).text.split('\n').filter((l) => l.includes(`job="${job}"`) && !l.startsWith('push_'));
    await send(url, 'DELETE', `/metrics/job/${job}`);
    // protobuf-go writes a space or a no-break space after "proto:", chosen per binary (docs/pushgateway.md).
    out.push({ status: r.status, text: r.text.replace('proto:\u00a0', 'proto: '), lines });
  }
  return out;
}

const TEXT = Buffer.from('# HELP snappy_things Things.\n# TYPE snappy_things counter\nsnappy_things{a="1"} 3\nsnappy_things{a="2"} 4.5\n# TYPE snappy_g gauge\nsnappy_g 1e+06\n');
const FAMILIES: MetricFamily[] = [
  { name: 'snappy_proto', help: 'P.', type: 'gauge', metrics: [{ labels: [['k', 'v']], value: 2 }, { labels: [['k', 'w']], value: -1 }] },
  { name: 'snappy_hist', help: 'H.', type: 'histogram', metrics: [{ labels: [], histogram: { sampleCount: 3, sampleSum: 1.5, buckets: [{ upperBound: 1, cumulativeCount: 2 }] } }] },
];
const PROTO = Buffer.from(encodeProtobufDelimited(FAMILIES));
/** A text body of about 150 KB: three data chunks. */
const BIG_TEXT = Buffer.from(Array.from({ length: 4000 }, (_, i) => `snappy_big{i="${i}",pad="${'x'.repeat(20)}"} ${i}\n`).join(''));

describe('Content-Encoding: snappy push bodies, as Pushgateway 1.11.1 reads them', () => {
  it.each([
    ['text', TEXT, 'text/plain; version=0.0.4', 'snappy'],
    ['text, encoding name in capitals', TEXT, 'text/plain', 'Snappy'],
    ['protobuf', PROTO, PROTOBUF_CONTENT_TYPE, 'snappy'],
    ['text in three chunks (compressed, raw, compressed) with padding', BIG_TEXT, 'text/plain', 'snappy'],
  ])('accepts a %s body and stores the same', async (_what, data, contentType, encoding) => {
    const [theirs, ours] = await both('PUT', '/metrics/job/snappy_ok', frames(chunked(data)), { 'Content-Type': contentType, 'Content-Encoding': encoding });
    expect(ours).toEqual(theirs);
    expect(ours?.status).toBe(200);
    expect(ours?.lines.length).toBeGreaterThan(2);
  });

  it.each([
    ['an empty body', Buffer.alloc(0)],
    ['only the stream identifier', frames([])],
    ['a data chunk before the stream identifier', chunkBytes(0x01, withCrc(TEXT, TEXT))],
    ['a wrong checksum', Buffer.concat([frames([]), chunkBytes(0x01, Buffer.concat([Buffer.alloc(4), TEXT]))])],
    ['a reserved unskippable chunk', Buffer.concat([frames([{ kind: 'raw', data: TEXT }]), chunkBytes(0x02, Buffer.alloc(2))])],
    ['a chunk longer than the reader buffer', Buffer.concat([frames([]), Buffer.from([0x80, 0xff, 0xff, 0x01])])],
    ['a good chunk, then a damaged one', Buffer.concat([frames([{ kind: 'raw', data: TEXT }]), chunkBytes(0x00, Buffer.from([1, 2, 3, 4, 5, 6]))])],
    ['a text error in the first chunk, a damaged second one', Buffer.concat([frames([{ kind: 'raw', data: Buffer.from('a b c\n') }]), chunkBytes(0x00, Buffer.from([1, 2, 3, 4, 5, 6]))])],
    ['a raw block of more than 64 KiB', frames([{ kind: 'raw', data: Buffer.alloc(65_537, 0x0a) }])],
  ])('answers %s alike', async (_what, body) => {
    for (const contentType of ['text/plain', PROTOBUF_CONTENT_TYPE]) {
      const [theirs, ours] = await both('PUT', '/metrics/job/snappy_edge', body, { 'Content-Type': contentType, 'Content-Encoding': 'snappy' });
      expect({ contentType, ...ours }).toEqual({ contentType, ...theirs });
    }
  });

  it('answers randomly damaged snappy bodies alike', async () => {
    const bodies = [
      { contentType: 'text/plain', data: frames(chunked(TEXT, 40)) },
      { contentType: PROTOBUF_CONTENT_TYPE, data: frames(chunked(PROTO, 30)) },
      { contentType: 'text/plain', data: frames([{ kind: 'compressed', data: TEXT }, { kind: 'skip', type: 0x99, data: Buffer.from('zz') }, { kind: 'compressed', data: TEXT }]) },
    ];
    const damage = fc.record({
      which: fc.nat(bodies.length - 1),
      edits: fc.array(fc.record({ at: fc.nat(), kind: fc.constantFrom('flip', 'cut', 'insert', 'delete'), byte: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 3 }),
    });
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(damage, async ({ which, edits }) => {
        const { contentType, data } = bodies[which] as { contentType: string; data: Buffer };
        let body = Buffer.from(data);
        for (const e of edits) {
          const at = e.at % Math.max(1, body.length);
          if (e.kind === 'flip') body[at] = (body[at] as number) ^ (e.byte || 1);
          else if (e.kind === 'cut') body = body.subarray(0, at);
          else if (e.kind === 'insert') body = Buffer.concat([body.subarray(0, at), Buffer.from([e.byte]), body.subarray(at)]);
          else body = Buffer.concat([body.subarray(0, at), body.subarray(at + 1)]);
        }
        const [theirs, ours] = await both('PUT', '/metrics/job/snappy_rand', body, { 'Content-Type': contentType, 'Content-Encoding': 'snappy' });
        if (theirs?.status !== 200) refused++;
        expect({ body: body.toString('hex'), contentType, ...ours }).toEqual({ body: body.toString('hex'), contentType, ...theirs });
      }),
      { numRuns: 150, seed: 20 },
    );
    expect(refused).toBeGreaterThan(50);
  });

  it('refuses a snappy body that decodes past --push.max-body-size with 413', async () => {
    const small = await listenGateway(['--push.max-body-size=1KiB'], TestClock.real());
    try {
      const r = await send(small.url, 'PUT', '/metrics/job/big', frames(chunked(BIG_TEXT)), { 'Content-Encoding': 'snappy' });
      expect({ status: r.status, text: r.text }).toEqual({ status: 413, text: 'push body exceeds the limit of 1024 bytes (after gzip or snappy decoding); see --push.max-body-size\n' });
    } finally {
      await small.app.close();
    }
    expect(() => decodeSnappyFrames(frames(chunked(BIG_TEXT)), 100_000)).toThrow(/exceeds the limit of 100000 bytes/);
  });
});

describe('compressed scrapes, negotiated as Pushgateway 1.11.1 negotiates them', () => {
  it.each(['gzip', 'GZIP', 'gzip;q=0', 'gzip; q=0.5, identity', 'identity;q=0.5, gzip', 'identity, gzip', 'gzip, identity', 'identity', '*', '*;q=0.9, gzip', 'br', 'zstd', 'snappy', 'deflate, gzip', 'x-gzip', 'gzip;q=1.0', 'gzip;q=.5', 'gzip;level=1', '*;q=0', ''])(
    'Accept-Encoding %j',
    async (acceptEncoding) => {
      const seen = [];
      for (const url of [pg().url, portico?.url as string]) {
        const r = await send(url, 'GET', '/metrics', undefined, acceptEncoding === '' ? {} : { 'Accept-Encoding': acceptEncoding });
        let decodedStart = '';
        try {
          decodedStart = (r.body[0] === 0x1f ? gunzipSync(r.body) : r.body).toString('utf8').slice(0, 7);
        } catch {
          decodedStart = 'undecodable';
        }
        seen.push({ status: r.status, gzipped: r.body[0] === 0x1f && r.body[1] === 0x8b, decodedStart });
      }
      expect(seen[1]).toEqual(seen[0]);
    },
  );
});
