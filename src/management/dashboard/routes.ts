/**
 * Serves the dashboard on the management listener, as Traefik does: `/` redirects to
 * `/dashboard/`, which serves the page and its two assets. A strict Content-Security-Policy
 * allows only same-origin scripts, styles and API calls.
 */
import type { FastifyInstance } from 'fastify';
import { DASHBOARD_CSS, dashboardHtml } from './page.js';
import { DASHBOARD_SCRIPT } from './script.js';
import { registerPorticoApi } from './portico-api.js';
import type { RecordStore } from '../record-store.js';

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Only a plain absolute path prefix is honoured, so the header cannot redirect off-site. */
function forwardedPrefix(value: string | string[] | undefined): string {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || !/^\/[A-Za-z0-9._~\-/]*$/.test(v) || v.startsWith('//')) return '';
  return v.replace(/\/+$/, '');
}

/** The page, its assets and Portico's own endpoints (portico-api.ts) over `store`. */
export function registerDashboard(app: FastifyInstance, store: RecordStore, basePath = '/'): void {
  registerPorticoApi(app, store, basePath);
  const html = dashboardHtml();
  const dash = `${basePath}dashboard/`;
  app.get(basePath, async (request, reply) =>
    reply.code(302).header('location', `${forwardedPrefix(request.headers['x-forwarded-prefix'])}${dash}`).send());
  app.get(`${basePath}dashboard`, async (request, reply) =>
    reply.code(302).header('location', `${forwardedPrefix(request.headers['x-forwarded-prefix'])}${dash}`).send());
  app.get(dash, async (_request, reply) =>
    reply.header('content-security-policy', CSP).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html));
  app.get(`${dash}app.js`, async (_request, reply) =>
    reply.header('cache-control', 'no-cache').type('text/javascript; charset=utf-8').send(DASHBOARD_SCRIPT));
  app.get(`${dash}app.css`, async (_request, reply) =>
    reply.header('cache-control', 'no-cache').type('text/css; charset=utf-8').send(DASHBOARD_CSS));
}
