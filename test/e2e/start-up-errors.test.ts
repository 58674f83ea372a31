/**
 * Every expected start-up failure of `portico serve` is one line on stderr that names the flag and
 * its value and says what to do, with exit code 2 for configuration and 1 for the environment
 * (src/config/start-up-errors.ts); a stack trace only with --log.level debug. Runs the built CLI.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, startPortico } from '../support/portico-process.js';

const root = mkdtempSync(join(tmpdir(), 'portico-start-up-'));
afterAll(() => {
  chmodSync(root, 0o700);
  rmSync(root, { recursive: true, force: true });
});

let dirs = 0;
/** A fresh directory under the test's root. */
function freshDir(): string {
  const dir = join(root, `d${++dirs}`);
  mkdirSync(dir);
  return dir;
}

const LISTENERS = ['pushgateway', 'management', 'internal', 'search'] as const;

/** Every listener on a free loopback port, no warm-up: only what a test adds can fail. */
function serveArgs(dataDir: string, extra: string[] = []): string[] {
  return ['serve', '--data.dir', dataDir, '--search.warmup-docs', '0', ...LISTENERS.flatMap((l) => [`--${l}.listen-address`, '127.0.0.1:0']), ...extra];
}

interface Exit {
  readonly code: number | null;
  readonly stderr: string;
  readonly stdout: string;
}

/** Runs the CLI to its exit (the failures happen before any listener is up). */
function run(args: string[]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`portico ${args.join(' ')} did not exit in 30 s:\n${stdout}${stderr}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

/** The failure is exactly one line, and it is this one. */
function expectOneLine(exit: Exit, code: number, line: RegExp): void {
  const lines = exit.stderr.split('\n').filter((l) => l !== '');
  expect(lines, exit.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(line);
  expect(exit.code).toBe(code);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A TCP server holding a loopback port, as another process would. */
async function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port };
}

// Each test starts one CLI process that fails before listening: they run at once, not one after
// another (16 starts took 37-69 s in a row, mostly each process's start-up).
describe.concurrent('start-up failures of portico serve', () => {
  for (const listener of LISTENERS) {
    it(`--${listener}.listen-address on a port in use: exit 1, naming the flag and the address`, async () => {
      const { server, port } = await holdPort();
      try {
        const exit = await run(serveArgs(freshDir(), [`--${listener}.listen-address`, `127.0.0.1:${port}`]));
        expectOneLine(exit, 1, new RegExp(`^portico: --${listener}\\.listen-address 127\\.0\\.0\\.1:${port} is in use by another process; stop that process or choose another address`));
      } finally {
        server.close();
      }
    });
  }

  it('--data.dir under a regular file: exit 2, naming the file', async () => {
    const file = join(freshDir(), 'plain-file');
    writeFileSync(file, 'x');
    const exit = await run(serveArgs(join(file, 'data')));
    expectOneLine(exit, 2, new RegExp(`^portico: --data\\.dir ${escape(file)}/data: ${escape(file)} is a regular file, not a directory; choose another --data\\.dir$`));
  });

  it('--data.dir that this user cannot write: exit 1, saying what to do', async () => {
    // root writes through permission bits, so as root the directory is one in sysfs, where nobody
    // may create anything; otherwise a directory of our own without the write bit.
    let dir = '/sys/fs/portico-start-up-test';
    if (process.getuid?.() !== 0) {
      dir = freshDir();
      chmodSync(dir, 0o500);
    }
    const exit = await run(serveArgs(dir));
    expectOneLine(exit, 1, new RegExp(`^portico: --data\\.dir ${escape(dir)} (is not writable|cannot be created) by user \\d+ \\((EACCES|EPERM|EROFS)\\); .*choose another --data\\.dir$`));
  });

  for (const flag of ['management.users-file', 'search.users-file', 'web.config.file']) {
    it(`--${flag} naming a missing file: exit 2, saying how to create it`, async () => {
      const missing = join(freshDir(), 'missing');
      const exit = await run(serveArgs(freshDir(), [`--${flag}`, missing]));
      expectOneLine(exit, 2, new RegExp(`^portico: --${escape(flag)} ${escape(missing)}: no such file; create it .* or leave the flag empty for no authentication$`));
    });
  }

  it('--internal.token-file that cannot be read as a file: exit 2, naming it', async () => {
    const dir = freshDir();
    const exit = await run(serveArgs(freshDir(), ['--internal.token-file', dir]));
    expectOneLine(exit, 2, new RegExp(`^portico: --internal\\.token-file ${escape(dir)} is a directory, not a file; point the flag at a readable file`));
  });

  it('an empty --internal.token-file: exit 2', async () => {
    const file = join(freshDir(), 'token');
    writeFileSync(file, '\n');
    const exit = await run(serveArgs(freshDir(), ['--internal.token-file', file]));
    expectOneLine(exit, 2, new RegExp(`^portico: --internal\\.token-file ${escape(file)} is empty; write a token into it`));
  });

  it('a corrupt persistence file: exit 1, naming it, and the file is left alone', async () => {
    const dataDir = freshDir();
    const file = join(dataDir, 'pushgateway.json');
    writeFileSync(file, '{"format":"portico-pushgateway","version":1,"groups":[');
    const exit = await run(serveArgs(dataDir));
    expectOneLine(exit, 1, new RegExp(`^portico: --persistence\\.file ${escape(file)}: the persistence file is corrupt \\(.+\\); move it away to start empty, fix it, or choose another --persistence\\.file$`));
    expect(readFileSync(file, 'utf8')).toBe('{"format":"portico-pushgateway","version":1,"groups":[');
  });

  it('a search database that is not SQLite: exit 1, naming it', async () => {
    const dataDir = freshDir();
    mkdirSync(join(dataDir, 'search'));
    writeFileSync(join(dataDir, 'search', 'documents.db'), 'this is not a database, only text that is long enough to have a header. '.repeat(20));
    const exit = await run(serveArgs(dataDir));
    expectOneLine(exit, 1, new RegExp(`^portico: --data\\.dir: ${escape(join(dataDir, 'search', 'documents.db'))} is not a readable SQLite database \\(SQLITE_NOTADB\\); move .* away to start with no indices, or restore it from a backup$`));
  });

  it('prints the stack as well with --log.level debug', async () => {
    const file = join(freshDir(), 'plain-file');
    writeFileSync(file, 'x');
    const exit = await run(serveArgs(join(file, 'data'), ['--log.level', 'debug']));
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/^portico: --data\.dir .* is a regular file, not a directory; choose another --data\.dir\nConfigError: /);
    expect(exit.stderr).toContain('caused by: Error: ENOTDIR');
  });
});

describe('a corrupt index snapshot', () => {
  it('is a warning and a rebuild from the stored documents, with every document kept', async () => {
    const dataDir = freshDir();
    const first = await startPortico(serveArgs(dataDir).slice(1));
    const base = `http://127.0.0.1:${first.ports.search}`;
    const bulk = ['a', 'b', 'c'].map((id) => `{"index":{"_index":"logs","_id":"${id}"}}\n{"msg":"hello ${id}"}\n`).join('');
    const answer = await fetch(`${base}/_bulk?refresh=true`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: bulk });
    expect(answer.status).toBe(200);
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.lines.some((l) => l.includes('"msg":"index snapshot written"'))).toBe(true);

    // The head (generation, mark, SHA-256) kept, so the checksum is what finds the garbage.
    const snapshot = join(dataDir, 'search', 'index.snapshot');
    writeFileSync(snapshot, Buffer.concat([readFileSync(snapshot).subarray(0, 44), Buffer.from('garbage, not a snapshot')]));
    const second = await startPortico(serveArgs(dataDir).slice(1));
    try {
      const records = second.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(records.filter((r) => r.area === 'search' && r.level !== 'debug').map((r) => [r.level, r.msg])).toEqual([
        ['warn', 'the index snapshot could not be read; rebuilding the indices from the stored documents'],
        ['info', 'loaded 1 indices with 3 documents from the stored documents'],
        ['info', expect.stringMatching(/^listening on http:\/\/127\.0\.0\.1:\d+$/)],
      ]);
      const count = (await (await fetch(`http://127.0.0.1:${second.ports.search}/logs/_count`)).json()) as { count: number };
      expect(count.count).toBe(3);
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
  });
});
