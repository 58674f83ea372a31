import { computeRuntime } from '../src/management/runtime.js';
import { RuntimeView } from '../src/management/runtime-view.js';
import { internalProviderInput } from '../src/management/internal-records.js';
const N = 10000;
const routers: Record<string, object> = {}; const services: Record<string, object> = {};
for (let i = 0; i < N; i++) {
  routers[`ns-app-${i}`] = { entryPoints: ['web'], rule: `Host("app-${i}.example.com")`, service: `svc-${i}`, ...(i % 10 === 0 ? { middlewares: ['missing-auth'] } : {}) };
  services[`svc-${i}`] = { loadBalancer: { servers: [{ url: `http://10.0.0.${i}:80` }], passHostHeader: true } };
}
const eps = [{ name: 'web', address: ':80', protocol: 'tcp' as const, isDefault: true }];
for (let k = 0; k < 5; k++) {
  const t0 = performance.now();
  const rt = computeRuntime([internalProviderInput(), { provider: 'kubernetes', configuration: { http: { routers, services } } as never }], eps);
  const t1 = performance.now();
  const v = new RuntimeView(rt, eps, []);
  const t2 = performance.now();
  let s = 0; for (const e of v.http.routers.entries) s += e.json.length;
  const t3 = performance.now();
  console.log('runtime', (t1 - t0).toFixed(1), 'view', (t2 - t1).toFixed(1), 'json all routers', (t3 - t2).toFixed(1));
}
