/**
 * Writes docs/configuration.md, the flag reference, from the flag declarations (each area's
 * flags.ts, grouped as `--help` shows them). `npm run docs:flags`; test/config/flag-reference.test.ts
 * fails when the committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagReference } from '../src/flag-groups.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'docs', 'configuration.md');
writeFileSync(target, flagReference());
console.log(`wrote ${target}`);
