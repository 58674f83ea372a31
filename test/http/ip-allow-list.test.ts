import { describe, expect, it } from 'vitest';
import { AllowListError, IpAllowList } from '../../src/http/ip-allow-list.js';

describe('IpAllowList', () => {
  const list = new IpAllowList(['10.0.0.0/8', '192.168.1.7', 'fd00::/8']);
  it('allows addresses inside the ranges, including IPv4-mapped IPv6', () => {
    expect(list.allows('10.1.2.3')).toBe(true);
    expect(list.allows('::ffff:10.1.2.3')).toBe(true);
    expect(list.allows('192.168.1.7')).toBe(true);
    expect(list.allows('fd12::1')).toBe(true);
  });
  it('refuses addresses outside, and unparseable ones', () => {
    expect(list.allows('11.0.0.1')).toBe(false);
    expect(list.allows('192.168.1.8')).toBe(false);
    expect(list.allows('::1')).toBe(false);
    expect(list.allows(undefined)).toBe(false);
    expect(list.allows('garbage')).toBe(false);
  });
  it('allows everything when empty', () => {
    expect(new IpAllowList([]).allows('8.8.8.8')).toBe(true);
  });
  it('names a bad range', () => {
    expect(() => new IpAllowList(['10.0.0.0/33'])).toThrow(AllowListError);
    expect(() => new IpAllowList(['nope'])).toThrow('"nope" is not an IP address or CIDR range');
  });
});
