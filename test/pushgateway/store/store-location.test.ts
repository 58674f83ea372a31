import { describe, expect, it } from 'vitest';
import { parseStoreLocation } from '../../../src/pushgateway/store/store-location.js';

describe('parseStoreLocation (--pushgateway.store)', () => {
  it('reads memory and the Redis forms', () => {
    expect(parseStoreLocation('memory')).toEqual({ kind: 'memory' });
    expect(parseStoreLocation('')).toEqual({ kind: 'memory' });
    expect(parseStoreLocation('redis://redis.ns.svc:6380/2')).toMatchObject({ mode: 'standalone', nodes: [{ host: 'redis.ns.svc', port: 6380 }], db: 2, tls: false });
    expect(parseStoreLocation('rediss://portico@r')).toMatchObject({ mode: 'standalone', nodes: [{ host: 'r', port: 6379 }], db: 0, tls: true, username: 'portico' });
    expect(parseStoreLocation('redis://[::1]:7000')).toMatchObject({ nodes: [{ host: '::1', port: 7000 }] });
    expect(parseStoreLocation('redis+sentinel://s1:26379,s2/mymaster/3')).toMatchObject({
      mode: 'sentinel',
      nodes: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      masterName: 'mymaster',
      db: 3,
    });
    expect(parseStoreLocation('redis+cluster://c1:7000,c2:7001')).toMatchObject({ mode: 'cluster', nodes: [{ port: 7000 }, { port: 7001 }], db: 0 });
  });

  it('refuses a password in the URL without echoing it', () => {
    expect(() => parseStoreLocation('redis://user:s3cret@r:6379/0')).toThrow(/holds a password.*--pushgateway\.redis\.password-file/);
    expect(() => parseStoreLocation('redis://:s3cret@r')).not.toThrow(/s3cret/);
    expect(() => parseStoreLocation('redis://:s3cret@r')).toThrow(/redis:\/\/\*\*\*@r/);
  });

  it.each([
    ['http://r:6379', /unknown scheme "http:\/\/"/],
    ['redis://', /names no host/],
    ['redis://r:99999', /port 99999 is out of range/],
    ['redis://r/x', /database "x" is not a number/],
    ['redis://a,b', /takes one host/],
    ['redis+sentinel://s1', /MASTER/],
    ['redis+cluster://c1/1', /only database 0/],
    ['r:6379', /is not one of memory, redis:\/\//],
  ])('refuses %s naming the problem', (value, message) => {
    expect(() => parseStoreLocation(value)).toThrow(message);
  });
});
