import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConnectionProblems } from '../../../../src/providers/kubernetes/client/connection-problems.js';

function capture() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s) as { level: number; msg: string }) });
  return { logger, lines };
}

describe('ConnectionProblems', () => {
  it('logs an outage once for every resource, then once per backoff step, then its end', () => {
    const { logger, lines } = capture();
    let t = 0;
    const c = new ConnectionProblems(logger, 'https://10.0.0.1:6443', () => t);
    // Twelve resources fail within the same 250 ms step: one line.
    for (let i = 0; i < 12; i++) c.failed(`resource-${i}`, 'connect ECONNREFUSED 10.0.0.1:6443', 250);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.msg).toBe('cannot reach the Kubernetes API server https://10.0.0.1:6443: connect ECONNREFUSED 10.0.0.1:6443; retrying');
    // The next steps (500 ms, 1 s, 2 s, 4 s): one line each, however many resources retry.
    for (const step of [500, 1000, 2000, 4000]) {
      t += step;
      for (let i = 0; i < 12; i++) c.failed(`resource-${i}`, 'connect ECONNREFUSED 10.0.0.1:6443', step);
    }
    expect(lines).toHaveLength(5);
    expect(lines[4]?.msg).toMatch(/^still cannot reach the Kubernetes API server https:\/\/10\.0\.0\.1:6443 after 8 s: connect ECONNREFUSED 10\.0\.0\.1:6443; 12 watches waiting, next retry in 4 s$/);
    t += 1500;
    c.answered();
    c.answered();
    expect(lines).toHaveLength(6);
    expect(lines[5]?.msg).toBe('the Kubernetes API server https://10.0.0.1:6443 answers again after 9 s');
  });

  it('says at once when the error changes', () => {
    const { logger, lines } = capture();
    const c = new ConnectionProblems(logger, 'https://k', () => 0);
    c.failed('a', 'connect ECONNREFUSED', 4000);
    c.failed('b', 'connect ECONNREFUSED', 4000);
    c.failed('a', 'certificate has expired', 4000);
    expect(lines.map((l) => l.msg.split(': ').at(-1))).toEqual(['connect ECONNREFUSED; retrying', 'certificate has expired; 2 watches waiting, next retry in 4 s']);
  });
});
