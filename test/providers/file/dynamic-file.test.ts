import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDynamicFile } from '../../../src/providers/file/dynamic-file.js';

describe('dynamic configuration files', () => {
  it('reads YAML with http, tcp and udp sections', () => {
    const c = parseDynamicFile([
      'http:',
      '  routers:',
      '    r: { rule: "Host(`a`)", service: s, entryPoints: [web], priority: 10, tls: { certResolver: le } }',
      '  middlewares:',
      '    m: { stripPrefix: { prefixes: [/a] } }',
      'tcp:',
      '  routers:',
      '    t: { rule: "HostSNI(`*`)", service: ts, tls: { passthrough: true } }',
      '  services:',
      '    ts: { loadBalancer: { servers: [{ address: "1.2.3.4:5" }] } }',
      'udp:',
      '  services:',
      '    u: { loadBalancer: { servers: [{ address: "1.2.3.4:53" }] } }',
    ].join('\n'), 'dyn.yml');
    expect(c.http?.routers?.r).toEqual({ rule: 'Host(`a`)', service: 's', entryPoints: ['web'], priority: 10, tls: { certResolver: 'le' } });
    expect(c.tcp?.routers?.t?.tls?.passthrough).toBe(true);
    expect(c.udp?.services?.u?.loadBalancer?.servers).toEqual([{ address: '1.2.3.4:53' }]);
  });

  it('reads JSON when the name ends in .json', () => {
    expect(parseDynamicFile('{"http":{"routers":{"r":{"service":"s"}}}}', 'x.json').http?.routers?.r?.service).toBe('s');
    expect(() => parseDynamicFile('{"http":', 'x.json')).toThrow(/^x\.json is not valid JSON: /);
  });

  it('keeps an explicit passHostHeader: false and a given strategy', () => {
    const c = parseDynamicFile('http:\n  services:\n    s:\n      loadBalancer:\n        passHostHeader: false\n        strategy: p2c\n', 'a.yaml');
    expect(c.http?.services?.s?.loadBalancer).toMatchObject({ passHostHeader: false, strategy: 'p2c' });
  });

  it('names the bad field and value', () => {
    expect(() => parseDynamicFile('http:\n  routers:\n    r:\n      entryPoints: web\n', 'a.yaml'))
      .toThrow('a.yaml: configuration.http.routers.r.entryPoints must be a list of strings, got string "web"');
    expect(() => parseDynamicFile('htp: {}\n', 'a.yaml')).toThrow('a.yaml: configuration.htp is not a known field (expected one of: http, tcp, udp, tls)');
    expect(() => parseDynamicFile('- a\n', 'a.yaml')).toThrow('a.yaml: configuration must be an object, got an array');
  });

  it('never throws anything but a DynamicFileError on arbitrary text (property)', () => {
    fc.assert(fc.property(fc.string(), (text) => {
      try {
        parseDynamicFile(text, 'p.yaml');
      } catch (err) {
        expect((err as Error).name).toBe('DynamicFileError');
      }
    }), { numRuns: 300 });
  });
});
