/**
 * The token protecting the internal listener: read from `--internal.token-file`, or created there
 * with 32 random bytes (hex, mode 0600) when the file does not exist, so the operator in the same
 * pod can read it from a shared volume. Compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError } from '../../config/flag-types.js';

/** Reads the token, creating the file with a random one if it is missing. */
export async function readOrCreateToken(path: string): Promise<string> {
  try {
    const token = (await readFile(path, 'utf8')).trim();
    if (token === '') throw new ConfigError(`internal token file ${path} is empty`);
    return token;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('hex');
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeFile(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
    return token;
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await readFile(path, 'utf8')).trim();
    throw err;
  }
}

/** Constant-time check of an `Authorization: Bearer <token>` header. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  const given = createHash('sha256').update(m?.[1] ?? '').digest();
  const expected = createHash('sha256').update(token).digest();
  return timingSafeEqual(given, expected) && m !== null;
}
