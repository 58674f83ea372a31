import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Secret } from '../../../../../src/providers/kubernetes/client/kube-objects.js';
import { authUsers, slimSecret } from '../../../../../src/providers/kubernetes/translate/shared/secret-credentials.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const secret = (type: string, data: Record<string, string>): Secret => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns', uid: 'u', resourceVersion: '7', labels: { a: 'b' } }, type,
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});

describe('authUsers (Traefik\'s rules for basicAuth/digestAuth secrets)', () => {
  it('turns a kubernetes.io/basic-auth secret into one {SHA} htpasswd line, never the plain password', () => {
    const sum = createHash('sha1').update('pa:ss word').digest('base64');
    const result = authUsers('basicAuth', 'ns', 's', secret('kubernetes.io/basic-auth', { username: 'bob', password: 'pa:ss word' }));
    expect(result).toEqual({ users: [`bob:{SHA}${sum}`] });
    expect(JSON.stringify(result)).not.toContain('pa:ss word');
  });

  it('reads the single key of any other secret as lines, for digestAuth too', () => {
    expect(authUsers('digestAuth', 'ns', 's', secret('Opaque', { whatever: 'a:r:h1\r\n\nb:r:h2' }))).toEqual({ users: ['a:r:h1', 'b:r:h2'] });
    // digestAuth does not special-case basic-auth secrets: two keys are two elements.
    expect(authUsers('digestAuth', 'ns', 's', secret('kubernetes.io/basic-auth', { username: 'a', password: 'b' })).error?.message)
      .toBe("failed to load digest auth credentials: found 2 elements for secret 'ns/s', must be single element exactly");
  });

  it('gives Traefik\'s errors', () => {
    expect(authUsers('basicAuth', 'ns', '', undefined).error).toEqual({ reason: 'InvalidSecret', message: 'auth secret must be set' });
    expect(authUsers('basicAuth', 'ns', 's', undefined).error).toEqual({ reason: 'SecretNotFound', message: "secret 'ns/s' not found" });
    expect(authUsers('basicAuth', 'ns', 's', secret('kubernetes.io/basic-auth', { username: 'a' })).error?.message)
      .toBe("failed to load basic auth credentials: secret 'ns/s' must contain both username and password keys");
    expect(authUsers('basicAuth', 'ns', 's', secret('Opaque', {})).error?.message)
      .toBe("failed to load basic auth credentials: found 0 elements for secret 'ns/s', must be single element exactly");
    expect(authUsers('basicAuth', 'ns', 's', secret('Opaque', { users: '\n\r\n' })).error?.message)
      .toBe("failed to load basic auth credentials: secret 'ns/s' does not contain any credentials");
  });

  it('property: the non-empty lines of the key come back in order, whatever the line endings', () => {
    const line = fc.string({ minLength: 1 }).filter((s) => !s.includes('\n') && !s.endsWith('\r'));
    fc.assert(fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), fc.constantFrom('\n', '\r\n', '\n\n'), (lines, eol) => {
      const result = authUsers('basicAuth', 'ns', 's', secret('', { users: lines.join(eol) + eol }));
      expect(result.users).toEqual(lines);
    }));
  });
});

describe('slimSecret', () => {
  it('keeps only identity, type, key names and the values credentials come from', () => {
    const tls = slimSecret(secret('kubernetes.io/tls', { 'tls.crt': 'CERT', 'tls.key': 'KEY' }));
    expect(tls).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns', uid: 'u', resourceVersion: '7' }, type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } });
    const basic = slimSecret(secret('kubernetes.io/basic-auth', { username: 'u', password: 'p', extra: 'x' }));
    expect(basic.data).toEqual({ username: b64('u'), password: b64('p'), extra: '' });
    expect(slimSecret(secret('Opaque', { users: 'a:b' })).data).toEqual({ users: b64('a:b') });
    expect(slimSecret(secret('Opaque', { a: '1', b: '2' })).data).toEqual({ a: '', b: '' });
  });

  it('property: credentials read from the slim secret equal those read from the full one', () => {
    const type = fc.constantFrom('', 'Opaque', 'kubernetes.io/basic-auth', 'kubernetes.io/tls', 'helm.sh/release.v1');
    const data = fc.dictionary(fc.constantFrom('users', 'username', 'password', 'x'), fc.string({ maxLength: 40 }), { maxKeys: 3 });
    fc.assert(fc.property(type, data, fc.constantFrom('basicAuth' as const, 'digestAuth' as const), (t, d, kind) => {
      const full = secret(t, d);
      expect(authUsers(kind, 'ns', 's', slimSecret(full))).toEqual(authUsers(kind, 'ns', 's', { ...full, type: t }));
    }));
  });
});
