import { describe, expect, it } from 'vitest';
import { computeRuntime, type EntryPointDef } from '../../../src/management/runtime/runtime.js';
import { ruleDomains } from '../../../src/management/runtime/rule-domains.js';

const EPS: EntryPointDef[] = [
  { name: 'web', address: ':80', protocol: 'tcp', isDefault: true },
  { name: 'websecure', address: ':443', protocol: 'tcp', isDefault: true },
];

describe('ruleDomains (Traefik\'s ParseDomains)', () => {
  it('finds the positive Host values, lower-cased', () => {
    expect(ruleDomains('Host(`A.test`) && PathPrefix(`/api`)')).toEqual(['a.test']);
    expect(ruleDomains('(Host(`a.test`) || Host("b.test", `c.test`)) && Path(`/y`)')).toEqual(['a.test', 'b.test', 'c.test']);
    expect(ruleDomains('host(`x`) || HOST(`y`) || Host(`z`)')).toEqual(['x', 'y', 'z']);
  });

  it('leaves negated hosts out, and counts a double negation as positive', () => {
    expect(ruleDomains('!Host(`b.test`)')).toEqual([]);
    expect(ruleDomains('!(Host(`a`) && Path(`/`))')).toEqual([]);
    expect(ruleDomains('!!Host(`a`)')).toEqual(['a']);
  });

  it('finds no host in rules of other matchers (HostRegexp and the v2 HostHeader included)', () => {
    expect(ruleDomains('ClientIP(`10.0.0.0/8`)')).toEqual([]);
    expect(ruleDomains('Path(`/x`) || Method(`POST`)')).toEqual([]);
    expect(ruleDomains('HostRegexp(`^[a-z]+\\.test$`)')).toEqual([]);
    expect(ruleDomains('HostHeader(`a`)')).toEqual([]);
  });

  it('gives undefined for rules that do not parse', () => {
    for (const rule of ['', 'Host(`a.test`) &&', 'Host(`a.test`', 'Nope(`a`)', 'Host(a)', "Host('a')", 'Host("\\.")', 'Host(`a`) Path(`/`)', 'Host(`a`) & Path(`/`)']) {
      expect(ruleDomains(rule), rule).toBeUndefined();
    }
  });
});

describe('TLS options resolved per entry point', () => {
  const names = (rule: string, tls: object, entryPoints?: string[]) => {
    const rt = computeRuntime([{ provider: 'file', configuration: { http: { routers: { r: { rule, service: 's', tls, ...(entryPoints ? { entryPoints } : {}) } }, services: { s: { loadBalancer: { servers: [] } } } } } }], EPS);
    return { rt, names: [...rt.routers.keys()] };
  };

  it('replaces a router with options other than default and no host by one copy per entry point', () => {
    const { rt, names: n } = names('Path(`/x`)', { options: 'strict' });
    expect(n).toEqual(['web-conflicted-r@file', 'websecure-conflicted-r@file']);
    const copy = rt.routers.get('web-conflicted-r@file');
    expect(copy?.config.entryPoints).toEqual(['web']);
    expect(copy?.config.tls).toEqual({ options: 'strict' });
    expect(copy?.status).toBe('warning');
    expect(copy?.errors).toEqual(['no domain found in rule Path(`/x`), the TLS option strict@file cannot be applied']);
    expect(rt.services.get('s@file')?.usedBy).toEqual(['web-conflicted-r@file', 'websecure-conflicted-r@file']);
  });

  it('copies a router for unknown entry points too, where the copy is disabled', () => {
    const { rt, names: n } = names('Path(`/x`)', { options: 'strict' }, ['web', 'nope']);
    expect(n).toEqual(['web-conflicted-r@file', 'nope-conflicted-r@file']);
    expect(rt.routers.get('nope-conflicted-r@file')?.status).toBe('disabled');
  });

  it('keeps routers with a host, with the default options, without options, or whose rule does not parse', () => {
    expect(names('Host(`a`)', { options: 'strict' }).names).toEqual(['r@file']);
    expect(names('Path(`/x`)', { options: 'default' }).names).toEqual(['r@file']);
    expect(names('Path(`/x`)', {}).names).toEqual(['r@file']);
    expect(names('Path(`/x`', { options: 'strict' }).names).toEqual(['r@file']);
  });
});
