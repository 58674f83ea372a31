/**
 * Reads a dynamic configuration file in Traefik's format (YAML or JSON; `http`, `tcp`, `udp`,
 * `tls`), checks its shape and applies the defaults Traefik's file provider gives every HTTP load
 * balancer (`passHostHeader: true`, `strategy: wrr`, `responseForwarding.flushInterval: 100ms`).
 * Pure: text in, configuration out, or an error naming the file and the problem.
 */
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { DynamicConfiguration } from '../../dynamic-config/configuration.js';
import type { ServersLoadBalancer } from '../../dynamic-config/http.js';
import { SnapshotValidationError, validateDynamicConfiguration } from '../../dynamic-config/validation.js';

export class DynamicFileError extends Error {
  override readonly name = 'DynamicFileError';
}

function withLoadBalancerDefaults(lb: ServersLoadBalancer): ServersLoadBalancer {
  return {
    ...lb,
    strategy: lb.strategy ?? 'wrr',
    passHostHeader: lb.passHostHeader ?? true,
    responseForwarding: { flushInterval: '100ms', ...lb.responseForwarding },
  };
}

/** Returns a new configuration with Traefik's file-provider defaults applied. */
export function applyFileDefaults(config: DynamicConfiguration): DynamicConfiguration {
  const services = config.http?.services;
  if (services === undefined) return config;
  const out: NonNullable<typeof services> = {};
  for (const [name, svc] of Object.entries(services)) {
    out[name] = svc.loadBalancer ? { ...svc, loadBalancer: withLoadBalancerDefaults(svc.loadBalancer) } : svc;
  }
  return { ...config, http: { ...config.http, services: out } };
}

/** Parses and checks a dynamic configuration file's text; `source` names it in errors. */
export function parseDynamicFile(text: string, source: string): DynamicConfiguration {
  let doc: unknown;
  try {
    doc = source.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 1000, logLevel: 'error' });
  } catch (err) {
    const detail = err instanceof YAMLParseError || err instanceof SyntaxError ? err.message : String(err);
    throw new DynamicFileError(`${source} is not valid ${source.toLowerCase().endsWith('.json') ? 'JSON' : 'YAML'}: ${detail}`, { cause: err });
  }
  try {
    return applyFileDefaults(validateDynamicConfiguration(doc, 'configuration'));
  } catch (err) {
    if (err instanceof SnapshotValidationError) throw new DynamicFileError(`${source}: ${err.message}`, { cause: err });
    throw err;
  }
}
