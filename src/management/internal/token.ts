/**
 * The token protecting the internal listener: read from `--internal.token-file`, or created there
 * with 32 random bytes (hex, mode 0600) when the file does not exist, so the operator in the same
 * pod can read it from a shared volume. Compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError } from '../../config/flag-types.js';
import { errnoCode, fileError } from '../../config/start-up-errors.js';

const FLAG = 'internal.token-file';
const WHAT_TO_DO = 'point the flag at a readable file holding the token, or at a path where Portico may create one';

/** Reads the token, creating the file with a random one if it is missing. */
export async function readOrCreateToken(path: string): Promise<string> {
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT') throw fileError(FLAG, path, err, WHAT_TO_DO);
  }
  if (text !== undefined) {
    const token = text.trim();
    if (token === '') throw new ConfigError(`--${FLAG} ${path} is empty; write a token into it, or delete it to have a new one created`);
    return token;
  }
  const token = randomBytes(32).toString('hex');
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
    return token;
  } catch (err) {
    // Another process created it first: use theirs.
    if (errnoCode(err) === 'EEXIST') return (await readFile(path, 'utf8')).trim();
    throw fileError(FLAG, path, err, WHAT_TO_DO);
  }
}

/** Constant-time check of an `Authorization: Bearer <token>` header. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  const given = createHash('sha256').update(m?.[1] ?? '').digest();
  const expected = createHash('sha256').update(token).digest();
  return timingSafeEqual(given, expected) && m !== null;
}
