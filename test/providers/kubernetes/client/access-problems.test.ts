import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { AccessProblems, resourceName, statusMessage } from '../../../../src/providers/kubernetes/client/access-problems.js';

function logged(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  return { logger, lines };
}

describe('AccessProblems', () => {
  it('logs a refusal once, names the verb and resource, and logs once more when it is granted', () => {
    const { logger, lines } = logged();
    const access = new AccessProblems(logger);
    const key = { verb: 'watch', resource: resourceName('endpointslices', 'discovery.k8s.io') };
    for (let i = 0; i < 5; i++) access.deny(key, 403, 'endpointslices.discovery.k8s.io is forbidden');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, verb: 'watch', resource: 'endpointslices.discovery.k8s.io', namespace: null, status: 403 });
    expect(String(lines[0]?.msg)).toContain('to let the operator watch endpointslices.discovery.k8s.io in all namespaces');
    expect(access.readProblem()).toBe('forbidden: cannot watch endpointslices.discovery.k8s.io in all namespaces (endpointslices.discovery.k8s.io is forbidden)');
    access.allow(key);
    access.allow(key);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ level: 30, verb: 'watch' });
    expect(access.readProblem()).toBeNull();
  });

  it('keeps the operator unready for refused reads only, and tells refusals apart by namespace', () => {
    const { logger, lines } = logged();
    const access = new AccessProblems(logger);
    access.deny({ verb: 'patch', resource: resourceName('ingressroutes', 'portico.dev', 'status'), namespace: 'a' }, 403, '');
    expect(access.readProblem()).toBeNull();
    access.deny({ verb: 'list', resource: 'secrets', namespace: 'a' }, 401, '');
    access.deny({ verb: 'list', resource: 'secrets', namespace: 'b' }, 401, '');
    expect(lines.map((l) => l.resource)).toEqual(['ingressroutes.portico.dev/status', 'secrets', 'secrets']);
    expect(access.readProblem()).toBe('unauthorized: cannot list secrets in namespace a');
  });

  it('reads the message of a Status body', () => {
    expect(statusMessage({ kind: 'Status', message: 'no' })).toBe('no');
    expect(statusMessage('text')).toBe('');
    expect(statusMessage(undefined)).toBe('');
  });
});
