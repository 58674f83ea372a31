/**
 * The redirects Pushgateway 1.11.1's router (httprouter) gives for a path with a trailing slash:
 * `PUT`/`POST`/`DELETE /metrics/job/` is 307 to `/metrics/job` (a quirk of its route tree: the
 * target itself is 404), and `GET` of `/metrics/`, `/-/healthy/`, `/-/ready/` is 301 to the path
 * without the slash, query kept, with Go's little HTML body. Its redirects of `/api/v1/metrics/` and
 * `/api/v1/status/` drop the `/api/v1` part (to `/metrics`, `/status`), which would send an API
 * client to another document, so Portico keeps answering those 404 (docs/pushgateway.md).
 */

export interface TrailingSlashRedirect {
  readonly status: 301 | 307;
  readonly location: string;
  /** Go's http.Redirect writes a body for GET only. */
  readonly body: string | undefined;
}

const PUSH_METHODS = new Set(['PUT', 'POST', 'DELETE']);
const GET_ROUTES = ['/metrics', '/-/healthy', '/-/ready'];

/** Go's http.Redirect body for a GET: an HTML link, the URL HTML-escaped. */
function goRedirectBody(location: string): string {
  const escaped = location.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&#34;').replaceAll("'", '&#39;');
  return `<a href="${escaped}">Moved Permanently</a>.\n\n`;
}

/**
 * The redirect for an unmatched request, or undefined when it is a plain 404. `url` is the raw
 * request target (path and query); `prefix` the route prefix ('' or '/x').
 */
export function trailingSlashRedirect(method: string, url: string, prefix: string): TrailingSlashRedirect | undefined {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q);
  if (PUSH_METHODS.has(method) && path === `${prefix}/metrics/job/`) {
    return { status: 307, location: `${prefix}/metrics/job${query}`, body: undefined };
  }
  if (method === 'GET' && GET_ROUTES.some((r) => path === `${prefix}${r}/`)) {
    const location = `${path.slice(0, -1)}${query}`;
    return { status: 301, location, body: goRedirectBody(location) };
  }
  return undefined;
}
