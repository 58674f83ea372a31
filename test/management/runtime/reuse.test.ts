import { describe, expect, it } from 'vitest';
import type { DynamicConfiguration } from '../../../src/dynamic-config/configuration.js';
import type { Service } from '../../../src/dynamic-config/http.js';
import { IncrementalRuntime } from '../../../src/management/runtime/incremental.js';
import {
  type Info, MiddlewareInfo, type ProviderInput, RouterInfo, type RuntimeConfiguration, ServiceInfo, TCPMiddlewareInfo, TCPRouterInfo, TCPServiceInfo,
  UDPRouterInfo, UDPServiceInfo,
} from '../../../src/management/runtime/records.js';
import { NOT_COMPARED, showsSame } from '../../../src/management/runtime/reuse.js';
import { RuntimeView } from '../../../src/management/view/runtime-view.js';
import { WEB } from '../helpers.js';

const prepared = { source: {}, config: {}, built: {}, service: '', middlewareRefs: [] };

/** One record of each class, every field set to something other than its default. */
const RECORDS: [keyof RuntimeConfiguration, Info][] = [
  ['routers', Object.assign(new RouterInfo('r@p', 'p', { rule: 'Host(`a`)', service: 's' }, 3n, prepared), { using: ['web'], splitFrom: 'x@p' })],
  ['services', Object.assign(new ServiceInfo('s@p', 'p', { loadBalancer: { servers: [{ url: 'http://a' }] } }, { 'http://a': 'DOWN' }), { usedBy: ['r@p'] })],
  ['middlewares', Object.assign(new MiddlewareInfo('m@p', 'p', { stripPrefix: { prefixes: ['/a'] } }), { usedBy: ['r@p'] })],
  ['tcpRouters', Object.assign(new TCPRouterInfo('t@p', 'p', { rule: 'HostSNI(`a`)', service: 's' }, 2n), { using: ['web'] })],
  ['tcpServices', Object.assign(new TCPServiceInfo('ts@p', 'p', { loadBalancer: { servers: [{ address: 'a:1' }] } }, { 'a:1': 'DOWN' }), { usedBy: ['t@p'] })],
  ['tcpMiddlewares', Object.assign(new TCPMiddlewareInfo('tm@p', 'p', { ipAllowList: { sourceRange: ['1.1.1.1'] } }), { usedBy: ['t@p'] })],
  ['udpRouters', Object.assign(new UDPRouterInfo('u@p', 'p', { entryPoints: ['dns'], service: 'us' }), { using: ['dns'] })],
  ['udpServices', Object.assign(new UDPServiceInfo('us@p', 'p', { loadBalancer: { servers: [{ address: 'b:53' }] } }), { usedBy: ['u@p'] })],
];
for (const [, info] of RECORDS) info.addError('some error', false);

/** A copy of a runtime record, field by field (new arrays and objects, equal values). */
function copyOf(info: Info): Info {
  return Object.assign(Object.create(Object.getPrototypeOf(info) as object) as Info, structuredClone({ ...info }));
}

/** A value of the same type as `v` that differs from it. */
function other(v: unknown): unknown {
  if (typeof v === 'string') return `${v}x`;
  if (typeof v === 'bigint') return v + 1n;
  if (v === undefined) return 'x';
  if (Array.isArray(v)) return [...(v as unknown[]), 'x'];
  return { ...(v as object), extra: 'UP' };
}

describe('reused runtime records', () => {
  it.each(RECORDS)('compares every shown field of a %s record', (key, info) => {
    expect(showsSame(key, info, copyOf(info))).toBe(true);
    const fields = Object.keys(info).filter((k) => !NOT_COMPARED.includes(k));
    // Every field the class has (a field added later included), not a hand-kept list.
    expect(fields.length).toBeGreaterThanOrEqual(6);
    for (const k of fields) {
      const changed = copyOf(info) as unknown as Record<string, unknown>;
      changed[k] = other(changed[k]);
      expect(showsSame(key, info, changed as unknown as Info), k).toBe(false);
    }
    // A nested difference in the configuration counts too.
    const deep = copyOf(info) as unknown as { config: Record<string, unknown> };
    const [first] = Object.keys(deep.config);
    deep.config[first as string] = other(deep.config[first as string]);
    expect(showsSame(key, info, deep as unknown as Info)).toBe(false);
  });

  it('leaves out only the per-record work and the lazily computed server status', () => {
    const keys = new Set(RECORDS.flatMap(([, info]) => Object.keys(info)));
    expect(NOT_COMPARED.filter((k) => keys.has(k)).sort()).toEqual(['prepared', 'status_']);
  });

  type Http = Required<Pick<NonNullable<DynamicConfiguration['http']>, 'routers' | 'services' | 'middlewares'>>;
  const base = (): Http => {
    const http = { routers: {}, services: {}, middlewares: {} } as Http;
    for (let i = 0; i < 20; i++) {
      http.routers[`r${i}`] = { rule: `Host(\`h${i}\`)`, service: `s${i}`, ...(i % 5 === 0 ? { middlewares: ['m'] } : {}) };
      http.services[`s${i}`] = { loadBalancer: { servers: [{ url: `http://10.0.0.${i}:80` }], passHostHeader: true } };
    }
    http.middlewares.m = { stripPrefix: { prefixes: ['/a'] } };
    // A weighted service, whose status follows its child's.
    http.routers.rw = { rule: 'Host(`w`)', service: 'w' };
    http.services.w = { weighted: { services: [{ name: 'child', weight: 1 }] } };
    http.services.child = { loadBalancer: { servers: [{ url: 'http://10.1.0.1:80' }] } };
    return http;
  };

  /** Every entry's JSON, the sorted orders and rawdata. */
  function served(v: RuntimeView): string {
    const parts = [v.rawdata().toString()];
    for (const kind of [v.http.routers, v.http.services, v.http.middlewares]) {
      parts.push(...kind.entries.map((e) => e.json), kind.ascending(kind.kind === 'routers' ? 'priority' : 'type').map((e) => e.name).join());
    }
    return parts.join('\n');
  }

  /**
   * Applies `edit` to one copy of the base records, the unchanged ones kept as the same objects
   * (as an operator's snapshot lines give them), incrementally: the view it serves, the one before
   * and one computed afresh.
   */
  function incremental(edit: (c: Http) => void, serverStatus?: ProviderInput['serverStatus']) {
    const inc = new IncrementalRuntime([WEB]);
    const http = base();
    const before = new RuntimeView(inc.compute([{ provider: 'p', configuration: { http } }]), [WEB], []);
    served(before);
    inc.prepare();
    const next = { routers: { ...http.routers }, services: { ...http.services }, middlewares: { ...http.middlewares } };
    edit(next);
    const input: ProviderInput = { provider: 'p', configuration: { http: next }, ...(serverStatus ? { serverStatus } : {}) };
    const after = new RuntimeView(inc.compute([input]), [WEB], [], before, inc.lastChanges);
    expect(inc.lastRecomputed).toBeGreaterThan(0);
    const fresh = new RuntimeView(new IncrementalRuntime([WEB]).compute([structuredClone(input)]), [WEB], []);
    return { before, after, fresh, names: inc.lastChanges?.names };
  }

  it('keeps a recomputed record that shows what it showed, with its view entry', () => {
    // s3 replaced by an equal new object: s3 and r3 are recomputed, and both show the same.
    const { before, after, fresh, names } = incremental((c) => { c.services.s3 = structuredClone(c.services.s3 as Service); });
    expect(after.http.services.get('s3@p')).toBe(before.http.services.get('s3@p'));
    expect(after.http.routers.get('r3@p')).toBe(before.http.routers.get('r3@p'));
    // Nothing listed as changed: the kinds' views are the previous ones, sorted orders included.
    expect(names?.size).toBe(0);
    expect(after.http.services).toBe(before.http.services);
    expect(served(after)).toBe(served(fresh));
  });

  it('never serves a record whose input or cross-check results changed from the record it replaces', () => {
    const changes: [string, string, (c: Http) => void][] = [
      ['a server URL', 's3@p', (c) => { c.services.s3 = { loadBalancer: { servers: [{ url: 'http://10.9.9.9:80' }], passHostHeader: true } }; }],
      ['a field\'s value', 's3@p', (c) => { c.services.s3 = { loadBalancer: { servers: [{ url: 'http://10.0.0.3:80' }], passHostHeader: false } }; }],
      ['the key order', 's3@p', (c) => { c.services.s3 = { loadBalancer: { passHostHeader: true, servers: [{ url: 'http://10.0.0.3:80' }] } }; }],
      ['its users', 's4@p', (c) => { c.routers.r3 = { ...c.routers.r3, service: 's4' }; }],
      ['its status alone (a child gone)', 'w@p', (c) => { delete c.services.child; }],
      ['a middleware\'s users', 'm@p', (c) => { c.routers.r1 = { ...c.routers.r1, middlewares: ['m'] }; }],
      ['a router\'s errors (its middleware gone)', 'r5@p', (c) => { delete c.middlewares.m; }],
    ];
    for (const [what, name, edit] of changes) {
      const { before, after, fresh } = incremental(edit);
      const kind = name.startsWith('r') ? 'routers' : name.startsWith('m') ? 'middlewares' : 'services';
      expect(after.http[kind].get(name), what).not.toBe(before.http[kind].get(name));
      expect(served(after), what).toBe(served(fresh));
      // The records the change did not alter are kept.
      expect(after.http.services.get('s10@p'), what).toBe(before.http.services.get('s10@p'));
    }
    // The server states a provider gives for a service are an input too.
    const { before, after, fresh } = incremental((c) => { c.services.s3 = structuredClone(c.services.s3 as Service); }, { s3: { 'http://10.0.0.3:80': 'DOWN' } });
    expect(after.http.services.get('s3@p')).not.toBe(before.http.services.get('s3@p'));
    expect(after.http.services.get('s3@p')?.json).toContain('"DOWN"');
    expect(served(after)).toBe(served(fresh));
  });
});
