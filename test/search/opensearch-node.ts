/**
 * A real OpenSearch node for tests: the reference the differential search suite compares Portico
 * with (test/search/differential/). The node is OpenSearch's server and its netty4 and
 * analysis-common plugins from Maven Central, started by test/peers/opensearch/'s small launcher on
 * free loopback ports, single-node, on a temporary directory. scripts/build-peers.sh builds the
 * launcher once and caches it outside the repository (its jar and classpath).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(import.meta.dirname, '../..');

/** An answer of the node: the status and the parsed JSON body (null for an empty one). */
export interface OpenSearchAnswer {
  readonly status: number;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers of every API, read loosely in tests
}

export interface OpenSearchNode {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The JVM's process id, for a node this process launched (not one leased from the test pool): benchmarks read its CPU and memory from /proc. */
  readonly pid?: number;
  /** `method path` with `body` (JSON, or a string sent as it is, e.g. NDJSON for _bulk). */
  call(method: string, path: string, body?: unknown): Promise<OpenSearchAnswer>;
  stop(): Promise<void>;
}

export interface OpenSearchOptions {
  /** The JVM heap, both -Xms and -Xmx (OpenSearch's advice: the same value); `1g` unless given. */
  readonly heap?: string;
  /** How long to wait for the node to answer and its cluster to be green or yellow; 120 s unless given. */
  readonly startTimeoutMs?: number;
  /**
   * The JVM's compilers and collector. `full` (the default): C2 and G1, as OpenSearch runs in
   * production; benchmarks compare with this. `quick`: the client compiler alone (one thread) and the
   * serial collector, for test runs, whose requests are each different and few: the node's answers
   * are the same (Java's floating point does not depend on the compiler), and on this 2-core machine
   * search-differential.int.test.ts took 41 s of CPU and 28 s instead of 77 s and 42 s (2026-11-29).
   */
  readonly jit?: 'full' | 'quick';
}

const JVM_FLAGS = {
  full: ['-XX:+UseG1GC'],
  quick: ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:CICompilerCount=1'],
} as const;

/** The launcher's jar and classpath, built (or found in the cache) by scripts/build-peers.sh. */
export function openSearchPeer(): { jar: string; classpath: string } {
  for (const tool of ['java', 'mvn']) {
    try {
      execFileSync(tool, ['-version'], { stdio: 'ignore' });
    } catch (err) {
      throw new Error(`${tool} is not installed: the differential search suite needs Java 17 and Maven to build and run its OpenSearch node (Debian: apt-get install openjdk-17-jdk-headless maven)`, { cause: err });
    }
  }
  let out: string;
  try {
    out = execFileSync('bash', [join(ROOT, 'scripts/build-peers.sh'), 'opensearch'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (err) {
    throw new Error(`scripts/build-peers.sh opensearch failed: the OpenSearch node needs Maven Central on the first run (${(err as Error).message})`, { cause: err });
  }
  const dir = out.trim();
  return { jar: join(dir, 'opensearch-node.jar'), classpath: readFileSync(join(dir, 'classpath.txt'), 'utf8').trim() };
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<OpenSearchAnswer> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'application/x-ndjson' : 'application/json';
  const res = await fetch(url + path, { method, body: payload, headers: payload === undefined ? {} : { 'content-type': contentType } });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

/** Waits for the launcher's line naming the HTTP address, or fails with its output when it exits first. */
function httpAddress(child: ChildProcess, output: () => string, timeoutMs: number): Promise<string> {
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the OpenSearch node did not start within ${timeoutMs} ms:\n${output()}`)), timeoutMs);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /^portico-opensearch http (\S+)$/.exec(line);
      if (m?.[1] === undefined) return;
      clearTimeout(timer);
      done(`http://${m[1]}`);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`the OpenSearch node exited (${code ?? signal}) before it started:\n${output()}`));
    });
  });
}

async function waitHealthy(url: string, timeoutMs: number): Promise<void> {
  const health = await call(url, 'GET', `/_cluster/health?wait_for_status=yellow&timeout=${Math.ceil(timeoutMs / 1000)}s`);
  if (health.status !== 200 || !['green', 'yellow'].includes(health.body?.status)) {
    throw new Error(`the OpenSearch cluster is not green or yellow: ${health.status} ${JSON.stringify(health.body)}`);
  }
}

/**
 * An index template for every index created from now on (priority 0, so a test's own template wins):
 * - Elasticsearch 8's BM25 (the launcher's `es8_bm25` similarity: Lucene's BM25Similarity).
 *   OpenSearch 2.x scores with LegacyBM25Similarity, which multiplies each BM25 score by k1 + 1
 *   (2.2), as Elasticsearch 7 did; Elasticsearch 8, the compatibility target, does not.
 * - The log_byte_size merge policy, which merges only adjacent segments, so Lucene's doc ids stay
 *   in write order and ties break as in Portico (write order). The default tiered policy merges
 *   segments out of order, in the background, so the order of equal hits changed from run to run.
 */
async function useReferenceDefaults(url: string): Promise<void> {
  const settings = { 'index.similarity.default.type': 'es8_bm25', 'index.merge.policy': 'log_byte_size' };
  const template = { index_patterns: ['*'], priority: 0, template: { settings } };
  const res = await call(url, 'PUT', '/_index_template/portico-es8-scoring', template);
  if (res.status !== 200) throw new Error(`the OpenSearch node refused the reference template: ${res.status} ${JSON.stringify(res.body)}`);
}

/**
 * An OpenSearch node for a test file, empty, green or yellow. In a vitest run whose project has the
 * pool (test/support/opensearch-pool.ts), it is a node of the pool leased for the file (`stop()`
 * gives it back, wiped for the next file; `options` are the pool's); otherwise a node of its own.
 */
export async function startOpenSearch(options: OpenSearchOptions = {}): Promise<OpenSearchNode> {
  const pool = process.env.PORTICO_OPENSEARCH_POOL;
  if (pool === undefined) return launchOpenSearch(options);
  const res = await fetch(`${pool}/lease`, { method: 'POST' });
  const leased = (await res.json()) as { id: number; url: string; error?: string };
  if (res.status !== 200) throw new Error(`the OpenSearch pool could not lease a node: ${leased.error ?? res.status}`);
  let released = false;
  return {
    url: leased.url,
    call: (method, path, body) => call(leased.url, method, path, body),
    stop: async () => {
      if (released) return;
      released = true;
      await fetch(`${pool}/release?id=${leased.id}`, { method: 'POST' });
    },
  };
}

/** Starts an OpenSearch node on free loopback ports and waits until its cluster is green or yellow. */
export async function launchOpenSearch(options: OpenSearchOptions = {}): Promise<OpenSearchNode> {
  const { jar, classpath } = openSearchPeer();
  const home = mkdtempSync(join(tmpdir(), 'portico-opensearch-'));
  const heap = options.heap ?? '1g';
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  // Standard input stays open: the launcher stops when it closes, so the node never outlives this process.
  const child = spawn('java', [`-Xms${heap}`, `-Xmx${heap}`, ...JVM_FLAGS[options.jit ?? 'full'], '-Djava.awt.headless=true', '-cp', `${jar}:${classpath}`, 'dev.portico.peers.opensearch.PorticoOpenSearchNode', home], { stdio: ['pipe', 'pipe', 'pipe'] });
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const url = await httpAddress(child, () => tail, timeoutMs);
    await waitHealthy(url, timeoutMs);
    await useReferenceDefaults(url);
    return { url, pid: child.pid, call: (method, path, body) => call(url, method, path, body), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
