/**
 * `--providers.file.directory`: every `.yaml` and `.yml` file of a directory and its
 * sub-directories, read in name order (sub-directories where their name sorts, as Go's
 * os.ReadDir lists them), merged as Traefik's file provider merges them: a record name defined
 * again in a later file is skipped (the first file wins). One bad file fails the whole directory,
 * so the last good configuration is kept. `.toml` files, which Traefik also reads, are refused by
 * name (Portico reads no TOML); other files are ignored, as in Traefik.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DynamicConfiguration } from '../../dynamic-config/configuration.js';
import { DynamicFileError, parseDynamicFile } from './dynamic-file.js';

export interface DirectoryFile {
  /** Path relative to the directory, `/`-separated. */
  readonly name: string;
  readonly text: string;
}

/** Byte order of Go's sort.Strings (os.ReadDir), not the locale's. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Reads the directory's configuration files, in Traefik's order. */
export async function readDirectoryFiles(directory: string, prefix = ''): Promise<DirectoryFile[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  entries.sort((a, b) => byteOrder(a.name, b.name));
  const out: DirectoryFile[] = [];
  for (const entry of entries) {
    const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      out.push(...await readDirectoryFiles(path, name));
      continue;
    }
    const ext = entry.name.slice(entry.name.lastIndexOf('.')).toLowerCase();
    if (ext === '.toml') throw new DynamicFileError(`${name}: TOML files are not supported (use YAML)`);
    if (ext !== '.yaml' && ext !== '.yml') continue;
    out.push({ name, text: await readFile(path, 'utf8') });
  }
  return out;
}

type Maps = Record<string, Record<string, unknown> | undefined>;

/** Adds the names of `src`'s maps that `dst` lacks (Traefik's ResourceStrategySkipDuplicates). */
function mergeMaps(dst: Maps, src: Maps | undefined): void {
  if (src === undefined) return;
  for (const [key, records] of Object.entries(src)) {
    if (records === undefined || typeof records !== 'object' || Array.isArray(records)) continue;
    const target = (dst[key] ??= {});
    for (const [name, record] of Object.entries(records)) {
      if (!Object.hasOwn(target, name)) target[name] = record;
    }
  }
}

type Certificate = NonNullable<NonNullable<DynamicConfiguration['tls']>['certificates']>[number];

/** Merges parsed files in order; the first definition of a name wins. */
export function mergeSkipDuplicates(configurations: readonly DynamicConfiguration[]): DynamicConfiguration {
  const http: Maps = {};
  const tcp: Maps = {};
  const udp: Maps = {};
  const tls: Maps = {};
  const certificates: Certificate[] = [];
  for (const c of configurations) {
    mergeMaps(http, c.http as Maps | undefined);
    mergeMaps(tcp, c.tcp as Maps | undefined);
    mergeMaps(udp, c.udp as Maps | undefined);
    if (c.tls !== undefined) {
      mergeMaps(tls, { options: c.tls.options, stores: c.tls.stores });
      for (const cert of c.tls.certificates ?? []) {
        if (!certificates.some((x) => x.certFile === cert.certFile && x.keyFile === cert.keyFile)) certificates.push(cert);
      }
    }
  }
  const out: DynamicConfiguration = {};
  if (Object.keys(http).length > 0) out.http = http as DynamicConfiguration['http'];
  if (Object.keys(tcp).length > 0) out.tcp = tcp as DynamicConfiguration['tcp'];
  if (Object.keys(udp).length > 0) out.udp = udp as DynamicConfiguration['udp'];
  if (Object.keys(tls).length > 0 || certificates.length > 0) {
    out.tls = { ...tls as NonNullable<DynamicConfiguration['tls']>, ...(certificates.length > 0 ? { certificates } : {}) };
  }
  return out;
}

/** Parses every file and merges them; a bad file throws, naming it. */
export function parseDirectoryFiles(files: readonly DirectoryFile[]): DynamicConfiguration {
  return mergeSkipDuplicates(files.map((f) => parseDynamicFile(f.text, f.name)));
}
