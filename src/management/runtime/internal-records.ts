/**
 * The `internal` provider's records, as Traefik creates them with the API and dashboard on
 * (`api.insecure`, `api.dashboard`): the `api` and `dashboard` routers on the `traefik` entry
 * point, the dashboard's redirect and strip-prefix middlewares, and the `api`, `dashboard` and
 * `noop` services. They exist at all times, whatever the other providers deliver.
 */
import type { DynamicConfiguration } from '../../dynamic-config/configuration.js';
import { MAX_INT64, type ProviderInput } from './runtime.js';

/** The entry point Traefik puts its API on; Portico's management listener. */
export const TRAEFIK_ENTRY_POINT = 'traefik';

export const INTERNAL_PROVIDER = 'internal';

/** Builds the internal provider's input; a fresh object each call, so nobody shares mutable state. */
export function internalProviderInput(): ProviderInput {
  const configuration: DynamicConfiguration = {
    http: {
      routers: {
        api: {
          entryPoints: [TRAEFIK_ENTRY_POINT],
          service: 'api@internal',
          rule: 'PathPrefix(`/api`)',
          ruleSyntax: 'default',
        },
        dashboard: {
          entryPoints: [TRAEFIK_ENTRY_POINT],
          middlewares: ['dashboard_redirect@internal', 'dashboard_stripprefix@internal'],
          service: 'dashboard@internal',
          rule: 'PathPrefix(`/`)',
          ruleSyntax: 'default',
        },
      },
      middlewares: {
        dashboard_redirect: {
          redirectRegex: {
            regex: '^(http:\\/\\/(\\[[\\w:.]+\\]|[\\w\\._-]+)(:\\d+)?)\\/$',
            replacement: '${1}/dashboard/',
            permanent: true,
          },
        },
        dashboard_stripprefix: { stripPrefix: { prefixes: ['/dashboard/', '/dashboard'] } },
      },
      services: { api: {}, dashboard: {}, noop: {} },
    },
  };
  // Internal services are built by Traefik itself and never fail its checks: `{}` has no type
  // but is valid, so they are listed here for the runtime to skip.
  return {
    provider: INTERNAL_PROVIDER,
    configuration,
    priorities: { api: MAX_INT64 - 1n, dashboard: MAX_INT64 - 2n },
  };
}
