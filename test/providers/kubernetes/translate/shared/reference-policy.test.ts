import { describe, expect, it } from 'vitest';
import {
  DEFAULT_REFERENCE_POLICY, httpServiceRefusal, l4ServiceRefusal, middlewareRefRefusal, middlewareRefusal, routeRefusal, tlsOptionRefusal,
} from '../../../../../src/providers/kubernetes/translate/shared/reference-policy.js';

const strict = DEFAULT_REFERENCE_POLICY;
const open = { ...strict, allowCrossNamespace: true };

describe('reference policy (Traefik\'s allowCrossNamespace)', () => {
  it('allows same-namespace and cross-provider references, refuses other namespaces with Traefik\'s texts', () => {
    expect(middlewareRefRefusal(strict, 'app', { name: 'auth' }, 'IngressRoute')).toBeUndefined();
    expect(middlewareRefRefusal(strict, 'app', { name: 'auth', namespace: 'app' }, 'IngressRoute')).toBeUndefined();
    expect(middlewareRefRefusal(strict, 'app', { name: 'auth@file', namespace: 'ignored' }, 'IngressRoute')).toBeUndefined();
    expect(middlewareRefRefusal(strict, 'app', { name: 'auth', namespace: 'infra' }, 'IngressRoute')).toBe('middleware infra/auth is not in the IngressRoute namespace app');
    expect(middlewareRefRefusal(strict, 'app', { name: 'auth', namespace: 'infra' }, 'IngressRouteTCP')).toBe('middleware infra/auth is not in the IngressRouteTCP namespace app');
    expect(middlewareRefRefusal(strict, 'app', { name: 'infra-auth@kubernetescrd' }, 'IngressRoute'))
      .toBe('invalid reference to middleware infra-auth@kubernetescrd: with crossnamespace disallowed, the namespace field needs to be explicitly specified');
    // Traefik checks the @kubernetescrd form for HTTP routes only.
    expect(middlewareRefRefusal(strict, 'app', { name: 'infra-auth@kubernetescrd' }, 'IngressRouteTCP')).toBeUndefined();
    expect(middlewareRefRefusal(open, 'app', { name: 'auth', namespace: 'infra' }, 'IngressRoute')).toBeUndefined();
  });

  it('checks service entries, their serversTransport, and TLS options', () => {
    expect(httpServiceRefusal(strict, 'app', { name: 'web', namespace: 'infra' })).toBe('service infra/web not in the parent resource namespace app');
    expect(httpServiceRefusal(strict, 'app', { name: 'web', serversTransport: 'infra-t@kubernetescrd' }))
      .toBe('invalid reference to serversTransport infra-t@kubernetescrd: namespace-name@kubernetescrd format is not allowed when crossnamespace is disallowed');
    expect(httpServiceRefusal(strict, 'app', { name: 'web', serversTransport: 't@file' })).toBeUndefined();
    expect(l4ServiceRefusal(strict, 'app', { name: 'db', namespace: 'infra' }, 'tcp')).toBe('tcp service infra/db is not in the parent resource namespace app');
    expect(l4ServiceRefusal(strict, 'app', { name: 'dns', namespace: 'infra' }, 'udp')).toBe('udp service infra/dns is not in the parent resource namespace app');
    expect(tlsOptionRefusal(strict, 'app', { name: 'strict', namespace: 'infra' }, 'IngressRoute')).toBe('TLSOption infra/strict is not in the IngressRoute namespace app');
    expect(tlsOptionRefusal(strict, 'app', { name: 'strict' }, 'IngressRoute')).toBeUndefined();
  });

  it('finds the first refused reference of a route or a middleware', () => {
    const route = { middlewares: [{ name: 'ok' }, { name: 'm', namespace: 'infra' }], services: [{ name: 'web', namespace: 'infra' }] };
    expect(routeRefusal(strict, 'app', route, 'IngressRoute')).toBe('middleware infra/m is not in the IngressRoute namespace app');
    // Traefik skips a refused TCP/UDP service entry alone, not the route.
    expect(routeRefusal(strict, 'app', route, 'IngressRouteUDP')).toBeUndefined();
    expect(routeRefusal(strict, 'app', { services: route.services }, 'IngressRouteTCP')).toBeUndefined();
    expect(routeRefusal(strict, 'app', { services: route.services }, 'IngressRoute')).toBe('service infra/web not in the parent resource namespace app');
    expect(routeRefusal(open, 'app', route, 'IngressRoute')).toBeUndefined();
    // Traefik's chain builder never checks its members' namespaces (nor the @kubernetescrd form).
    expect(middlewareRefusal(strict, 'app', 'chain', { middlewares: [{ name: 'm', namespace: 'infra' }, { name: 'infra-m@kubernetescrd' }] })).toBeUndefined();
    // The errors service goes through Traefik's load balancer builder, whose text this is.
    expect(middlewareRefusal(strict, 'app', 'errors', { service: { name: 'web', namespace: 'infra' } }))
      .toBe('load balancer service infra/web is not in the parent resource namespace app');
    expect(middlewareRefusal(strict, 'app', 'errors', { service: { name: 'web', serversTransport: 'infra-t@kubernetescrd' } }))
      .toBe('invalid reference to serversTransport infra-t@kubernetescrd: namespace-name@kubernetescrd format is not allowed when crossnamespace is disallowed');
    expect(middlewareRefusal(open, 'app', 'errors', { service: { name: 'web', namespace: 'infra' } })).toBeUndefined();
    expect(middlewareRefusal(strict, 'app', 'headers', { customRequestHeaders: {} })).toBeUndefined();
  });
});
