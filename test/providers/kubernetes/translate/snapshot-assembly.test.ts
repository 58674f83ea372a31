import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SnapshotLineEncoder } from '../../../../src/dynamic-config/snapshot/lines.js';
import { SnapshotAssembly, type SnapshotBody } from '../../../../src/providers/kubernetes/translate/snapshot-assembly.js';
import { ConfigBuilder } from '../../../../src/providers/kubernetes/translate/shared/translation-types.js';

// The assembly's body after any sequence of patches is the body of the snapshot merged from
// scratch (objects in key order), line for line; its version follows the content.

function fragment(key: string, variant: number): ConfigBuilder {
  const b = new ConfigBuilder();
  const name = `${key}-r${variant}`;
  b.httpRouters[name] = { rule: `Host(\`${name}\`)`, service: name };
  if (variant % 2 === 0) b.httpServices[name] = { loadBalancer: { servers: [{ url: `http://10.0.0.${variant}:80` }] } };
  if (variant % 3 === 0) b.serverStatus[name] = { [`http://10.0.0.${variant}:80`]: 'UP' };
  if (variant % 5 === 0) b.tcpRouters[name] = { rule: 'HostSNI(`*`)', service: name };
  // Most objects name their source (the snapshot's `sources`), some do not.
  if (variant % 4 !== 1) b.source = { apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', namespace: 'default', name: key, resourceVersion: String(variant) };
  return b;
}

function merged(objects: Map<string, ConfigBuilder>): ConfigBuilder {
  const out = new ConfigBuilder();
  for (const key of [...objects.keys()].sort()) {
    const f = objects.get(key) as ConfigBuilder;
    for (const table of ['httpRouters', 'httpServices', 'httpMiddlewares', 'tcpRouters', 'tcpServices', 'tcpMiddlewares', 'udpRouters', 'udpServices'] as const) {
      Object.assign(out[table], f[table]);
      for (const name in f[table]) out.noteSource(table, name, f);
    }
    Object.assign(out.serverStatus, f.serverStatus);
  }
  return out;
}

function expectedLines(objects: Map<string, ConfigBuilder>): string[] {
  const s = merged(objects).build();
  return [...new SnapshotLineEncoder().encodeSnapshot(s).lines];
}

function bodyLines(body: SnapshotBody): string[] {
  return Buffer.concat(body.chunks).toString('utf8').split('\n').slice(1).filter((l) => l !== '');
}

describe('snapshot assembly', () => {
  it('lays out any sequence of inserts, changes and deletes as the full merge does', () => {
    const op = fc.record({ key: fc.nat(299), variant: fc.nat(30), remove: fc.boolean() });
    fc.assert(fc.property(fc.nat(200), fc.array(op, { minLength: 1, maxLength: 400 }), (initial, ops) => {
      const objects = new Map<string, ConfigBuilder>();
      for (let i = 0; i < initial; i++) objects.set(`k${String(i * 3).padStart(4, '0')}`, fragment(`k${String(i * 3).padStart(4, '0')}`, i % 30));
      const assembly = new SnapshotAssembly<string>();
      const keys = [...objects.keys()].sort();
      assembly.rebuild(keys.map((key) => ({ key, records: objects.get(key) as ConfigBuilder, data: key })), merged(objects).build());
      expect(bodyLines(assembly.body())).toEqual(expectedLines(objects));
      let version = assembly.body().version;
      let previous = bodyLines(assembly.body()).join('\n');
      for (const { key: n, variant, remove } of ops) {
        const key = `k${String(n * 2).padStart(4, '0')}`;
        const records = remove ? undefined : fragment(key, variant);
        if (!records && !objects.has(key)) continue;
        expect(assembly.patch([{ key, records, data: records ? key : undefined }])).toBe(true);
        if (records) objects.set(key, records);
        else objects.delete(key);
        const body = assembly.body();
        const text = bodyLines(body).join('\n');
        expect(text).toBe(expectedLines(objects).join('\n'));
        // The version is a content hash: it moves exactly when the content does.
        expect(body.version === version).toBe(text === previous);
        version = body.version;
        previous = text;
      }
      expect(bodyLines(assembly.body())).toEqual(expectedLines(objects));
      const order: string[] = [];
      assembly.forEach((k) => order.push(k));
      expect(order).toEqual([...objects.keys()].sort());
    }), { numRuns: 60 });
  });

  it('refuses, untouched, a change whose names another object defines', () => {
    const a = fragment('a', 2);
    const b = fragment('b', 2);
    const assembly = new SnapshotAssembly<string>();
    const objects = new Map([['a', a], ['b', b]]);
    assembly.rebuild([{ key: 'a', records: a, data: 'a' }, { key: 'b', records: b, data: 'b' }], merged(objects).build());
    const before = assembly.body();
    expect(assembly.patch([{ key: 'c', records: fragment('a', 2), data: 'c' }])).toBe(false);
    expect(assembly.patch([{ key: 'b', records: fragment('b', 4), data: 'b' }, { key: 'c', records: fragment('b', 4), data: 'c' }])).toBe(false);
    expect(assembly.body()).toBe(before);
    expect(assembly.patch([{ key: 'b', records: fragment('b', 4), data: 'b' }])).toBe(true);
    expect(assembly.body().version).not.toBe(before.version);
  });
});
