/**
 * The management benchmarks' snapshot: `records` routers, each with its own load-balanced service
 * of two servers, a tenth of them naming a middleware that does not exist (so they are disabled
 * with an error), every rule changed from one generation to the next. Shared by bench:management,
 * its heap probe and its replacement probe, so their figures are of the same records.
 */
import type { DynamicConfiguration, ProviderSnapshot } from '../src/dynamic-config/configuration.js';
import type { EntryPointDef } from '../src/management/runtime/runtime.js';

export const BENCH_ENTRY_POINTS: EntryPointDef[] = [
  { name: 'web', address: ':80', protocol: 'tcp', isDefault: true },
  { name: 'traefik', address: ':8080', protocol: 'tcp', isDefault: false },
];

export function benchSnapshot(records: number, generation: number): ProviderSnapshot {
  const routers: NonNullable<NonNullable<DynamicConfiguration['http']>['routers']> = {};
  const services: NonNullable<NonNullable<DynamicConfiguration['http']>['services']> = {};
  for (let i = 0; i < records; i++) {
    const ns = `ns-${i % 50}`;
    routers[`${ns}-app-${i}-example-com`] = {
      entryPoints: ['web'],
      rule: `Host("app-${i}.example.com") && PathPrefix("/v${generation}")`,
      service: `${ns}-app-${i}-80`,
      ...(i % 10 === 0 ? { middlewares: ['missing-auth'] } : {}),
    };
    services[`${ns}-app-${i}-80`] = {
      loadBalancer: { servers: [{ url: `http://10.${(i >> 8) & 255}.${i & 255}.1:80` }, { url: `http://10.${(i >> 8) & 255}.${i & 255}.2:80` }], passHostHeader: true, strategy: 'wrr' },
    };
  }
  return { configuration: { http: { routers, services } }, version: `gen-${generation}` };
}
