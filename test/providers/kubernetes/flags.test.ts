import { describe, expect, it } from 'vitest';
import { operatorFlags, parseEndpointHostname, parseEndpointIp } from '../../../src/providers/kubernetes/flags.js';

describe('ingress endpoint flags', () => {
  it('accept what the API server accepts in an Ingress status, and nothing else', () => {
    for (const ok of ['', '192.0.2.1', '2001:db8::1']) expect(parseEndpointIp(ok)).toBe(ok);
    for (const bad of ['lb.example.com', '192.0.2.300', ' 192.0.2.1']) expect(() => parseEndpointIp(bad)).toThrow(`"${bad}" is not an IP address`);
    for (const ok of ['', 'lb.example.com', 'x-1.elb.test']) expect(parseEndpointHostname(ok)).toBe(ok);
    for (const bad of ['LB.example.com', 'lb_1.test', '-lb.test', '192.0.2.1', 'http://lb.test', `${'a'.repeat(250)}.test`]) {
      expect(() => parseEndpointHostname(bad)).toThrow(`"${bad}" is not a DNS hostname`);
    }
  });

  it('are checked when the configuration is read', () => {
    expect(() => operatorFlags['operator.ingress-endpoint.ip'].parse('lb.example.com')).toThrow('is not an IP address');
    expect(() => operatorFlags['operator.ingress-endpoint.hostname'].parse('203.0.113.7')).toThrow('is not a DNS hostname');
    expect(operatorFlags['operator.ingress-endpoint.ip'].defaultText).toBe('');
    expect(operatorFlags['operator.ingress-endpoint.ip'].kind).toBe('string');
  });
});
