import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/create-app.js';
import { BodyBuffers, BodyTooLargeError } from '../../../src/management/internal/body-buffers.js';
import { registerInternalRoutes } from '../../../src/management/internal/routes.js';
import { SNAPSHOT_LINES_MEDIA_TYPE } from '../../../src/dynamic-config/snapshot/lines.js';
import { silentLogger, storeWith } from '../helpers.js';

async function* pieces(...parts: string[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield Buffer.from(p);
}

describe('body buffers', () => {
  it('reads pieces into one buffer, and reads the next body into the one released', async () => {
    const buffers = new BodyBuffers();
    const first = await buffers.read('p', pieces('ab', 'cd', 'e'), 100);
    expect(first.toString()).toBe('abcde');
    buffers.release('p', first);
    const second = await buffers.read('p', pieces('xy'), 100, 2);
    expect(second.toString()).toBe('xy');
    expect(second.buffer).toBe(first.buffer);
    // Taken out while in use: another body at the same time gets its own.
    const third = await buffers.read('p', pieces('z'), 100);
    expect(third.buffer).not.toBe(second.buffer);
  });

  it('grows past the spare and refuses more than the limit', async () => {
    const buffers = new BodyBuffers();
    const big = 'x'.repeat(70_000);
    expect((await buffers.read('p', pieces(big, big), 1_000_000)).length).toBe(140_000);
    await expect(buffers.read('p', pieces('abc', 'def'), 5)).rejects.toThrow(BodyTooLargeError);
    await expect(buffers.read('p', pieces('abc'), 5, 6)).rejects.toThrow('Request body is too large');
  });

  it('never writes into a buffer it did not make', async () => {
    const buffers = new BodyBuffers();
    const pooled = Buffer.from('keep');
    buffers.release('p', pooled);
    await buffers.read('p', pieces('over'), 100);
    expect(pooled.toString()).toBe('keep');
  });

  it('answers a format 2 body over the limit with 413, as Fastify does', async () => {
    const store = storeWith({});
    const app = createApp('internal', silentLogger, { bodyLimit: 64 });
    registerInternalRoutes(app, { store, token: 't' });
    const res = await app.inject({
      method: 'PUT', url: '/internal/v1/providers/kubernetes', payload: `["configuration"]\t{"x":"${'y'.repeat(100)}"}`,
      headers: { authorization: 'Bearer t', 'content-type': SNAPSHOT_LINES_MEDIA_TYPE },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ message: 'Request body is too large' });
  });
});
