import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiFor, goldenStore } from '../helpers.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/management/golden');
// Traefik's reference outputs are research notes kept beside the repository, not in it, as on the
// developers' machines and in CI; a clone without them skips only these comparisons, and says so.
const REFERENCE = join(import.meta.dirname, '../../../../shared/reference/traefik-golden');

function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

/** The scenarios of Traefik's pkg/api handler tests that produced the golden files. */
const scenarios: Record<string, { url: string; build: () => ReturnType<typeof goldenStore> }> = {
  'routers.json': {
    url: '/api/http/routers',
    build: () => goldenStore({
      myprovider: {
        http: {
          routers: {
            test: { entryPoints: ['web'], service: 'foo-service@myprovider', rule: 'Host(`foo.bar.other`)', middlewares: ['addPrefixTest', 'auth'] },
            bar: { entryPoints: ['web'], service: 'foo-service@myprovider', rule: 'Host(`foo.bar`)', middlewares: ['auth', 'addPrefixTest@anotherprovider'] },
          },
        },
      },
    }),
  },
  'service-bar.json': {
    url: '/api/http/services/bar@myprovider',
    build: () => goldenStore({
      myprovider: {
        http: {
          routers: {
            foo: { entryPoints: ['web'], service: 'bar', rule: 'Host(`foo.bar`)' },
            test: { entryPoints: ['web'], service: 'bar', rule: 'Host(`foo.bar.other`)' },
          },
          services: { bar: { loadBalancer: { servers: [{ url: 'http://127.0.0.1' }], passHostHeader: true } } },
        },
      },
    }),
  },
  'middleware-auth.json': {
    url: '/api/http/middlewares/auth@myprovider',
    build: () => goldenStore({
      myprovider: {
        http: {
          routers: {
            bar: { entryPoints: ['web'], service: 'foo-service', rule: 'Host(`foo.bar`)', middlewares: ['auth'] },
            test: { entryPoints: ['web'], service: 'foo-service', rule: 'Host(`foo.bar.other`)', middlewares: ['auth'] },
          },
          middlewares: { auth: { basicAuth: { users: ['admin:admin'] } } },
        },
      },
    }),
  },
  'overview-providers.json': {
    url: '/api/overview',
    build: () => goldenStore({}, ['docker', 'swarm', 'file', 'kubernetes', 'kubernetescrd', 'rest', 'test']),
  },
};

describe('golden: Traefik reference outputs', () => {
  for (const [file, scenario] of Object.entries(scenarios)) {
    it(`${scenario.url} is byte-identical to Traefik's wire output (${file})`, async () => {
      const app = apiFor(scenario.build());
      const res = await app.inject({ method: 'GET', url: scenario.url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body).toBe(fixture(file));
    });

    it.skipIf(!existsSync(join(REFERENCE, file)))(`${file} equals the reference file from Traefik's repository`, () => {
      const reference = JSON.parse(readFileSync(join(REFERENCE, file), 'utf8')) as unknown;
      expect(JSON.parse(fixture(file))).toEqual(reference);
    });
  }
});
