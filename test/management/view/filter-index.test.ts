import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Router } from '../../../src/dynamic-config/http.js';
import { listPage } from '../../../src/management/api/query.js';
import { porticoListPage } from '../../../src/management/dashboard/portico-api.js';
import type { KindView, ViewEntry } from '../../../src/management/view/kind-view.js';
import { storeWith } from '../helpers.js';

/**
 * The list filters as they were before the filter index (every entry tested on every request):
 * the index must give the same pages, in every order, for any filter and any texts.
 */
function reference(view: KindView, query: URLSearchParams): string[] {
  const status = query.get('status') ?? '';
  const search = query.get('search') ?? '';
  const needle = search.toLowerCase();
  const keep = (e: ViewEntry) => (status === '' || (e.status.length === status.length && e.status.toLowerCase() === status.toLowerCase()))
    && (search === '' || e.searchIn.some((v) => v.includes(needle)));
  const kept = view.ascending(query.get('sortBy') ?? '').filter(keep).map((e) => e.name);
  const direction = query.get('direction') ?? '';
  return direction !== '' && direction !== 'asc' ? kept.reverse() : kept;
}

const alphabet = ['a', 'B', '-', '.', '1', '\u0000', 'İ', 'K', 'ß', '`', '('];
const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 6 }).map((cs) => cs.join(''));

const routerArb = fc.record({
  rule: fc.option(text, { nil: undefined }),
  missingMiddleware: fc.boolean(),
  missingService: fc.boolean(),
});

function routers(specs: { name: string; rule: string | undefined; missingMiddleware: boolean; missingService: boolean }[]): Record<string, Router> {
  const out: Record<string, Router> = {};
  for (const s of specs) {
    out[s.name] = {
      entryPoints: ['web'],
      service: s.missingService ? 'nowhere' : 'svc',
      ...(s.rule === undefined ? {} : { rule: s.rule }),
      ...(s.missingMiddleware ? { middlewares: ['absent'] } : {}),
    };
  }
  return out;
}

const services = { svc: { loadBalancer: { servers: [{ url: 'http://10.0.0.1:80' }] } } };

describe('status and search filters through the filter index (Traefik API and dashboard lists)', () => {
  it('select what testing each entry selects, in every sort order, after full and patched applies', () => {
    const spec = fc.uniqueArray(fc.record({ name: text.filter((n) => n !== '' && !n.includes('@')), r: routerArb }), { selector: (x) => x.name, maxLength: 25 });
    const query = fc.record({
      status: fc.constantFrom('', 'enabled', 'Disabled', 'WARNING', 'disabled ', 'ENABLEd', 'ena'),
      search: fc.oneof(text, fc.constantFrom('', 'a', 'ı', 'k', '\u0000', '@p')),
      sortBy: fc.constantFrom('', 'priority', 'rule', 'status', 'service', 'provider'),
      direction: fc.constantFrom('', 'desc'),
    });
    fc.assert(fc.property(spec, spec, fc.array(query, { minLength: 1, maxLength: 6 }), (first, second, queries) => {
      const store = storeWith({ p: { http: { routers: routers(first.map((x) => ({ name: x.name, ...x.r }))), services } } });
      const check = () => {
        for (const view of [store.view.http.routers, store.view.http.services]) {
          for (const q of queries) {
            const params = new URLSearchParams({ ...q, per_page: '1000' });
            const page = listPage(view, params);
            if ('error' in page) throw new Error(page.error);
            const expected = reference(view, params);
            expect((JSON.parse(page.body) as { name: string }[]).map((r) => r.name)).toEqual(expected);
            // The dashboard's own list endpoint filters the same way.
            const own = porticoListPage(view, undefined, { ...q, per_page: '1000' });
            if (typeof own === 'string') throw new Error(own);
            expect((JSON.parse(own.body) as { name: string }[]).map((r) => r.name)).toEqual(expected);
          }
        }
      };
      check();
      // A second provider's change leaves this provider's entries and patches the view.
      store.set('q', { configuration: { http: { routers: routers(second.map((x) => ({ name: x.name, ...x.r }))), services } } });
      check();
      store.set('p', { configuration: { http: { routers: routers([...first, ...second.slice(0, 3)].map((x) => ({ name: x.name, ...x.r }))), services } } });
      check();
    }), { numRuns: 150 });
  });
});
