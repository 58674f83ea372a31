import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { badGzip, badGzipData, bodyTooLarge } from '../errors.js';
import { decodeSnappyFrames, type SnappyBody } from './snappy-frames.js';

/**
 * Reads a push body, gunzipping it when `Content-Encoding: gzip` (any case) is sent and decoding
 * the snappy framing format when `Content-Encoding: snappy`, and refuses it with 413 as soon as
 * either the bytes received or the bytes decoded pass `limit`: a gzip bomb is stopped after
 * `limit` decoded bytes instead of being inflated into memory. Other encodings are read raw, as
 * Pushgateway does. A damaged snappy body gives what decoded before the damage and the error
 * (see snappy-frames.ts); the push route decides which one answers.
 */
export async function readBody(stream: Readable, contentEncoding: string | undefined, limit: number): Promise<Buffer | SnappyBody> {
  const coding = contentEncoding?.trim().toLowerCase();
  if (coding === 'snappy') {
    const body = decodeSnappyFrames(await collect(stream, limit), limit);
    return body.error === undefined ? body.data : body;
  }
  if (coding !== 'gzip') return collect(stream, limit);
  const gunzip = createGunzip();
  let received = 0;
  stream.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) gunzip.destroy(bodyTooLarge(limit));
  });
  stream.on('error', (err) => gunzip.destroy(err));
  stream.pipe(gunzip);
  try {
    return await collect(gunzip, limit);
  } catch (err) {
    stream.unpipe(gunzip);
    gunzip.destroy();
    stream.resume();
    const code = (err as NodeJS.ErrnoException).code;
    // Go's gzip.NewReader reads a 10-byte header first: nothing gives "EOF", a short header
    // "unexpected EOF", a wrong one "gzip: invalid header" (Pushgateway answers these texts).
    if (code?.startsWith('Z_') && received === 0) throw badGzipData('EOF', false);
    if (code?.startsWith('Z_') && received < 10) throw badGzipData('unexpected EOF', false);
    if (code === 'Z_DATA_ERROR') {
      throw /header/i.test((err as Error).message) ? badGzip() : badGzipData((err as Error).message);
    }
    if (code === 'Z_BUF_ERROR') throw badGzipData('unexpected EOF', false);
    throw err;
  }
}

function collect(stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (err: Error) => {
      if (done) return;
      done = true;
      reject(err);
    };
    stream.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      // Past the limit the rest is read and dropped (not buffered), so the client still gets
      // its 413 rather than a reset connection.
      if (size > limit) {
        chunks.length = 0;
        fail(bodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    stream.on('error', fail);
    stream.on('end', () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
  });
}
