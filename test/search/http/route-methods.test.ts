import { describe, expect, it } from 'vitest';
import { RouteMethods } from '../../../src/search/http/route-methods.js';

describe('route methods', () => {
  const routes = new RouteMethods();
  routes.add('GET', '/:index/_search');
  routes.add('post', '/:index/_search');
  routes.add('PUT', '/:index');
  routes.add('DELETE', '/:index');
  routes.add('GET', '/_cat/indices');
  routes.add('GET', '/');

  it('unions the methods of every pattern matching the path, in the order added', () => {
    expect(routes.allowed('/test/_search')).toEqual(['GET', 'POST']);
    expect(routes.allowed('/test')).toEqual(['PUT', 'DELETE']);
    expect(routes.allowed('/_cat/indices')).toEqual(['GET']);
    expect(routes.allowed('/')).toEqual(['GET']);
  });

  it('matches literal segments after percent-decoding and never matches an empty parameter', () => {
    expect(routes.allowed('/test/%5Fsearch')).toEqual(['GET', 'POST']);
    expect(routes.allowed('//_search')).toEqual([]);
  });

  it('knows nothing of other paths', () => {
    expect(routes.allowed('/a/b/c/d')).toEqual([]);
    expect(routes.allowed('/test/_nothing')).toEqual([]);
  });
});
