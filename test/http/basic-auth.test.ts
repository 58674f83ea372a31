import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { BasicAuthVerifier, bcryptCost, parseBasicAuthorization, type BcryptFunctions } from '../../src/http/basic-auth.js';
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

/**
 * bcrypt functions that count the rounds each check costs (2^cost per compare) instead of timing
 * it: hashes are fake (`$2b$<cost>$` and the password), compares are exact.
 */
function countingBcrypt(): BcryptFunctions & { rounds: number } {
  const fns = {
    rounds: 0,
    hash: (password: string, cost: number) => `$2b$${String(cost).padStart(2, '0')}$${password.padEnd(53, '.').slice(0, 53)}`,
    compare: async (password: string, hash: string) => {
      fns.rounds += 2 ** bcryptCost(hash);
      return hash.slice(7) === password.padEnd(53, '.').slice(0, 53);
    },
  };
  return fns;
}

describe('BasicAuthVerifier timing', () => {
  const roundsOf = async (verifier: BasicAuthVerifier, fns: { rounds: number }, user: string, password: string) => {
    const before = fns.rounds;
    await verifier.verify({ user, password });
    return fns.rounds - before;
  };

  for (const costs of [[5], [10], [12], [4, 12], [5, 7, 11]]) {
    it(`costs the same rounds for known and unknown users, hashes of cost ${costs.join(', ')}`, async () => {
      const fns = countingBcrypt();
      const users = new Map(costs.map((c, i) => [`user${i}`, fns.hash(`pw${i}`, c)]));
      const verifier = new BasicAuthVerifier(users, { bcrypt: fns });
      const max = Math.max(...costs);
      expect(verifier.checkCost).toBe(max);
      const seen = new Set<number>();
      for (let i = 0; i < costs.length; i++) {
        seen.add(await roundsOf(verifier, fns, `user${i}`, 'wrong'));
        seen.add(await roundsOf(verifier, fns, `user${i}`, `pw${i}`));
      }
      seen.add(await roundsOf(verifier, fns, 'nobody', 'pw0'));
      seen.add(await roundsOf(verifier, fns, '', ''));
      expect([...seen]).toEqual([2 ** max]);
      // The right password is accepted, the wrong one and unknown users refused.
      expect(await verifier.verify({ user: 'user0', password: 'pw0' })).toBe(true);
      expect(await verifier.verify({ user: 'user0', password: 'pw1' })).toBe(false);
      expect(await verifier.verify({ user: 'nobody', password: 'pw0' })).toBe(false);
    });
  }

  it('uses real bcrypt dummies of the file\'s cost', async () => {
    const verifier = new BasicAuthVerifier(new Map([['alice', bcrypt.hashSync('x', 5)]]));
    expect(verifier.checkCost).toBe(5);
    expect(await verifier.verify({ user: 'bob', password: 'x' })).toBe(false);
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
