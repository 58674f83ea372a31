import { describe, expect, it } from 'vitest';
import type { ProviderSnapshot } from '../../../src/dynamic-config/configuration.js';
import { FileProvider, type Timers } from '../../../src/providers/file/file-provider.js';
import { silentLogger } from '../../management/helpers.js';

/** Manual timers: `fire()` runs whatever is due, as if the debounce delay had passed. */
function manualTimers() {
  let next = 0;
  const pending = new Map<number, () => void>();
  const timers: Timers = {
    setTimeout: (fn) => {
      next++;
      pending.set(next, fn);
      return next;
    },
    clearTimeout: (h) => {
      pending.delete(h as number);
    },
  };
  return { timers, pending, fire: () => { const fns = [...pending.values()]; pending.clear(); fns.forEach((f) => f()); } };
}

function harness(initial: string | null) {
  const files = new Map<string, string>();
  let content: string | null = initial;
  const applied: ProviderSnapshot[] = [];
  let trigger: () => void = () => undefined;
  let closed = false;
  const t = manualTimers();
  const provider = new FileProvider({
    filename: '/etc/portico/dynamic.yaml',
    sink: { set: (_p, s) => applied.push(s) },
    logger: silentLogger,
    timers: t.timers,
    readFile: async () => {
      if (content === null) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return content;
    },
    watchDirectory: (_dir, onEvent) => {
      trigger = onEvent;
      return () => {
        closed = true;
      };
    },
  });
  return {
    provider, applied, files, t,
    write: (text: string | null) => { content = text; },
    event: () => trigger(),
    isClosed: () => closed,
  };
}

const GOOD = 'http:\n  routers:\n    r:\n      rule: Path(`/`)\n      service: s\n  services:\n    s:\n      loadBalancer:\n        servers:\n          - url: http://a\n';
const GOOD2 = GOOD.replace('http://a', 'http://b');

describe('file provider', () => {
  it('loads the file at start with Traefik\'s load-balancer defaults', async () => {
    const h = harness(GOOD);
    await h.provider.start();
    expect(h.applied).toHaveLength(1);
    expect(h.applied[0]?.configuration.http?.services?.s?.loadBalancer).toEqual({
      servers: [{ url: 'http://a' }], strategy: 'wrr', passHostHeader: true, responseForwarding: { flushInterval: '100ms' },
    });
    expect(h.provider.lastError).toBeUndefined();
  });

  it('reloads after the debounce when the directory changes, once for a burst of events', async () => {
    const h = harness(GOOD);
    await h.provider.start();
    h.write(GOOD2);
    h.event();
    h.event();
    h.event();
    expect(h.t.pending.size).toBe(1);
    h.t.fire();
    await h.provider.reload();
    expect(h.applied).toHaveLength(2);
    expect(h.applied[1]?.configuration.http?.services?.s?.loadBalancer?.servers).toEqual([{ url: 'http://b' }]);
  });

  it('ignores events that leave the content unchanged', async () => {
    const h = harness(GOOD);
    await h.provider.start();
    h.event();
    h.t.fire();
    await h.provider.reload();
    expect(h.applied).toHaveLength(1);
  });

  it('keeps the last good snapshot on a bad file and reports the error, then recovers', async () => {
    const h = harness(GOOD);
    await h.provider.start();
    h.write('http:\n  routers: [oops');
    await h.provider.reload();
    expect(h.applied).toHaveLength(1);
    expect(h.provider.lastError).toMatch(/^dynamic\.yaml is not valid YAML: /);
    h.write('http:\n  routers:\n    r:\n      priority: high\n');
    await h.provider.reload();
    expect(h.provider.lastError).toBe('dynamic.yaml: configuration.http.routers.r.priority must be an integer, got string "high"');
    expect(h.applied).toHaveLength(1);
    h.write(GOOD);
    await h.provider.reload();
    expect(h.provider.lastError).toBeUndefined();
    expect(h.applied).toHaveLength(2);
  });

  it('reports a missing file and picks it up when it appears', async () => {
    const h = harness(null);
    await h.provider.start();
    expect(h.applied).toHaveLength(0);
    expect(h.provider.lastError).toBe('/etc/portico/dynamic.yaml does not exist');
    h.write(GOOD);
    h.event();
    h.t.fire();
    await h.provider.reload();
    expect(h.applied).toHaveLength(1);
  });

  it('applies an empty file as an empty configuration', async () => {
    const h = harness('');
    await h.provider.start();
    expect(h.applied[0]?.configuration).toEqual({});
  });

  it('stops watching and cancels a pending reload', async () => {
    const h = harness(GOOD);
    await h.provider.start();
    h.event();
    h.provider.stop();
    expect(h.isClosed()).toBe(true);
    expect(h.t.pending.size).toBe(0);
  });
});
