/**
 * The two sides of the management API's differential suite: a real Traefik (the `traefik` peer of
 * scripts/build-peers.sh) and Portico's `dist/cli.js serve`, both reading the same directory with
 * their file providers and declaring the same entry points. One of each per test file: cases
 * rewrite the directory and wait until both have loaded it (a marker router names the load).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startPortico, type RunningPortico } from '../../support/portico-process.js';
import { freePort } from '../../support/free-port.js';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Builds (first run only) or finds the Traefik binary. */
export function traefikBinary(): string {
  let out: string;
  try {
    out = execFileSync('bash', [resolve(ROOT, 'scripts/build-peers.sh'), 'traefik'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (err) {
    throw new Error(`scripts/build-peers.sh traefik failed: the differential suite needs Go 1.26 or newer and the Go module proxy (${(err as Error).message})`, { cause: err });
  }
  const path = out.trim().split('\n').pop() ?? '';
  if (!existsSync(path)) throw new Error(`scripts/build-peers.sh traefik printed no binary path: ${out}`);
  return path;
}


export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly nextPage: string | null;
  readonly contentType: string | null;
}

async function get(base: string, path: string): Promise<Answer> {
  const res = await fetch(`${base}${path}`, { redirect: 'manual' });
  return { status: res.status, body: await res.text(), nextPage: res.headers.get('x-next-page'), contentType: res.headers.get('content-type') };
}

export interface Pair {
  /** The directory both file providers read. */
  readonly dir: string;
  /** Entry point name → address, as both declare them. */
  readonly entryPoints: Readonly<Record<string, string>>;
  traefik(path: string): Promise<Answer>;
  portico(path: string): Promise<Answer>;
  /** Replaces the directory's files and waits until both sides serve the marker router `marker-<n>`. */
  load(files: Readonly<Record<string, string>>): Promise<void>;
  stop(): Promise<void>;
  traefikOutput(): string;
}

export function startTraefik(bin: string, args: string[]): { proc: ChildProcess; output: () => string } {
  const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  return { proc, output: () => out };
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await fn()) return;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`);
}

/**
 * Starts Traefik and Portico on free loopback ports. Entry points: `web` and `websecure` (TCP, the
 * defaults), `udpep` (UDP), and each side's `traefik` entry point (its API listener).
 */
export async function startPair(): Promise<Pair> {
  const bin = traefikBinary();
  const dir = mkdtempSync(join(tmpdir(), 'portico-traefik-diff-'));
  const confDir = join(dir, 'conf');
  const dataDir = join(dir, 'data');
  mkdirSync(confDir);
  mkdirSync(dataDir);
  const [web, websecure, udp, api] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const entryPoints = { web: `127.0.0.1:${web}`, websecure: `127.0.0.1:${websecure}`, udpep: `127.0.0.1:${udp}/udp` };
  let marker = 0;
  /** Record names (without @file) the last load's files defined. */
  let previous = new Set<string>();
  writeFileSync(join(confDir, 'marker.yaml'), markerFile(marker));
  const traefik = startTraefik(bin, [
    `--entryPoints.web.address=${entryPoints.web}`, '--entryPoints.web.asDefault=true',
    `--entryPoints.websecure.address=${entryPoints.websecure}`, '--entryPoints.websecure.asDefault=true',
    `--entryPoints.udpep.address=${entryPoints.udpep}`,
    `--entryPoints.traefik.address=127.0.0.1:${api}`,
    '--api.insecure=true', '--api.dashboard=true',
    `--providers.file.directory=${confDir}`, '--providers.file.watch=true',
    '--providers.providersThrottleDuration=0s',
    '--global.checkNewVersion=false', '--global.sendAnonymousUsage=false',
    '--log.level=ERROR',
  ]);
  let portico: RunningPortico | undefined;
  try {
    portico = await startPortico([
      '--management.listen-address', '127.0.0.1:0',
      '--management.entry-points', Object.entries(entryPoints).map(([k, v]) => `${k}=${v}`).join(','),
      '--pushgateway.listen-address', 'off', '--search.listen-address', 'off', '--internal.listen-address', 'off',
      '--providers.file.directory', confDir, '--data.dir', dataDir,
    // A guard against hangs, sized for a loaded machine (a niced run waited over 45 s for the start).
    ], {}, 180_000);
  } catch (err) {
    traefik.proc.kill('SIGKILL');
    throw err;
  }
  const porticoBase = `http://127.0.0.1:${portico.ports.management}`;
  const traefikBase = `http://127.0.0.1:${api}`;
  const pair: Pair = {
    dir: confDir,
    entryPoints,
    traefik: (path) => get(traefikBase, path),
    portico: (path) => get(porticoBase, path),
    traefikOutput: traefik.output,
    async load(files) {
      marker++;
      for (const name of readdirSync(confDir)) rmSync(join(confDir, name), { recursive: true, force: true });
      // Each file is written beside the directory and renamed into it, so no side reads one half
      // written (a side that did kept a load without that file: seen once in each of Traefik and Portico).
      const place = (name: string, text: string) => {
        const path = join(confDir, name);
        mkdirSync(resolve(path, '..'), { recursive: true });
        const staging = join(dir, 'staging');
        writeFileSync(staging, text);
        renameSync(staging, path);
      };
      for (const [name, text] of Object.entries(files)) place(name, text);
      // Written last, so a side that sees the marker has seen the rest; under a new name each
      // time: a side lists a directory, then reads its files one by one, so a listing taken before
      // the old files were removed, read slowly, found the old marker file already replaced by the
      // new marker and served the new marker with the last load's records (Traefik, under load).
      place(`zz-marker-${marker}.yaml`, markerFile(marker));
      const name = `marker-${marker}@file`;
      await until(`marker ${marker} in both`, async () => {
        if (traefik.proc.exitCode !== null) throw new Error(`traefik exited: ${traefik.output()}`);
        if (portico?.child.exitCode !== null) throw new Error(`portico exited: ${portico?.lines.slice(-5).join('\n')}`);
        const t = await pair.traefik(`/api/http/routers/${name}`).catch((err: Error) => { throw new Error(`traefik: ${String(err.cause ?? err)}`); });
        const p = await pair.portico(`/api/http/routers/${name}`).catch((err: Error) => { throw new Error(`portico: ${String(err.cause ?? err)}`); });
        return t.status === 200 && p.status === 200;
      }, 60_000);
      // A side that serves the marker has read every file of this load, so no record of the last
      // load that this one lacks may still be there.
      const now = recordNames(files);
      const gone = [...previous].filter((n) => !now.has(n));
      previous = now;
      for (const [sideName, ask] of [['traefik', pair.traefik], ['portico', pair.portico]] as const) {
        const since = Date.now();
        let stale: string[] = [];
        do {
          const raw = await ask('/api/rawdata');
          stale = gone.filter((n) => rawdataHas(raw.body, `${n}@file`));
          if (stale.length > 0) await new Promise((r) => setTimeout(r, 100));
        } while (stale.length > 0 && Date.now() - since < 5_000);
        if (stale.length > 0) throw new Error(`${sideName} serves marker ${marker} and still records of the previous load: ${stale.slice(0, 10).join(', ')}`);
      }
    },
    async stop() {
      await portico?.stop();
      await new Promise<void>((res) => {
        if (traefik.proc.exitCode !== null || traefik.proc.signalCode !== null) return res();
        const t = setTimeout(() => traefik.proc.kill('SIGKILL'), 5000);
        traefik.proc.once('exit', () => {
          clearTimeout(t);
          res();
        });
        traefik.proc.kill('SIGTERM');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await until('both sides up with the first marker', async () => {
    const [t, p] = await Promise.all([pair.traefik('/api/http/routers/marker-0@file'), pair.portico('/api/http/routers/marker-0@file')]);
    if (traefik.proc.exitCode !== null) throw new Error(`traefik exited: ${traefik.output()}`);
    return t.status === 200 && p.status === 200;
  }, 120_000);
  return pair;
}

/**
 * The marker: a router with a service that no case uses, so it shows in every list. Its name sorts
 * after the cases' (`m` after `c` and `h`) and it is `noop@internal`-backed, so it never disables.
 */
function markerFile(n: number): string {
  return `http:\n  routers:\n    marker-${n}:\n      rule: "Path(\`/marker-${n}\`)"\n      service: noop@internal\n`;
}

/** Every record name (routers, services, middlewares of http, tcp and udp) the files define. */
function recordNames(files: Readonly<Record<string, string>>): Set<string> {
  const names = new Set<string>();
  for (const text of Object.values(files)) {
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch {
      continue; // a case's deliberately bad file
    }
    for (const proto of ['http', 'tcp', 'udp']) {
      const section = (doc as Record<string, Record<string, unknown> | undefined> | null)?.[proto];
      for (const kind of ['routers', 'services', 'middlewares']) {
        const records = section?.[kind];
        if (records !== null && typeof records === 'object') for (const n of Object.keys(records)) names.add(n);
      }
    }
  }
  return names;
}

/** Whether a rawdata body lists `name` among any kind's records. */
function rawdataHas(body: string, name: string): boolean {
  let raw: Record<string, Record<string, unknown> | undefined>;
  try {
    raw = JSON.parse(body) as typeof raw;
  } catch {
    return false;
  }
  return Object.values(raw).some((records) => records !== null && typeof records === 'object' && Object.hasOwn(records, name));
}
