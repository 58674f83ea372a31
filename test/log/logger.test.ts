import type { DestinationStream } from 'pino';
import { describe, expect, it } from 'vitest';
import { formatLogfmt, logfmtValue } from '../../src/log/logfmt.js';
import { createLogger, resolveLogFormat } from '../../src/log/logger.js';

/** A destination that keeps each written line. */
function sink(): DestinationStream & { lines: string[] } {
  const lines: string[] = [];
  return { lines, write: (s: string) => void lines.push(...s.split('\n').filter((l) => l !== '')) };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('logfmt', () => {
  it('quotes a value only when it needs it, with JSON escapes', () => {
    expect(logfmtValue('plain')).toBe('plain');
    expect(logfmtValue(42)).toBe('42');
    expect(logfmtValue(true)).toBe('true');
    expect(logfmtValue('')).toBe('""');
    expect(logfmtValue(null)).toBe('""');
    expect(logfmtValue('two words')).toBe('"two words"');
    expect(logfmtValue('a=b')).toBe('"a=b"');
    expect(logfmtValue('say "hi"')).toBe('"say \\"hi\\""');
    expect(logfmtValue('line\nbreak')).toBe('"line\\nbreak"');
    expect(logfmtValue('back\\slash')).toBe('"back\\\\slash"');
    expect(logfmtValue([1, 2])).toBe('[1,2]');
    expect(logfmtValue(['a', 1])).toBe('"[\\"a\\",1]"');
  });

  it('writes time, level and msg first, then the rest with nested objects as dotted keys', () => {
    const line = formatLogfmt({ level: 'info', time: '2026-01-02T03:04:05.678Z', area: 'search', msg: 'portico started', listeners: { search: 9200, push: 9091 }, ms: 12 });
    expect(line).toBe('time=2026-01-02T03:04:05.678Z level=info msg="portico started" area=search listeners.search=9200 listeners.push=9091 ms=12');
  });

  it('keeps keys one token', () => {
    expect(formatLogfmt({ msg: 'm', 'a key=x': 1 })).toBe('msg=m a_key_x=1');
  });
});

describe('createLogger', () => {
  it('writes JSON lines with an ISO time, the level name and msg, no pid or hostname', () => {
    const out = sink();
    const logger = createLogger({ level: 'info', format: 'json', stdoutIsTerminal: true, destination: out });
    logger.child({ area: 'pushgateway' }).info({ groups: 5 }, 'restored 5 push groups');
    logger.debug('not at info');
    expect(out.lines).toHaveLength(1);
    const rec = JSON.parse(out.lines[0] as string) as Record<string, unknown>;
    expect(rec).toMatchObject({ level: 'info', area: 'pushgateway', groups: 5, msg: 'restored 5 push groups' });
    expect(rec.time).toMatch(ISO);
    expect(Object.keys(rec)).not.toContain('pid');
    expect(Object.keys(rec)).not.toContain('hostname');
  });

  it('writes logfmt lines when asked', () => {
    const out = sink();
    const logger = createLogger({ level: 'debug', format: 'logfmt', stdoutIsTerminal: false, destination: out });
    logger.warn({ file: '/tmp/a b.json' }, 'careful');
    logger.debug('details');
    expect(out.lines).toHaveLength(2);
    expect(out.lines[0]).toMatch(/^time=\S+ level=warn msg=careful file="\/tmp\/a b\.json"$/);
    expect(out.lines[0]?.slice(5, 29)).toMatch(ISO);
    expect(out.lines[1]).toMatch(/^time=\S+ level=debug msg=details$/);
  });

  it('writes an error as its type, message and stack under err.*', () => {
    const out = sink();
    createLogger({ level: 'info', format: 'logfmt', stdoutIsTerminal: false, destination: out }).error({ err: new TypeError('boom') }, 'failed');
    expect(out.lines[0]).toMatch(/ msg=failed err\.type=TypeError err\.message=boom err\.stack="TypeError: boom\\n {4}at /);
  });

  it('auto is logfmt on a terminal and JSON otherwise', () => {
    expect(resolveLogFormat('auto', true)).toBe('logfmt');
    expect(resolveLogFormat('auto', false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('logfmt', false)).toBe('logfmt');
  });
});
