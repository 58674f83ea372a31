import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/**
 * What the search benchmark and the in-process search probe share: the corpus, the match queries
 * on `description` and the depths they are run at, and the command line.
 */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** `from` of every measured page (size 10). */
export const DEPTHS = [0, 100, 1000, 9990];

/** One to three words each, run as `match` queries on `description`. */
export const QUERIES = [
  'python library', 'game', 'network monitoring tool', 'web server', 'perl module', 'documentation', 'development files',
  'linux kernel', 'image editor', 'database client', 'command line utility', 'audio player', 'font', 'java',
  'debug symbols', 'shared library', 'window manager', 'haskell', 'ruby', 'email client',
];

const args = process.argv.slice(2);

/** The value after `--<name>`, else `def`. */
export function opt(name: string, def: string): string {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? def : (args[i + 1] ?? def);
}

/** Whether the bare flag `--<name>` was given. */
export function flag(name: string): boolean {
  return args.includes(`--${name}`);
}

/** `--corpus`, else the Debian corpus in ../shared (from the main checkout; worktrees sit one level deeper). */
export function corpusPath(): string {
  const found = ['../shared', '../../shared'].map((d) => `${d}/data/debian-packages.ndjson.gz`).find((p) => existsSync(resolve(ROOT, p)));
  return resolve(ROOT, opt('corpus', found ?? '../shared/data/debian-packages.ndjson.gz'));
}

/** The corpus documents, one JSON text each. */
export function readCorpus(path: string): string[] {
  return gunzipSync(readFileSync(path)).toString('utf8').split('\n').filter((l) => l.trim() !== '');
}

/** CPU microseconds of the process (GC helper threads included: their work is the request's too). */
export function processCpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** FNV-1a over a text's UTF-16 units, continuing from `h`: the probes' response checksums. */
export function fnv(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** CPU microseconds of all of a process's threads (schedstat, nanosecond resolution). */
export function threadsCpuUs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1000;
}
