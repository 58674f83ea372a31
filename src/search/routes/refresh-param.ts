import type { FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { queryOf } from '../http/http-io.js';
import type { SearchService } from '../engine/search-service.js';

/**
 * A write's `?refresh` as ES reads it (WriteRequest.RefreshPolicy.parse): `true` or empty refreshes
 * the indices written after the write, `wait_for` answers once a refresh has shown it, `false` (the
 * default) neither; anything else is ES's 400.
 */
export type RefreshMode = 'true' | 'wait_for' | 'false';

export function refreshMode(req: FastifyRequest): RefreshMode {
  const r = queryOf(req).refresh;
  if (r === undefined || r === 'false') return 'false';
  if (r === '' || r === 'true') return 'true';
  if (r === 'wait_for') return 'wait_for';
  throw errors.illegalArgument(`Unknown value for refresh: [${r}].`);
}

/**
 * After a write to `indices` under `mode`: refreshes them (`true`) or waits for their next refresh
 * (`wait_for`). Whether the answer says `forced_refresh: true`.
 */
export async function refreshAfterWrite(service: SearchService, mode: RefreshMode, indices: Iterable<string>): Promise<boolean> {
  if (mode === 'false') return false;
  if (mode === 'wait_for') return (await service.waitForRefresh(indices)).size > 0;
  const names = new Set(indices);
  service.refresh(service.list().filter((s) => names.has(s.name)));
  return true;
}
