import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../config/flag-types.js';
import { readFlagFile } from '../config/start-up-errors.js';
import { BasicAuthVerifier } from './basic-auth.js';

export class UsersFileError extends Error {
  override readonly name = 'UsersFileError';
}

const BCRYPT = /^\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}$/;

function checkHash(source: string, user: string, hash: string): void {
  if (!BCRYPT.test(hash)) throw new UsersFileError(`${source}: the password of user "${user}" is not a bcrypt hash (use htpasswd -nBC 10 ${user})`);
}

/** `user:bcrypt-hash` lines, as `htpasswd -B -C 10` writes them; `#` comments and blank lines ignored. */
export function parseHtpasswd(text: string, source: string): Map<string, string> {
  const users = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new UsersFileError(`${source}:${i + 1}: expected user:bcrypt-hash`);
    const user = line.slice(0, colon);
    const hash = line.slice(colon + 1);
    checkHash(`${source}:${i + 1}`, user, hash);
    users.set(user, hash);
  });
  return users;
}

/** Prometheus exporter-toolkit web config (`basic_auth_users: {user: hash}`), as Pushgateway reads it. */
export interface WebConfig {
  readonly basicAuthUsers: Map<string, string>;
}

const KNOWN_WEB_CONFIG_KEYS = new Set(['basic_auth_users', 'tls_server_config', 'http_server_config', 'rate_limit']);

export function parseWebConfig(text: string, source: string): WebConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new UsersFileError(`${source} is not valid YAML: ${(err as Error).message}`, { cause: err });
  }
  const users = new Map<string, string>();
  if (doc == null) return { basicAuthUsers: users };
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new UsersFileError(`${source}: expected a mapping at the top level`);
  for (const key of Object.keys(doc)) {
    if (!KNOWN_WEB_CONFIG_KEYS.has(key)) throw new UsersFileError(`${source}: unknown key "${key}"`);
  }
  const tls = (doc as Record<string, unknown>).tls_server_config;
  if (tls != null) throw new UsersFileError(`${source}: tls_server_config is not supported; terminate TLS in front of Portico`);
  const raw = (doc as Record<string, unknown>).basic_auth_users;
  if (raw != null) {
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new UsersFileError(`${source}: basic_auth_users must map user names to bcrypt hashes`);
    for (const [user, hash] of Object.entries(raw)) {
      if (typeof hash !== 'string') throw new UsersFileError(`${source}: the password of user "${user}" must be a string`);
      checkHash(source, user, hash);
      users.set(user, hash);
    }
  }
  return { basicAuthUsers: users };
}

/**
 * The Basic auth users of an htpasswd flag (`--management.users-file`, `--search.users-file`):
 * undefined when the flag is empty; a missing, malformed or empty file stops start-up naming the
 * flag (a file without users would refuse everyone).
 */
export function loadHtpasswdVerifier(flagName: string, path: string): BasicAuthVerifier | undefined {
  if (path === '') return undefined;
  const text = readFlagFile(flagName, path, 'create it (htpasswd -cBC 10 FILE USER) or leave the flag empty for no authentication');
  let users: Map<string, string>;
  try {
    users = parseHtpasswd(text, path);
  } catch (err) {
    throw new ConfigError(`--${flagName}: ${(err as Error).message}`, { cause: err });
  }
  if (users.size === 0) throw new ConfigError(`--${flagName}: ${path} holds no users`);
  return new BasicAuthVerifier(users);
}
