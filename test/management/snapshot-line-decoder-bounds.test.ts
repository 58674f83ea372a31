import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/create-app.js';
import { registerInternalRoutes } from '../../src/management/internal/routes.js';
import { SNAPSHOT_LINES_MEDIA_TYPE, SnapshotLineDecoder } from '../../src/dynamic-config/snapshot/lines.js';
import { silentLogger, storeWith } from './helpers.js';

// A path's canonical JSON can be longer than its bytes as written: each byte of invalid UTF-8
// decodes to U+FFFD, three bytes in JSON.stringify's text. The decoder's path-from-bytes
// shortcut must not read past the body for it (it did: RangeError, a 500 for the PUT).
const bad = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]);
const line = (last: string) => Buffer.concat([Buffer.from('["configuration","http","routers",'), Buffer.from('"'), bad, Buffer.from(`",${last}]\t{}`)]);

describe('snapshot line decoder: invalid UTF-8 in a path (review)', () => {
  it('decodes a last line whose canonical path is longer than its bytes as a decoding of its text does', () => {
    const body = Buffer.concat([Buffer.from('["version"]\t"v1"\n'), Buffer.concat([Buffer.from('["'), bad, Buffer.from('",""]\t1')])]);
    expect(new SnapshotLineDecoder().decode(body).value).toEqual({ version: 'v1', ['\ufffd'.repeat(5)]: { '': 1 } });
  });

  it('answers such a body on the internal endpoint as before (400 naming the path, not a 500)', async () => {
    const store = storeWith({});
    const app = createApp('internal', silentLogger, { bodyLimit: 1024 * 1024 });
    registerInternalRoutes(app, { store, token: 't' });
    const body = Buffer.concat([Buffer.from('["version"]\t"v1"\n'), line('""')]);
    const res = await app.inject({
      method: 'PUT', url: '/internal/v1/providers/kubernetes', payload: body,
      headers: { authorization: 'Bearer t', 'content-type': SNAPSHOT_LINES_MEDIA_TYPE },
    });
    // As main answers it: the record's bad field named (the branch answered 500 internal server error).
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toBe(`configuration.http.routers[${JSON.stringify('\ufffd'.repeat(5))}][""] is not a known field (expected one of: entryPoints, middlewares, service, rule, parentRefs, ruleSyntax, priority, tls, observability)`);
  });
});
