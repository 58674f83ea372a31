import type { FlagTable } from './flag-types.js';
import { envName } from './load-config.js';

/** A command's flags by group, as `--help` lists them. */
export interface CommandFlags {
  readonly command: string;
  readonly groups: Readonly<Record<string, FlagTable>>;
}

const INTRO = `# Configuration reference

Every flag of \`portico serve\` and \`portico operator\`, with its default and its environment
variable. This file is generated from the flag declarations (each area's \`flags.ts\`) by
\`npm run docs:flags\`; a test fails when it differs from them, so edit the declarations, not this file.

How values are given (flags win over the environment, which wins over the YAML file named by
\`--config.file\`), and how addresses, durations and sizes are written: see
[the configuration rules](../README.md#configuration). The log formats and what is logged:
[logging.md](logging.md).
`;

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/**
 * The flag reference as Markdown: one section per group (a group shared by several commands, such
 * as General, is written once and says which commands take it).
 */
export function renderFlagReference(commands: readonly CommandFlags[]): string {
  const sections = new Map<string, { table: FlagTable; commands: string[] }>();
  for (const { command, groups } of commands) {
    for (const [group, table] of Object.entries(groups)) {
      const seen = sections.get(group);
      if (seen === undefined) sections.set(group, { table, commands: [command] });
      else if (seen.table !== table) throw new Error(`flag group "${group}" differs between commands`);
      else seen.commands.push(command);
    }
  }
  const out = [INTRO];
  for (const [group, { table, commands: used }] of sections) {
    out.push(`## ${group}`, '', `Taken by ${used.map((c) => `\`portico ${c}\``).join(' and ')}.`, '');
    out.push('| flag | default | environment variable | meaning |', '|---|---|---|---|');
    for (const [name, spec] of Object.entries(table)) {
      const value = spec.kind === 'boolean' ? '' : ` <${spec.kind}>`;
      const def = spec.defaultText === '' ? '' : `\`${cell(spec.defaultText)}\``;
      out.push(`| \`--${name}\`${value} | ${def} | \`${envName(name)}\` | ${cell(spec.help)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}
