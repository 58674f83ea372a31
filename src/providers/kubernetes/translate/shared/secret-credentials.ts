import { createHash } from 'node:crypto';
import type { Secret } from '../../client/kube-objects.js';

/**
 * The `users` of a basicAuth or digestAuth middleware, read from the Secret its `secret` field
 * names, following Traefik's CRD provider:
 * - a `kubernetes.io/basic-auth` Secret (basicAuth only) gives one user, `<username>:{SHA}<base64
 *   of the SHA-1 of the password>`, the htpasswd SHA form, so the plain password never leaves it;
 * - any other Secret must hold exactly one data key, whose non-empty lines are htpasswd (or
 *   htdigest) lines, used as they are.
 * Error texts are Traefik's. Only names ever appear in them, never secret data.
 */

export const BASIC_AUTH_SECRET_TYPE = 'kubernetes.io/basic-auth';

/** Secret types whose data the cache keeps; other types keep their key names only (see slimSecret). */
const CREDENTIAL_TYPES: readonly string[] = ['', 'Opaque', BASIC_AUTH_SECRET_TYPE];

export interface CredentialsError {
  readonly reason: 'SecretNotFound' | 'InvalidSecret';
  readonly message: string;
}

export type CredentialsResult = { readonly users: string[]; readonly error?: undefined } | { readonly users?: undefined; readonly error: CredentialsError };

function decode(value: string | undefined): Buffer {
  return Buffer.from(value ?? '', 'base64');
}

/** Lines as Go's bufio.Scanner splits them (`\n`, a trailing `\r` dropped), empty ones skipped. */
function credentialLines(text: string): string[] {
  return text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).filter((l) => l.length > 0);
}

/**
 * Resolves the users of a `basicAuth` or `digestAuth` middleware in `namespace`.
 * `secret` is the cached Secret named `secretName`, or undefined when there is none.
 */
export function authUsers(kind: 'basicAuth' | 'digestAuth', namespace: string, secretName: string, secret: Secret | undefined): CredentialsResult {
  if (secretName === '') return { error: { reason: 'InvalidSecret', message: 'auth secret must be set' } };
  const id = `'${namespace}/${secretName}'`;
  if (!secret) return { error: { reason: 'SecretNotFound', message: `secret ${id} not found` } };
  const what = kind === 'basicAuth' ? 'basic auth' : 'digest auth';
  const data = secret.data ?? {};
  const type = secret.type ?? '';
  if (kind === 'basicAuth' && type === BASIC_AUTH_SECRET_TYPE) {
    if (data.username === undefined || data.password === undefined) {
      return { error: { reason: 'InvalidSecret', message: `failed to load ${what} credentials: secret ${id} must contain both username and password keys` } };
    }
    const digest = createHash('sha1').update(decode(data.password)).digest('base64');
    return { users: [`${decode(data.username).toString('utf8')}:{SHA}${digest}`] };
  }
  const keys = Object.keys(data);
  if (keys.length !== 1) {
    return { error: { reason: 'InvalidSecret', message: `failed to load ${what} credentials: found ${keys.length} elements for secret ${id}, must be single element exactly` } };
  }
  if (!CREDENTIAL_TYPES.includes(type)) {
    // Its data was not kept (slimSecret): such Secrets (TLS, tokens, Helm releases) are not credentials.
    return { error: { reason: 'InvalidSecret', message: `failed to load ${what} credentials: secret ${id} has type ${type}; use an Opaque or ${BASIC_AUTH_SECRET_TYPE} secret` } };
  }
  const users = credentialLines(decode(data[keys[0] as string]).toString('utf8'));
  if (users.length === 0) {
    return { error: { reason: 'InvalidSecret', message: `failed to load ${what} credentials: secret ${id} does not contain any credentials` } };
  }
  return { users };
}

/**
 * What the cache keeps of a Secret: its identity, type, key names, and the values credentials can
 * come from. Other Secrets (TLS certificates, service account tokens, Helm releases: often large
 * and numerous) keep their key names only, so memory stays small and their data is never held by
 * the operator beyond the event that carried it.
 */
export function slimSecret(secret: Secret): Secret {
  const md = secret.metadata ?? {};
  const type = secret.type ?? '';
  const data = secret.data ?? {};
  const keys = Object.keys(data);
  // Only values that can become users are kept: a basic-auth Secret's username and password, the
  // one key of a one-key Secret. Other values are never read, so they are not held either.
  const keep = (k: string) => (type === BASIC_AUTH_SECRET_TYPE && (k === 'username' || k === 'password')) ||
    (CREDENTIAL_TYPES.includes(type) && keys.length === 1);
  const kept: Record<string, string> = {};
  for (const k of keys) kept[k] = keep(k) ? (data[k] ?? '') : '';
  return {
    apiVersion: secret.apiVersion,
    kind: secret.kind,
    metadata: { name: md.name, namespace: md.namespace, uid: md.uid, resourceVersion: md.resourceVersion },
    type,
    data: kept,
  };
}
