import { pino } from 'pino';
import type { FastifyInstance } from 'fastify';
import { createManagementApi } from '../../src/management/app.js';
import type { DynamicConfiguration } from '../../src/dynamic-config/configuration.js';
import { RecordStore, type RecordStoreOptions } from '../../src/management/record-store.js';
import type { EntryPointDef } from '../../src/management/runtime/runtime.js';

export const silentLogger = pino({ level: 'silent' });

export const WEB: EntryPointDef = { name: 'web', address: ':80', protocol: 'tcp', isDefault: true };
export const WEBSECURE: EntryPointDef = { name: 'websecure', address: ':443', protocol: 'tcp', isDefault: true };
export const TRAEFIK: EntryPointDef = { name: 'traefik', address: ':8080', protocol: 'tcp', isDefault: false };

/** A store holding the given providers' configurations. */
export function storeWith(
  providers: Record<string, DynamicConfiguration>, options: Partial<RecordStoreOptions> = {},
): RecordStore {
  const store = new RecordStore({ entryPoints: [WEB, WEBSECURE, TRAEFIK], now: () => Date.UTC(2026, 0, 1), ...options });
  for (const [provider, configuration] of Object.entries(providers)) store.set(provider, { configuration });
  return store;
}

/** The unit-test harness of Traefik's pkg/api: no build step, no internal records, entry point web. */
export function goldenStore(providers: Record<string, DynamicConfiguration>, staticProviders: string[] = []): RecordStore {
  return storeWith(providers, { entryPoints: [WEB], runtime: { buildRouters: false }, internalRecords: false, staticProviders });
}

export function apiFor(store: RecordStore): FastifyInstance {
  return createManagementApi({ store, logger: silentLogger, startDate: Date.UTC(2026, 0, 1) });
}

export async function getJson(app: FastifyInstance, url: string): Promise<{ status: number; body: unknown; headers: Record<string, unknown>; text: string }> {
  const res = await app.inject({ method: 'GET', url });
  let body: unknown = null;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = null;
  }
  return { status: res.statusCode, body, headers: res.headers, text: res.body };
}
