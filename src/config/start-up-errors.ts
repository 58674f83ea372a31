import { accessSync, constants, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from './flag-types.js';

/**
 * The start-up failures a user can meet and fix, each one line that names the flag and its value
 * and says what to do. `src/cli.ts` prints the message and exits 2 for a ConfigError (the value
 * can never work: a file that does not exist, a path through a regular file) and 1 for an
 * EnvironmentError (the value is right, but the machine is not ready for it: the port is taken, the
 * directory is not writable, a data file is damaged). Anything else is a bug and keeps its stack.
 */
export class EnvironmentError extends Error {
  override readonly name: string = 'EnvironmentError';
}

/** The Node error code of a failed system call, '' when there is none. */
export function errnoCode(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

function whoAmI(): string {
  return typeof process.getuid === 'function' ? `user ${process.getuid()}` : 'this user';
}

const NOT_PERMITTED = new Set(['EACCES', 'EPERM', 'EROFS']);

/** The first existing ancestor of `path` that is not a directory, if any (why ENOTDIR happened). */
function regularFileOnPath(path: string): string | undefined {
  for (let p = resolve(path); ; p = dirname(p)) {
    try {
      return statSync(p).isDirectory() ? undefined : p;
    } catch {
      if (dirname(p) === p) return undefined;
    }
  }
}

/**
 * A file a flag names, read at start-up (users files, web config, token file), with the failure
 * turned into one line naming the flag, the file and what to do.
 */
export function readFlagFile(flagName: string, path: string, whatToDo: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw fileError(flagName, path, err, whatToDo);
  }
}

/** The one-line error for a flag's file that could not be read. */
export function fileError(flagName: string, path: string, err: unknown, whatToDo: string): Error {
  const code = errnoCode(err);
  const head = `--${flagName} ${path}`;
  if (code === 'ENOENT') return new ConfigError(`${head}: no such file; ${whatToDo}`, { cause: err });
  if (code === 'EISDIR') return new ConfigError(`${head} is a directory, not a file; ${whatToDo}`, { cause: err });
  if (code === 'ENOTDIR') {
    const file = regularFileOnPath(path);
    return new ConfigError(`${head}: ${file ?? 'a part of the path'} is a regular file, not a directory; ${whatToDo}`, { cause: err });
  }
  if (NOT_PERMITTED.has(code)) return new EnvironmentError(`${head} cannot be read by ${whoAmI()} (${code}); make it readable (chmod, chown) or run Portico as its owner`, { cause: err });
  return new EnvironmentError(`${head} cannot be read: ${(err as Error).message}`, { cause: err });
}

/**
 * Makes sure `--data.dir` is a directory Portico can write, creating it when missing, before any
 * area opens a file in it: otherwise the first area to touch it fails with a message about its own
 * file (`internal-token`, `pushgateway.json`) and a stack trace.
 */
export function prepareDataDir(dir: string): void {
  const head = `--data.dir ${dir}`;
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOTDIR' || code === 'EEXIST') {
      const file = regularFileOnPath(dir);
      throw new ConfigError(`${head}: ${file ?? dir} is a regular file, not a directory; choose another --data.dir`, { cause: err });
    }
    if (NOT_PERMITTED.has(code)) throw new EnvironmentError(`${head} cannot be created by ${whoAmI()} (${code}); create it with write access for this user, or choose another --data.dir`, { cause: err });
    throw new EnvironmentError(`${head} cannot be created: ${(err as Error).message}`, { cause: err });
  }
  const probe = join(dir, `.portico-write-check-${process.pid}`);
  try {
    accessSync(dir, constants.W_OK);
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (err) {
    const code = errnoCode(err);
    throw new EnvironmentError(`${head} is not writable by ${whoAmI()} (${code || (err as Error).message}); give this user write access (chown, chmod) or choose another --data.dir`, { cause: err });
  }
}
