import { describe, expect, it } from 'vitest';
import { QualifiedNames } from '../../../src/management/runtime/qualified-names.js';
import { RouterMemo } from '../../../src/management/runtime/router-memo.js';
import { computeRuntime } from '../../../src/management/runtime/runtime.js';

const EPS = [{ name: 'web', address: ':80', protocol: 'tcp' as const, isDefault: true }];

describe('QualifiedNames', () => {
  it('qualifies as Traefik does and gives the same value after starting afresh', () => {
    const names = new QualifiedNames(2);
    expect(names.qualify('svc', 'file')).toBe('svc@file');
    expect(names.qualify('svc@other', 'file')).toBe('svc@other');
    expect(names.of('a', 'p')).toBe('a@p');
    // Over the limit: the cache starts afresh, the values stay right.
    expect(names.of('b', 'p')).toBe('b@p');
    expect(names.of('svc', 'file')).toBe('svc@file');
  });

  it('gives the same records from one computation to the next through a memo', () => {
    const memo = new RouterMemo();
    const input = (rule: string) => ({
      provider: 'kubernetes',
      configuration: { http: { routers: { r: { rule, service: 'svc' } }, services: { svc: { loadBalancer: { servers: [{ url: 'http://a' }] } } } } },
    });
    computeRuntime([input('Host(`a`)')], EPS, {}, memo);
    const second = computeRuntime([input('Host(`b`)')], EPS, {}, memo);
    expect(second.services.get('svc@kubernetes')?.usedBy).toEqual(['r@kubernetes']);
    expect(second.routers.get('r@kubernetes')?.status).toBe('enabled');
    expect(second.routers.get('r@kubernetes')?.prepared.service).toBe('svc@kubernetes');
    expect([...second.routers.keys()]).toEqual(['r@kubernetes']);
  });
});
