import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flag, type FlagTable } from '../../src/config/flag-types.js';
import { renderFlagReference } from '../../src/config/flag-reference.js';
import { flagReference, operatorFlagGroups, serveFlagGroups } from '../../src/flag-groups.js';

describe('the flag reference (docs/configuration.md)', () => {
  it('is exactly what the flag declarations generate (run `npm run docs:flags` after changing a flag)', () => {
    const committed = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(committed).toBe(flagReference());
  });

  it('lists every flag of both commands, with its default and environment variable', () => {
    const text = flagReference();
    for (const groups of [serveFlagGroups, operatorFlagGroups] as Record<string, FlagTable>[]) {
      for (const [group, table] of Object.entries(groups)) {
        expect(text).toContain(`## ${group}\n`);
        for (const [name, spec] of Object.entries(table)) {
          const row = text.split('\n').find((line) => line.startsWith(`| \`--${name}\``));
          expect(row, name).toBeDefined();
          if (spec.defaultText !== '') expect(row).toContain(`\`${spec.defaultText}\``);
          expect(row).toContain(`PORTICO_${name.replace(/[.-]/g, '_').toUpperCase()}`);
        }
      }
    }
  });

  it('writes a shared group once, naming every command that takes it', () => {
    const shared = { 'x.y': flag.string('a', 'shared') };
    const text = renderFlagReference([
      { command: 'one', groups: { Shared: shared, Only: { 'o.p': flag.int(3, 'with | a pipe') } } },
      { command: 'two', groups: { Shared: shared } },
    ]);
    expect(text.match(/## Shared/g)).toHaveLength(1);
    expect(text).toContain('Taken by `portico one` and `portico two`.');
    expect(text).toContain('| `--o.p` <int> | `3` | `PORTICO_O_P` | with \\| a pipe |');
  });

  it('refuses two different tables under one group name', () => {
    expect(() =>
      renderFlagReference([
        { command: 'one', groups: { G: { a: flag.string('', 'a') } } },
        { command: 'two', groups: { G: { b: flag.string('', 'b') } } },
      ]),
    ).toThrow(/differs between commands/);
  });
});
