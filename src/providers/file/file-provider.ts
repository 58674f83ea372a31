/**
 * The `file` provider: reads one dynamic configuration file and, when watching, reloads it when
 * its directory changes (editors and Kubernetes ConfigMaps replace files rather than write them,
 * so the directory is watched, and unchanged content is ignored). A bad file keeps the last good
 * snapshot; the error is logged and kept in `lastError` (shown by the internal GET endpoint).
 */
import { createHash } from 'node:crypto';
import { watch as fsWatch, type FSWatcher } from 'node:fs';
import { readFile as fsReadFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { SnapshotSink } from '../../dynamic-config/configuration.js';
import type { DynamicConfiguration } from '../../dynamic-config/configuration.js';
import { parseDynamicFile } from './dynamic-file.js';
import { parseDirectoryFiles, readDirectoryFiles } from './file-directory.js';

export const FILE_PROVIDER = 'file';

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface FileProviderOptions {
  /** The dynamic configuration file (YAML, or JSON when it ends in `.json`). */
  readonly filename: string;
  /**
   * A directory of YAML files instead (`--providers.file.directory`), read recursively and merged
   * as Traefik merges them (`file-directory.ts`); when set, `filename` is ignored.
   */
  readonly directory?: string;
  /** Reload on change (default true). */
  readonly watch?: boolean;
  readonly sink: SnapshotSink;
  readonly logger: Logger;
  /** Quiet time after the last change event before reloading, in ms (default 200). */
  readonly debounceMs?: number;
  /** Injected so tests control time. */
  readonly timers?: Timers;
  readonly readFile?: (path: string) => Promise<string>;
  /** Injected watcher factory; returns a close function. */
  readonly watchDirectory?: (dir: string, onEvent: () => void, onError: (err: Error) => void, recursive: boolean) => () => void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

function defaultWatchDirectory(dir: string, onEvent: () => void, onError: (err: Error) => void, recursive: boolean): () => void {
  const watcher: FSWatcher = fsWatch(dir, { persistent: false, recursive }, () => onEvent());
  watcher.on('error', onError);
  return () => watcher.close();
}

export class FileProvider {
  private lastHash: string | undefined;
  private error: string | undefined;
  private timer: unknown;
  private closeWatch: (() => void) | undefined;
  private reloading: Promise<void> = Promise.resolve();
  private stopped = false;
  readonly path: string;

  constructor(private readonly opts: FileProviderOptions) {
    this.path = resolve(opts.directory ?? opts.filename);
  }

  /** The last read or parse error, or undefined when the last read succeeded. */
  get lastError(): string | undefined {
    return this.error;
  }

  /** Loads the file once and starts watching (when enabled). Never throws for a bad file. */
  async start(): Promise<void> {
    await this.reload();
    if (this.opts.watch ?? true) {
      const isDirectory = this.opts.directory !== undefined;
      const dir = isDirectory ? this.path : dirname(this.path);
      try {
        const watchDir = this.opts.watchDirectory ?? defaultWatchDirectory;
        this.closeWatch = watchDir(dir, () => this.schedule(), (err) => {
          this.opts.logger.error({ err, dir }, 'file provider: watching stopped');
        }, isDirectory);
      } catch (err) {
        this.opts.logger.error({ err, dir }, 'file provider: cannot watch the directory; changes will not be reloaded');
      }
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) (this.opts.timers ?? realTimers).clearTimeout(this.timer);
    this.timer = undefined;
    this.closeWatch?.();
    this.closeWatch = undefined;
  }

  private schedule(): void {
    if (this.stopped) return;
    const timers = this.opts.timers ?? realTimers;
    if (this.timer !== undefined) timers.clearTimeout(this.timer);
    this.timer = timers.setTimeout(() => {
      this.timer = undefined;
      void this.reload();
    }, this.opts.debounceMs ?? 200);
  }

  /** Reads, checks and applies the file now; serialised so reloads never overlap. */
  reload(): Promise<void> {
    this.reloading = this.reloading.then(() => this.load());
    return this.reloading;
  }

  /** The text to hash and a parser of it: the file's, or the directory's files in order. */
  private async read(): Promise<{ text: string; parse: () => DynamicConfiguration }> {
    if (this.opts.directory !== undefined) {
      const files = await readDirectoryFiles(this.path);
      const text = files.map((f) => `${f.name}\0${f.text}`).join('\0');
      return { text, parse: () => parseDirectoryFiles(files) };
    }
    const text = await (this.opts.readFile ?? ((p) => fsReadFile(p, 'utf8')))(this.path);
    return { text, parse: () => parseDynamicFile(text, basename(this.path)) };
  }

  private async load(): Promise<void> {
    if (this.stopped) return;
    const log = this.opts.logger;
    let read: { text: string; parse: () => DynamicConfiguration };
    try {
      read = await this.read();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        // Common when the default sample file is absent (a container image): say how to turn it off.
        if (this.error === undefined) log.warn({ file: this.path }, 'file provider: the file does not exist (yet); --providers.file.filename "" turns the file provider off');
        this.error = `${this.path} does not exist`;
        return;
      }
      this.fail(code === undefined ? (err as Error).message : `cannot read ${this.path}: ${(err as Error).message}`);
      return;
    }
    const hash = createHash('sha256').update(read.text).digest('hex').slice(0, 16);
    if (hash === this.lastHash && this.error === undefined) return;
    try {
      const configuration = read.parse();
      this.opts.sink.set(FILE_PROVIDER, { configuration, version: hash });
      this.lastHash = hash;
      if (this.error !== undefined) log.info({ file: this.path }, 'file provider: configuration is valid again');
      this.error = undefined;
      log.info({ file: this.path, version: hash }, 'file provider: configuration applied');
    } catch (err) {
      this.fail((err as Error).message);
    }
  }

  private fail(message: string): void {
    if (message !== this.error) {
      this.opts.logger.error({ file: this.path, error: message }, 'file provider: keeping the last good configuration');
    }
    this.error = message;
  }
}
