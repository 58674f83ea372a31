import ipaddr from 'ipaddr.js';

export class AllowListError extends Error {
  override readonly name = 'AllowListError';
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * An IP allow-list of CIDR ranges (or single addresses). IPv4-mapped IPv6 clients
 * (`::ffff:10.0.0.1`, what a dual-stack socket reports) are matched against IPv4 ranges.
 */
export class IpAllowList {
  private readonly ranges: Range[];

  constructor(cidrs: readonly string[]) {
    this.ranges = cidrs.map((c) => {
      try {
        return c.includes('/') ? ipaddr.parseCIDR(c) : ([ipaddr.parse(c), ipaddr.parse(c).kind() === 'ipv4' ? 32 : 128] as Range);
      } catch (err) {
        throw new AllowListError(`"${c}" is not an IP address or CIDR range`, { cause: err });
      }
    });
  }

  get isEmpty(): boolean {
    return this.ranges.length === 0;
  }

  allows(remoteAddress: string | undefined): boolean {
    if (this.ranges.length === 0) return true;
    if (remoteAddress === undefined || !ipaddr.isValid(remoteAddress)) return false;
    let addr = ipaddr.parse(remoteAddress);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
    return this.ranges.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
  }
}
