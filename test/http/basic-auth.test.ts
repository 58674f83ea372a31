import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { BasicAuthVerifier, parseBasicAuthorization } from '../../src/http/basic-auth.js';
import { parseHtpasswd, parseWebConfig, UsersFileError } from '../../src/http/users-file.js';

const hash = bcrypt.hashSync('s3cret', 4);

describe('parseBasicAuthorization', () => {
  it('decodes user and password, keeping colons in the password', () => {
    const header = `Basic ${Buffer.from('alice:pa:ss').toString('base64')}`;
    expect(parseBasicAuthorization(header)).toEqual({ user: 'alice', password: 'pa:ss' });
  });
  it('rejects other schemes and malformed values', () => {
    expect(parseBasicAuthorization(undefined)).toBeUndefined();
    expect(parseBasicAuthorization('Bearer abc')).toBeUndefined();
    expect(parseBasicAuthorization(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
  });
});

describe('BasicAuthVerifier', () => {
  const verifier = new BasicAuthVerifier(new Map([['alice', hash]]));
  it('accepts the right password, twice (second from the cache)', async () => {
    expect(await verifier.verify({ user: 'alice', password: 's3cret' })).toBe(true);
    expect(await verifier.verify({ user: 'alice', password: 's3cret' })).toBe(true);
  });
  it('refuses a wrong password, an unknown user and no credentials', async () => {
    expect(await verifier.verify({ user: 'alice', password: 'wrong' })).toBe(false);
    expect(await verifier.verify({ user: 'bob', password: 's3cret' })).toBe(false);
    expect(await verifier.verify(undefined)).toBe(false);
  });
});

describe('users files', () => {
  it('parses htpasswd -B lines', () => {
    const users = parseHtpasswd(`# admins\nalice:${hash}\n\n`, 'users');
    expect([...users.keys()]).toEqual(['alice']);
  });
  it('refuses non-bcrypt passwords with the line number', () => {
    expect(() => parseHtpasswd('alice:{SHA}abc\n', 'users')).toThrow('users:1: the password of user "alice" is not a bcrypt hash');
    expect(() => parseHtpasswd('justaname\n', 'users')).toThrow(UsersFileError);
  });
  it('parses a Pushgateway web config', () => {
    const cfg = parseWebConfig(`basic_auth_users:\n  alice: ${hash}\n`, 'web.yml');
    expect(cfg.basicAuthUsers.get('alice')).toBe(hash);
    expect(() => parseWebConfig('basic_auth_user: {}\n', 'web.yml')).toThrow('web.yml: unknown key "basic_auth_user"');
    expect(() => parseWebConfig('basic_auth_users:\n  alice: plain\n', 'web.yml')).toThrow('not a bcrypt hash');
  });
});
