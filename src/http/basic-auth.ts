import { createHash, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';

export interface Credentials {
  readonly user: string;
  readonly password: string;
}

/** Parses an `Authorization: Basic …` header; undefined when absent or malformed. */
export function parseBasicAuthorization(header: string | undefined): Credentials | undefined {
  if (header === undefined) return undefined;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

// A bcrypt hash of a random string: verifying unknown users against it costs the same time as
// verifying a known one, so response timing does not reveal which user names exist.
const DUMMY_HASH = bcrypt.hashSync(createHash('sha256').update(String(Math.random())).digest('hex'), 10);

/**
 * Verifies basic-auth credentials against bcrypt hashes. bcrypt is slow on purpose (≈70 ms at
 * cost 10), so, like Prometheus' exporter-toolkit, successful checks are cached, keyed by a
 * SHA-256 of user, password and hash; a changed hash or password never hits the cache.
 */
export class BasicAuthVerifier {
  private readonly cache = new Map<string, Buffer>();

  constructor(private readonly users: ReadonlyMap<string, string>, private readonly maxCache = 1024) {}

  get userCount(): number {
    return this.users.size;
  }

  async verify(creds: Credentials | undefined): Promise<boolean> {
    if (creds === undefined) return false;
    const hash = this.users.get(creds.user);
    const key = createHash('sha256').update(`${creds.user}\0${creds.password}\0${hash ?? ''}`).digest();
    const id = key.toString('hex');
    const cached = this.cache.get(id);
    if (cached !== undefined && timingSafeEqual(cached, key)) return hash !== undefined;
    const ok = await bcrypt.compare(creds.password, hash ?? DUMMY_HASH);
    if (ok && hash !== undefined) {
      if (this.cache.size >= this.maxCache) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(id, key);
      return true;
    }
    return false;
  }
}
