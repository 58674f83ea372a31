/**
 * Which HTTP methods the search API serves on a concrete path, for ES's answer to a known path
 * asked with another method: 405, "Incorrect HTTP method for uri [...] and method [...], allowed:
 * [...]" and an Allow header. ES unions the methods of every route pattern that matches the
 * path; a path no pattern matches keeps the 400 "no handler found".
 *
 * Patterns are written as Fastify writes them: `/`-separated segments, `:name` standing for one
 * non-empty segment.
 */
export class RouteMethods {
  private readonly routes: { readonly segments: readonly string[]; readonly method: string }[] = [];

  /** Records that `method` is served on `pattern` (`/:index/_search`). */
  add(method: string, pattern: string): void {
    this.routes.push({ segments: split(pattern), method: method.toUpperCase() });
  }

  /** Methods served on `path` (no query string), in the order their routes were added, without repeats. */
  allowed(path: string): string[] {
    const segments = split(path);
    const out: string[] = [];
    for (const r of this.routes) if (!out.includes(r.method) && matches(r.segments, segments)) out.push(r.method);
    return out;
  }
}

function split(path: string): string[] {
  const trimmed = path.startsWith('/') ? path.slice(1) : path;
  return trimmed === '' ? [] : trimmed.split('/');
}

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  if (pattern.length !== path.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const s = path[i] as string;
    if (p.startsWith(':') ? s === '' : p !== decodeSegment(s)) return false;
  }
  return true;
}

/** A path segment as the router compares it (`%5F` is `_`); undecodable text compares as sent. */
function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
