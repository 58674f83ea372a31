import { CRD_VERSION, groupOf, pluralOf, type CrdKind } from './kinds.js';
import type { KubeObject } from '../../client/kube-objects.js';
import { CRD_PROVIDER } from '../shared/naming.js';
import type { Condition, ConfigBuilder, ObjectRef, Problem } from '../shared/translation-types.js';

/**
 * One CRD object's translation state (problems, references to check, names it claims) and how
 * its fragment joins the provider's records: claimed names clash with earlier objects' (an
 * error on the later one), shared ones (load balancers of the same Service port) go to the first.
 */

export interface Pending {
  readonly table: 'httpMiddlewares' | 'tcpMiddlewares' | 'httpServices';
  readonly name: string;
  readonly what: string;
}

export type Table = 'httpRouters' | 'tcpRouters' | 'udpRouters' | 'httpMiddlewares' | 'tcpMiddlewares' | 'httpServices';
export const TABLES = ['httpRouters', 'tcpRouters', 'udpRouters', 'httpMiddlewares', 'tcpMiddlewares', 'httpServices', 'tcpServices', 'udpServices'] as const;

export class ObjectContext {
  readonly problems: Problem[] = [];
  readonly pending: Pending[] = [];
  /** Names this object defines as its own (a clash with another object is an error). */
  readonly claimed: { table: Table; key: string; what: string }[] = [];
  constructor(readonly obj: KubeObject, readonly kind: CrdKind, readonly ns: string, readonly name: string) {}

  accept(reason: string, message: string): void {
    this.problems.push({ kind: 'accept', reason, message });
  }
}

export function refOf(ctx: ObjectContext): ObjectRef {
  const md = ctx.obj.metadata ?? {};
  return {
    group: groupOf(ctx.obj.apiVersion), version: CRD_VERSION, plural: pluralOf(ctx.kind), kind: ctx.kind,
    namespace: ctx.ns, name: ctx.name, uid: md.uid, resourceVersion: md.resourceVersion,
  };
}

export function claim<T>(ctx: ObjectContext, out: ConfigBuilder, table: Table, key: string, value: T, what: string): boolean {
  const records = out[table] as Record<string, unknown>;
  if (records[key] !== undefined) {
    ctx.accept('DuplicateName', `${what} ${key}@${CRD_PROVIDER} is defined twice by this object`);
    return false;
  }
  ctx.claimed.push({ table, key, what });
  records[key] = value;
  return true;
}

export interface ObjectResult {
  readonly ctx: ObjectContext;
  readonly records: ConfigBuilder;
}

export function conditions(problems: readonly Problem[]): Condition[] {
  const accept = problems.filter((p) => p.kind === 'accept');
  const refs = problems.filter((p) => p.kind === 'refs');
  const joined = (ps: readonly Problem[]) => [...new Set(ps.map((p) => p.message))].join('; ');
  return [
    accept.length === 0
      ? { type: 'Accepted', status: 'True', reason: 'Accepted', message: 'the object was translated into records' }
      : { type: 'Accepted', status: 'False', reason: (accept[0] as Problem).reason, message: joined(accept) },
    refs.length === 0
      ? { type: 'ResolvedRefs', status: 'True', reason: 'ResolvedRefs', message: 'all references were resolved' }
      : { type: 'ResolvedRefs', status: 'False', reason: (refs[0] as Problem).reason, message: joined(refs) },
  ];
}

/** Adds one object's records: claimed names clash with earlier objects' (an error), the rest are shared. */
export function mergeObject(result: ObjectResult, out: ConfigBuilder, owners: Map<string, string>): Problem[] {
  const problems: Problem[] = [];
  const { ctx, records } = result;
  for (const table of TABLES) {
    const source = records[table] as Record<string, unknown>;
    const target = out[table] as Record<string, unknown>;
    for (const key in source) {
      // An object claims one or two names; a scan beats building a map per object.
      const claim = ctx.claimed.find((c) => c.key === key && c.table === table);
      if (claim === undefined) {
        if (target[key] === undefined) {
          target[key] = source[key];
          out.noteSource(table, key, records);
        }
        continue;
      }
      if (target[key] !== undefined) {
        problems.push({ kind: 'accept', reason: 'DuplicateName', message: `${claim.what} ${key}@${CRD_PROVIDER} is already defined by ${owners.get(`${table}|${key}`) ?? 'another object'}` });
        continue;
      }
      target[key] = source[key];
      out.noteSource(table, key, records);
      owners.set(`${table}|${key}`, `${ctx.kind} ${ctx.ns}/${ctx.name}`);
    }
  }
  for (const key in records.serverStatus) out.serverStatus[key] ??= records.serverStatus[key] as Record<string, 'UP' | 'DOWN'>;
  return problems;
}

/** References are checked last, once every record exists. */
export function resolvePending(ctx: ObjectContext, exists: (table: Pending['table'], name: string) => boolean): Problem[] {
  const problems: Problem[] = [];
  for (const p of ctx.pending) {
    const at = p.name.indexOf('@');
    if (at >= 0 && p.name.slice(at + 1) !== CRD_PROVIDER) continue; // another provider: not ours to judge
    const local = at >= 0 ? p.name.slice(0, at) : p.name;
    if (!exists(p.table, local)) {
      const reason = p.what === 'middleware' ? 'MiddlewareNotFound' : 'ServiceNotFound';
      problems.push({ kind: 'refs', reason, message: `${p.what} "${local}@${CRD_PROVIDER}" does not exist` });
    }
  }
  return problems;
}

