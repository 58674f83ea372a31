/**
 * The flags the chart passes are flags Portico has, with values its parser accepts: every
 * container's args go through the CLI's own loadConfig with the real flag tables.
 */
import { describe, expect, it } from 'vitest';
import { operatorCommandFlags, serveFlags } from '../../src/flag-groups.js';
import type { FlagTable } from '../../src/config/flag-types.js';
import { loadConfig } from '../../src/config/load-config.js';
import { allFeaturesValues, only, render, type RenderOptions } from './support/helm.js';

const flagName = (arg: string) => arg.slice(2).split('=')[0] as string;

function checkArgs(table: FlagTable, args: readonly string[]): void {
  expect(args.every((a) => a.startsWith('--') && a.includes('=')), `every flag is --name=value: ${args.join(' ')}`).toBe(true);
  const unknown = args.map(flagName).filter((name) => !(name in table));
  expect(unknown, 'flags Portico does not have').toEqual([]);
  expect(() => loadConfig(table, { argv: args, env: {}, readFile: () => '' })).not.toThrow();
}

const VARIANTS: Readonly<Record<string, RenderOptions>> = {
  'default values': {},
  'every optional feature on': { values: [allFeaturesValues] },
  'persistence in memory only, leader election off': {
    setJson: { 'server.pushgateway.persistenceFile': 'off', 'operator.leaderElection': false },
  },
  'two replicas sharing Redis (URL inline, passwords from a Secret, a key prefix)': {
    setJson: {
      replicas: 2,
      'persistence.enabled': false,
      'server.pushgateway.store.redis': { enabled: true, url: 'rediss://portico@redis.db.svc:6380/1', existingSecret: 'redis-creds', sentinelPasswordKey: 'sp', keyPrefix: 'pg' },
    },
  },
};

describe('the chart starts Portico with flags it accepts', () => {
  for (const [name, options] of Object.entries(VARIANTS)) {
    it(name, () => {
      const spec = (only(render(options), 'Deployment')['spec'] as { template: { spec: { containers: { name: string; args: string[] }[] } } }).template.spec;
      for (const c of spec.containers) {
        const [command, ...args] = c.args;
        if (c.name === 'server') {
          expect(command).toBe('serve');
          checkArgs(serveFlags, args);
        } else {
          expect(command).toBe('operator');
          checkArgs(operatorCommandFlags, args);
        }
      }
    });
  }

  it('the check refuses a flag Portico does not have', () => {
    expect(() => checkArgs(serveFlags, ['--pushgateway.listen-adress=:9091'])).toThrow();
  });
});
