import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/create-app.js';
import { listenOn } from '../../src/http/listen.js';

describe('graceful close', () => {
  it('finishes a request in flight before the app closes, and refuses new connections after', async () => {
    const app = createApp('test', pino({ level: 'silent' }));
    let release: () => void = () => undefined;
    const started = new Promise<void>((resolveStarted) => {
      app.get('/slow', async () => {
        resolveStarted();
        await new Promise<void>((r) => (release = r));
        return { done: true };
      });
    });
    const port = await listenOn(app, { host: '127.0.0.1', port: 0 });
    const inFlight = fetch(`http://127.0.0.1:${port}/slow`);
    await started;
    const closed = app.close();
    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closed;
    await expect(fetch(`http://127.0.0.1:${port}/slow`)).rejects.toThrow();
  });
});
