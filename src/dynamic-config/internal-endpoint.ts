/** The internal endpoint contract (the `internal` listener, loopback by default), where providers deliver snapshots. */

/**
 * `PUT {INTERNAL_PROVIDERS_PATH}/{provider}` with `Authorization: Bearer <token>` and a
 * {@link ProviderSnapshot} body replaces that provider's snapshot → 200 {@link ProviderPutResponse}.
 * The body is format 1, one JSON document (`Content-Type: application/json`), or format 2, the same
 * snapshot as one line per record (`application/vnd.portico.snapshot.v2+jsonl`, see
 * snapshot/lines.ts), which the operator sends so that unchanged records cost the server nothing;
 * 400 `{"message"}` naming what is invalid (nothing applied); 401 `{"message"}` without a valid token.
 * `GET …/{provider}` → 200 {@link ProviderStatusResponse} or 404 `{"message"}` (a restarted server
 * has none: re-deliver). `DELETE …/{provider}` → 200 {@link ProviderPutResponse} or 404.
 * The token is the trimmed content of `--internal.token-file` (default `<data.dir>/internal-token`).
 */
export const INTERNAL_PROVIDERS_PATH = '/internal/v1/providers';

/** Provider names the internal endpoint accepts: lower-case letters, digits and dashes. */
export const PROVIDER_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Names the internal endpoint refuses to write: built-in records and the in-process file provider. */
export const RESERVED_PROVIDERS: readonly string[] = ['internal', 'file'];

export interface ProviderPutResponse {
  provider: string;
  version: string;
}

export interface ProviderStatusResponse {
  provider: string;
  version: string;
  /** RFC 3339 time the server accepted the snapshot. */
  receivedAt: string;
  /** Set for the file provider when the last read failed (the previous good snapshot is kept). */
  lastError?: string;
}
