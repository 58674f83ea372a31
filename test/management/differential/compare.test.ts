/**
 * The differential suite's comparison (compare.ts, random-picks.ts, known-differences.ts) on
 * answers written by hand: what it sets aside as Traefik's random build order or explains by a
 * listed difference, and, as much, what it must still report as a difference (a Portico bug).
 */
import { describe, expect, it } from 'vitest';
import { compare, type AllRecords } from './compare.js';
import type { DiffContext } from './known-differences.js';
import { BUILT_OR_NOT, isRandomFailure, randomPicks, RANDOM_FAILURE, setPicksAside } from './random-picks.js';
import type { Answer } from './peers.js';

const MULTI = 'cannot create service: multi-types service not supported, consider declaring two different pieces of service instead';

/** Each side's API address (replaced by a placeholder before comparing); in no body here. */
const TA = '127.0.0.1:9001';
const PA = '127.0.0.1:9002';

const json = (body: unknown, status = 200, nextPage: string | null = null): Answer =>
  ({ status, body: JSON.stringify(body), nextPage, contentType: 'application/json' });

/** c036 of the generated configurations: a weighted service over a multi-type service and a mirroring one naming itself. */
const SHUFFLED = {
  'a.yaml': JSON.stringify({
    http: {
      routers: { r0: { rule: 'Host(`a`)', service: 'svc1' }, other: { rule: 'Host(`b`)', service: 'missing' } },
      services: {
        svc0: { mirroring: { service: 'svc0' } },
        svc1: { weighted: { services: [{ name: 'svc2', weight: 1 }, { name: 'svc0', weight: 3 }] } },
        svc2: { loadBalancer: { servers: [{ url: 'http://127.0.0.1:1' }] }, failover: { service: 'a', fallback: 'b' } },
        lone: { loadBalancer: { servers: [] }, weighted: { services: [] } },
      },
    },
    udp: {
      services: {
        u0: { loadBalancer: { servers: [] }, weighted: { services: [] } },
        u1: { weighted: { services: [{ name: 'u0', weight: 1 }, { name: 'x@docker', weight: 1 }] } },
        u2: { weighted: { services: [{ name: 'x@docker', weight: 1 }] } },
      },
    },
  }),
};

describe('random picks: what a shuffled build may decide', () => {
  const picks = randomPicks(SHUFFLED);

  it('finds the shuffled services with two children that can fail, and their zones', () => {
    expect(picks.size).toBe(2);
    expect([...picks.byProto.http.services].sort()).toEqual(['svc0@file', 'svc1@file', 'svc2@file']);
    expect([...picks.byProto.http.maybeBuilt].sort()).toEqual(['svc0@file', 'svc2@file']);
    expect([...picks.byProto.http.routers]).toEqual(['r0@file']);
    expect([...picks.byProto.udp.services].sort()).toEqual(['u0@file', 'u1@file']);
    expect([...picks.byProto.udp.missing]).toEqual(['x@docker']);
  });

  it('sets nothing aside when a shuffled service has one child that can fail', () => {
    const one = randomPicks({
      'b.yaml': 'http:\n  services:\n    w:\n      weighted:\n        services:\n          - name: ok\n          - name: missing\n    ok:\n      loadBalancer:\n        servers: []\n',
    });
    expect(one.size).toBe(0);
  });

  it('tells the texts a failing child of a zone can give from others', () => {
    expect(isRandomFailure('http', MULTI, picks)).toBe(true);
    expect(isRandomFailure('http', `building HTTP service "svc2": ${MULTI}`, picks)).toBe(true);
    expect(isRandomFailure('http', 'could not instantiate service svc0@file: recursion detected in service:svc1@file->service:svc0@file->service:svc0@file', picks)).toBe(true);
    expect(isRandomFailure('http', `${MULTI}, ${MULTI}`, picks)).toBe(true);
    expect(isRandomFailure('udp', 'the UDP service "x@docker" does not exist', picks)).toBe(true);
    // Not children of a zone: a router's own missing service, a cycle through other services, other errors.
    expect(isRandomFailure('http', 'the service "missing@file" does not exist', picks)).toBe(false);
    expect(isRandomFailure('http', 'could not instantiate service z@file: recursion detected in service:z@file->service:z@file', picks)).toBe(false);
    expect(isRandomFailure('http', 'middleware "m@file" does not exist', picks)).toBe(false);
    expect(isRandomFailure('http', 'the service "svc9@file" does not have any type defined', picks)).toBe(false);
  });

  it('replaces those texts in zone records only, and keeps every other error and field', () => {
    const routers = [
      { name: 'r0@file', status: 'disabled', error: ['entryPoint "nope" doesn\'t exist', `building HTTP service "svc2": ${MULTI}`] },
      { name: 'other@file', status: 'disabled', error: ['the service "missing@file" does not exist'] },
    ];
    expect(setPicksAside(routers, picks, '/api/http/routers')).toEqual([
      { name: 'r0@file', status: 'disabled', error: ['entryPoint "nope" doesn\'t exist', RANDOM_FAILURE] },
      routers[1],
    ]);
    // `lone` is of two kinds too, but in no zone: its error stays.
    const lone = { name: 'lone@file', status: 'disabled', error: [MULTI] };
    expect(setPicksAside(lone, picks, '/api/http/services/lone%40file')).toEqual(lone);
  });

  it('leaves the status of a service the shuffle may not build undecided, but only when its errors are all such texts', () => {
    expect(setPicksAside({ name: 'svc2@file', status: 'disabled', error: [MULTI] }, picks, '/api/http/services/svc2%40file'))
      .toEqual({ name: 'svc2@file', status: BUILT_OR_NOT });
    expect(setPicksAside({ name: 'svc2@file', status: 'enabled' }, picks, '/api/http/services')).toEqual({ name: 'svc2@file', status: BUILT_OR_NOT });
    expect(setPicksAside({ name: 'svc2@file', status: 'disabled', error: [MULTI, 'something else'] }, picks, '/api/http/services'))
      .toEqual({ name: 'svc2@file', status: 'disabled', error: [RANDOM_FAILURE, 'something else'] });
    // The random service itself is always built by its router: its status stays compared.
    expect(setPicksAside({ name: 'svc1@file', status: 'disabled', error: [MULTI] }, picks, '/api/http/services'))
      .toEqual({ name: 'svc1@file', status: 'disabled', error: [RANDOM_FAILURE] });
  });

  it('reads /api/rawdata by its maps of records', () => {
    const raw = { services: { 'svc1@file': { status: 'disabled', error: [MULTI] }, 'lone@file': { status: 'disabled', error: [MULTI] } } };
    expect(setPicksAside(raw, picks, '/api/rawdata')).toEqual({
      services: { 'svc1@file': { status: 'disabled', error: [RANDOM_FAILURE] }, 'lone@file': { status: 'disabled', error: [MULTI] } },
    });
  });
});

describe('compare with random picks', () => {
  const picks = randomPicks(SHUFFLED);
  const svc1 = (error: string) => ({ weighted: {}, error: [error], status: 'disabled', name: 'svc1@file', provider: 'file' });

  it('counts another child\'s failure as Traefik\'s random pick', () => {
    const t = json(svc1('could not instantiate service svc0@file: recursion detected in service:svc1@file->service:svc0@file->service:svc0@file'));
    expect(compare('/api/http/services/svc1%40file', t, json(svc1(MULTI)), TA, PA, undefined, picks).kind).toBe('random');
  });

  it('still reports a zone record whose status differs, or whose error no child can give', () => {
    const enabled = { ...svc1(MULTI), status: 'enabled' };
    expect(compare('/api/http/services/svc1%40file', json(svc1(MULTI)), json(enabled), TA, PA, undefined, picks).kind).toBe('different');
    const v = compare('/api/http/services/svc1%40file', json(svc1(MULTI)), json(svc1('the service "elsewhere@file" does not exist')), TA, PA, undefined, picks);
    expect(v).toEqual({ kind: 'different', where: `.error.0: traefik "${RANDOM_FAILURE}" / portico "the service \\"elsewhere@file\\" does not exist"` });
  });

  it('lets an undecided service sort and filter by status either way, only in queries by status', () => {
    const a = { name: 'a@file', status: 'enabled' };
    const built = { name: 'svc2@file', status: 'disabled', error: [MULTI] };
    const unbuilt = { name: 'svc2@file', status: 'enabled' };
    const z = { name: 'z@file', status: 'enabled' };
    const all: AllRecords = {
      traefik: new Map([[a.name, a], [unbuilt.name, { name: unbuilt.name, status: BUILT_OR_NOT }], [z.name, z]]),
      portico: new Map([[a.name, a], [built.name, { name: built.name, status: BUILT_OR_NOT }], [z.name, z]]),
    };
    // Traefik did not build svc2 (enabled, sorts with the enabled), Portico did (disabled, sorts first).
    expect(compare('/api/http/services?sortBy=status', json([a, unbuilt, z]), json([built, a, z]), TA, PA, all, picks).kind).toBe('random');
    expect(compare('/api/http/services?status=disabled', json([]), json([built]), TA, PA, all, picks).kind).toBe('random');
    // The same order difference in a query not by status, and records that are not undecided, are reported.
    expect(compare('/api/http/services?sortBy=name', json([a, unbuilt, z]), json([built, a, z]), TA, PA, all, picks).kind).toBe('different');
    expect(compare('/api/http/services?sortBy=status', json([a, z]), json([z, a]), TA, PA, all, picks))
      .toEqual({ kind: 'different', where: 'list order: traefik [a@file,z@file] / portico [z@file,a@file]' });
  });
});

describe('compare: a page one side refuses as beyond the end', () => {
  const refused: Answer = { status: 400, body: '{"message":"invalid request: page: 3, per_page: 2"}\n', nextPage: null, contentType: 'text/plain; charset=utf-8' };
  const rec = (name: string, middlewares: string[]) => ({ middlewares, status: 'disabled', name });

  it('is explained by the records that make the lists\' lengths differ', () => {
    const r = rec('c185-tr0@file', ['missing@file']);
    const all: AllRecords = { traefik: new Map([[r.name, rec(r.name, ['missing'])]]), portico: new Map([[r.name, r]]) };
    const v = compare('/api/tcp/routers?per_page=2&page=3&middlewareName=missing%40file', refused, json([r], 200, '1'), TA, PA, all);
    expect(v).toMatchObject({ kind: 'known', id: 'middlewares-qualified-before-build' });
  });

  it('is a difference when the lists are the same (Portico\'s paging would be wrong)', () => {
    const r = rec('c185-tr0@file', ['missing@file']);
    const all: AllRecords = { traefik: new Map([[r.name, r]]), portico: new Map([[r.name, r]]) };
    const v = compare('/api/tcp/routers?per_page=2&page=3', refused, json([r], 200, '1'), TA, PA, all);
    expect(v).toEqual({ kind: 'different', where: 'list members: traefik only [] / portico only [c185-tr0@file]' });
  });
});

describe('known differences that follow from another record', () => {
  const context = (kinds: Record<string, [unknown[], unknown[]]>): DiffContext => ({
    records: new Map(Object.entries(kinds).map(([k, [t, p]]) => [k, {
      traefik: new Map((t as { name: string }[]).map((r) => [r.name, r])),
      portico: new Map((p as { name: string }[]).map((r) => [r.name, r])),
    }])),
  });

  it('a router Traefik split on one entry point only (entry-point-models)', () => {
    const t = { entryPoints: ['websecure'], name: 'r@file' };
    const p = { entryPoints: ['web', 'websecure'], name: 'r@file' };
    const copy = { entryPoints: ['web'], name: 'web-conflicted-r@file' };
    const path = '/api/http/routers/r%40file';
    expect(compare(path, json(t), json(p), TA, PA, undefined, undefined, context({ 'http/routers': [[t, copy], [p]] })))
      .toMatchObject({ kind: 'known', id: 'entry-point-models' });
    // Without Traefik's copy, the missing entry point is Portico's to explain.
    expect(compare(path, json(t), json(p), TA, PA, undefined, undefined, context({ 'http/routers': [[t], [p]] })).kind).toBe('different');
  });

  it('a service only routers with a priority above the maximum use (priority-beyond-2^53)', () => {
    const svcT = { status: 'enabled', usedBy: ['r@file'], name: 's@file' };
    const svcP = { error: [MULTI], status: 'disabled', usedBy: ['r@file'], name: 's@file', serverStatus: { 'http://127.0.0.1:1': 'UP' } };
    const rT = { priority: 1, error: ['the router priority 9223372036854775000 exceeds the max user-defined priority 9223372036854774807'], name: 'r@file', priorityStr: '9223372036854775000' };
    const rP = { priority: 1, error: [MULTI], name: 'r@file', priorityStr: '9223372036854774784' };
    const path = '/api/http/services/s%40file';
    const tAnswer = json(svcT);
    const pAnswer = json(svcP);
    expect(compare(path, tAnswer, pAnswer, TA, PA, undefined, undefined, context({ 'http/services': [[svcT], [svcP]], 'http/routers': [[rT], [rP]] })))
      .toMatchObject({ kind: 'known', id: 'priority-beyond-2^53' });
    // The router refused on both sides: Portico should not have built the service either.
    const rBoth = { ...rP, error: rT.error, priorityStr: rT.priorityStr };
    expect(compare(path, tAnswer, pAnswer, TA, PA, undefined, undefined, context({ 'http/services': [[svcT], [svcP]], 'http/routers': [[rT], [rBoth]] })).kind)
      .toBe('different');
  });
});
