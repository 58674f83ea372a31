/**
 * Quick checks of the records operators send by the thousand (routers, load-balanced services
 * and their servers): true only when the record certainly passes its full check (same fields
 * and types, unknown fields refused); false when it is of another shape or bad, and the full
 * check decides and names the problem. One plain function per record kind: the generic shape
 * closures share their code, and so their type feedback, across every kind of object, which
 * keeps them slow (an operator body holds ~100,000 objects to check).
 */

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isStrList(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}

function quickObservability(v: unknown): boolean {
  if (!isObj(v)) return false;
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const x = v[k];
    switch (k) {
      case 'accessLogs':
      case 'metrics':
      case 'tracing':
        if (typeof x !== 'boolean') return false;
        break;
      case 'traceVerbosity':
        if (typeof x !== 'string') return false;
        break;
      case 'metadata':
        if (!isObj(x)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Quick check of a router (see above); one with `tls` is left to the full check. */
export function quickRouter(v: unknown): boolean {
  if (!isObj(v)) return false;
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const x = v[k];
    switch (k) {
      case 'service':
      case 'rule':
      case 'ruleSyntax':
        if (typeof x !== 'string') return false;
        break;
      case 'entryPoints':
      case 'middlewares':
      case 'parentRefs':
        if (!isStrList(x)) return false;
        break;
      case 'priority':
        if (typeof x !== 'number' || !Number.isInteger(x)) return false;
        break;
      case 'observability':
        if (!quickObservability(x)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function quickServer(v: unknown): boolean {
  if (!isObj(v)) return false;
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const x = v[k];
    switch (k) {
      case 'url':
        if (typeof x !== 'string') return false;
        break;
      case 'weight':
        if (typeof x !== 'number' || !Number.isInteger(x)) return false;
        break;
      case 'preservePath':
      case 'fenced':
        if (typeof x !== 'boolean') return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function quickLoadBalancer(v: unknown): boolean {
  if (!isObj(v)) return false;
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const x = v[k];
    switch (k) {
      case 'servers':
        if (!Array.isArray(x)) return false;
        for (let i = 0; i < x.length; i++) if (!quickServer(x[i])) return false;
        break;
      case 'strategy':
      case 'serversTransport':
        if (typeof x !== 'string') return false;
        break;
      case 'passHostHeader':
        if (x !== null && typeof x !== 'boolean') return false;
        break;
      case 'responseForwarding':
        if (!isObj(x)) return false;
        for (const f in x) if (Object.prototype.hasOwnProperty.call(x, f) && (f !== 'flushInterval' || typeof x[f] !== 'string')) return false;
        break;
      case 'sticky':
      case 'healthCheck':
      case 'passiveHealthCheck':
        if (!isObj(x)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Quick check of a service (see above); kinds other than a load balancer are left to the full check. */
export function quickService(v: unknown): boolean {
  if (!isObj(v)) return false;
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const x = v[k];
    switch (k) {
      case 'middlewares':
        if (!isStrList(x)) return false;
        break;
      case 'loadBalancer':
        if (!quickLoadBalancer(x)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
