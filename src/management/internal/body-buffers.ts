/**
 * Request bodies read into buffers that are used again, one spare per key (a provider): an
 * operator PUTs a 6 MB snapshot per change, and a new buffer for each (Fastify's `parseAs:
 * 'buffer'` concatenates the pieces into one) adds as much external memory, which is what makes
 * V8 run its full collections every few changes. The decoder keeps the body it accepted last;
 * once it takes a newer one it hands the older one back here as the next spare.
 */

/** A body too large for the limit: Fastify's own code and status, so it is answered as Fastify would. */
export class BodyTooLargeError extends Error {
  readonly statusCode = 413;
  readonly code = 'FST_ERR_CTP_BODY_TOO_LARGE';
  constructor() {
    super('Request body is too large');
  }
}

export class BodyBuffers {
  private readonly spares = new Map<string, Buffer>();
  /** Backing stores allocated here: only those are ever written again (never a pooled slice). */
  private readonly owned = new WeakSet<ArrayBufferLike>();

  /**
   * Reads a body into the key's spare buffer (taken out while in use), or a new one.
   * @param expected the announced length in bytes, if any (the buffer is made that large at once)
   * @param limit most bytes accepted
   * @param received called after each piece with the buffer and the bytes in it so far (the
   *   buffer changes when it grows), so that they can be looked at before the body is whole
   * @returns the body: a view of the buffer's first bytes
   */
  async read(
    key: string, chunks: AsyncIterable<Buffer | string>, limit: number, expected?: number, received?: (buf: Buffer, length: number) => void,
  ): Promise<Buffer> {
    if (expected !== undefined && expected > limit) throw new BodyTooLargeError();
    let buf = this.spares.get(key);
    this.spares.delete(key);
    if (expected !== undefined && (buf === undefined || buf.length < expected)) buf = this.allocate(expected);
    let length = 0;
    for await (const piece of chunks) {
      const chunk = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
      if (length + chunk.length > limit) throw new BodyTooLargeError();
      if (buf === undefined || length + chunk.length > buf.length) {
        const bigger = this.allocate(Math.min(limit, Math.max(length + chunk.length, (buf?.length ?? 0) * 2, 64 * 1024)));
        buf?.copy(bigger, 0, 0, length);
        buf = bigger;
      }
      chunk.copy(buf, length);
      length += chunk.length;
      received?.(buf, length);
    }
    return (buf ?? this.allocate(0)).subarray(0, length);
  }

  /** The key's spare when it holds `size` bytes (taken out), else a new buffer; for a body made here. */
  take(key: string, size: number): Buffer {
    const spare = this.spares.get(key);
    if (spare !== undefined && spare.length >= size) {
      this.spares.delete(key);
      return spare;
    }
    return this.allocate(size);
  }

  /** Takes back a body no longer used by anyone, as the key's next spare (a larger spare is kept). */
  release(key: string, body: Buffer | undefined): void {
    if (body === undefined || body.byteOffset !== 0 || !this.owned.has(body.buffer)) return;
    const whole = Buffer.from(body.buffer, 0, body.buffer.byteLength);
    const spare = this.spares.get(key);
    if (spare === undefined || spare.length < whole.length) this.spares.set(key, whole);
  }

  /** Forgets a key's spare (its provider was removed). */
  forget(key: string): void {
    this.spares.delete(key);
  }

  private allocate(size: number): Buffer {
    // Its own backing store, so that a released body can be written again without touching
    // anything else.
    const buf = Buffer.allocUnsafeSlow(size);
    this.owned.add(buf.buffer);
    return buf;
  }
}
