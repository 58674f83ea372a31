import { describe, expect, it } from 'vitest';
import type { Service, ServicePort } from '../../../../../src/providers/kubernetes/client/kube-objects.js';
import { resolveAddresses, resolveHttpServers } from '../../../../../src/providers/kubernetes/translate/shared/endpoints-resolver.js';
import { buildClusterView } from '../../../../../src/providers/kubernetes/translate/translate.js';

// ExternalName Services usually declare no port: `kubectl create service externalname` makes none.
const external = (ports?: ServicePort[]): Service => ({
  apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'app', name: 'db' },
  spec: { type: 'ExternalName', externalName: 'db.example.com', ...(ports ? { ports } : {}) },
});
const view = (svc: Service) => buildClusterView([svc], []);
const ref = { namespace: 'app', name: 'db', port: 5432 };

describe('ExternalName backends (Traefik\'s allowExternalNameServices)', () => {
  it('are refused before their port is looked for, with Traefik\'s text', () => {
    for (const externalNameAnyPort of [false, true]) {
      const r = resolveHttpServers(view(external()), { ...ref, allowExternalName: false, externalNameAnyPort });
      expect(r.error).toEqual({ reason: 'ExternalNameNotAllowed', message: 'externalName services not allowed: app/db' });
    }
    expect(resolveAddresses(view(external()), { ...ref, allowExternalName: false }).error?.reason).toBe('ExternalNameNotAllowed');
  });

  it('use an undeclared numeric port as given for CRD entries, as Traefik\'s CRD provider does', () => {
    const http = resolveHttpServers(view(external()), { ...ref, allowExternalName: true, externalNameAnyPort: true });
    expect(http.error).toBeUndefined();
    expect(http.servers).toEqual([{ url: 'http://db.example.com:5432' }]);
    expect(resolveHttpServers(view(external()), { ...ref, port: '443', externalNameAnyPort: true }).servers).toEqual([{ url: 'https://db.example.com:443' }]);
    const l4 = resolveAddresses(view(external()), { ...ref, externalNameAnyPort: true });
    expect(l4.servers).toEqual([{ address: 'db.example.com:5432' }]);
    // A port name cannot be made up.
    expect(resolveHttpServers(view(external()), { ...ref, port: 'pg', externalNameAnyPort: true }).error?.reason).toBe('PortNotFound');
  });

  it('need a declared port for Ingress backends, as Traefik\'s Ingress provider does', () => {
    expect(resolveHttpServers(view(external()), ref).error).toEqual({ reason: 'PortNotFound', message: 'service port 5432 not found in service app/db' });
    expect(resolveHttpServers(view(external([{ name: 'pg', port: 5432 }])), ref).servers).toEqual([{ url: 'http://db.example.com:5432' }]);
  });
});
