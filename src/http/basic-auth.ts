import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
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

/** The cost (log2 of the rounds) a bcrypt hash was made with: `$2y$10$…` is 10. */
export function bcryptCost(hash: string): number {
  const m = /^\$2[abxy]?\$(\d{2})\$/.exec(hash);
  if (!m) throw new Error('not a bcrypt hash');
  return Number(m[1]);
}

/** The bcrypt operations the verifier runs; tests pass counting ones. */
export interface BcryptFunctions {
  compare(password: string, hash: string): Promise<boolean>;
  hash(password: string, cost: number): string;
}

const realBcrypt: BcryptFunctions = {
  compare: (password, hash) => bcrypt.compare(password, hash),
  hash: (password, cost) => bcrypt.hashSync(password, cost),
};

export interface BasicAuthVerifierOptions {
  /** Successful checks kept (default 1024). */
  readonly maxCache?: number;
  readonly bcrypt?: BcryptFunctions;
}

/**
 * Verifies basic-auth credentials against bcrypt hashes. bcrypt is slow on purpose (≈70 ms at
 * cost 10), so, like Prometheus' exporter-toolkit, successful checks are cached, keyed by a
 * SHA-256 of user, password and hash; a changed hash or password never hits the cache.
 *
 * Every check that misses the cache costs 2^C bcrypt rounds, C being the highest cost in the
 * users file, whether the user exists or not, so the answer's timing does not tell which names
 * exist: an unknown user is compared with a dummy hash of cost C; a known user whose hash has a
 * lower cost c is compared with it and then with dummy hashes of costs c, c+1, …, C-1, and
 * 2^c + (2^c + 2^(c+1) + … + 2^(C-1)) = 2^C.
 */
export class BasicAuthVerifier {
  private readonly cache = new Map<string, Buffer>();
  /** Dummy hashes of a random secret, by cost: from the lowest to the highest cost of the file. */
  private readonly dummies = new Map<number, string>();
  private readonly maxCost: number;
  private readonly maxCache: number;
  private readonly fns: BcryptFunctions;

  constructor(private readonly users: ReadonlyMap<string, string>, options: BasicAuthVerifierOptions = {}) {
    this.maxCache = options.maxCache ?? 1024;
    this.fns = options.bcrypt ?? realBcrypt;
    const costs = [...users.values()].map(bcryptCost);
    // No users: every check fails; the dummy keeps the cost of a usual file.
    this.maxCost = costs.length === 0 ? 10 : Math.max(...costs);
    const minCost = costs.length === 0 ? this.maxCost : Math.min(...costs);
    const secret = randomBytes(32).toString('hex');
    for (let cost = minCost; cost <= this.maxCost; cost++) this.dummies.set(cost, this.fns.hash(secret, cost));
  }

  get userCount(): number {
    return this.users.size;
  }

  /** The cost every check that misses the cache pays, in bcrypt's log2 rounds. */
  get checkCost(): number {
    return this.maxCost;
  }

  async verify(creds: Credentials | undefined): Promise<boolean> {
    if (creds === undefined) return false;
    const hash = this.users.get(creds.user);
    const key = createHash('sha256').update(`${creds.user}\0${creds.password}\0${hash ?? ''}`).digest();
    const id = key.toString('hex');
    const cached = this.cache.get(id);
    if (cached !== undefined && timingSafeEqual(cached, key)) return hash !== undefined;
    const ok = await this.fns.compare(creds.password, hash ?? (this.dummies.get(this.maxCost) as string));
    if (hash !== undefined) {
      // Pad a cheaper hash up to the file's highest cost (see the class comment).
      for (let cost = bcryptCost(hash); cost < this.maxCost; cost++) await this.fns.compare(creds.password, this.dummies.get(cost) as string);
    }
    if (ok && hash !== undefined) {
      if (this.cache.size >= this.maxCache) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(id, key);
      return true;
    }
    return false;
  }
}
