import { describe, expect, it } from 'vitest';
import { ConfigError, flag, formatDuration, parseBytes, parseDuration, parseListenAddress } from '../../src/config/flag-types.js';
import { envName, formatHelp, loadConfig } from '../../src/config/load-config.js';
import { serveFlagGroups, serveFlags } from '../../src/flag-groups.js';

const table = {
  'config.file': flag.string('', 'config file'),
  'a.listen-address': flag.address(':9091', 'listen'),
  'a.enabled': flag.boolean(false, 'switch'),
  'a.interval': flag.duration('5m', 'interval'),
  'a.size': flag.bytes('1MiB', 'size'),
  'a.mode': flag.enumOf(['x', 'y'] as const, 'x', 'mode'),
  'a.list': flag.list('', 'list'),
};

function load(argv: string[], env: Record<string, string> = {}, files: Record<string, string> = {}) {
  return loadConfig(table, {
    argv,
    env,
    readFile: (p) => {
      const text = files[p];
      if (text === undefined) throw new Error(`ENOENT: no such file ${p}`);
      return text;
    },
  });
}

describe('value parsers', () => {
  it('parses listen addresses like Go', () => {
    expect(parseListenAddress(':9091')).toEqual({ host: '', port: 9091 });
    expect(parseListenAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseListenAddress('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
    expect(parseListenAddress('off')).toBeNull();
    expect(() => parseListenAddress('9091')).toThrow(ConfigError);
    expect(() => parseListenAddress(':70000')).toThrow(/out of range/);
  });

  it('parses and formats durations', () => {
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('0')).toBe(0);
    expect(() => parseDuration('5')).toThrow(/not a duration/);
    expect(() => parseDuration('5x')).toThrow(/not a duration/);
    expect(formatDuration(300_000)).toBe('5m0s');
    expect(formatDuration(5_400_000)).toBe('1h30m0s');
    expect(formatDuration(1500)).toBe('1.5s');
  });

  it('parses sizes', () => {
    expect(parseBytes('16MiB')).toBe(16 * 1024 * 1024);
    expect(parseBytes('100mb')).toBe(100_000_000);
    expect(parseBytes('42')).toBe(42);
    expect(() => parseBytes('12 parsecs')).toThrow(/not a size/);
  });
});

describe('loadConfig', () => {
  it('uses defaults', () => {
    const c = load([]);
    expect(c['a.listen-address']).toEqual({ host: '', port: 9091 });
    expect(c['a.enabled']).toBe(false);
    expect(c['a.interval']).toBe(300_000);
    expect(c['a.list']).toEqual([]);
  });

  it('takes --name value, --name=value, --bool, --no-bool', () => {
    expect(load(['--a.interval', '1m'])['a.interval']).toBe(60_000);
    expect(load(['--a.interval=2s'])['a.interval']).toBe(2000);
    expect(load(['--a.enabled'])['a.enabled']).toBe(true);
    expect(load(['--a.enabled=false'])['a.enabled']).toBe(false);
    expect(load(['--no-a.enabled'], { [envName('a.enabled')]: 'true' })['a.enabled']).toBe(false);
  });

  it('orders sources: flag over env over file over default', () => {
    const files = { '/c.yaml': 'a:\n  interval: 3s\n  mode: y\n' };
    expect(load(['--config.file', '/c.yaml'], {}, files)['a.interval']).toBe(3000);
    expect(load(['--config.file', '/c.yaml'], { PORTICO_A_INTERVAL: '4s' }, files)['a.interval']).toBe(4000);
    expect(load(['--config.file', '/c.yaml', '--a.interval', '5s'], { PORTICO_A_INTERVAL: '4s' }, files)['a.interval']).toBe(5000);
    expect(load(['--config.file', '/c.yaml'], {}, files)['a.mode']).toBe('y');
  });

  it('accepts dotted keys and lists in the file', () => {
    const files = { '/c.yaml': '"a.list": [10.0.0.0/8, 192.168.0.0/16]\na.enabled: true\n' };
    const c = load(['--config.file=/c.yaml'], {}, files);
    expect(c['a.list']).toEqual(['10.0.0.0/8', '192.168.0.0/16']);
    expect(c['a.enabled']).toBe(true);
  });

  it('names the bad flag and value, and reports every problem at once', () => {
    let err: unknown;
    try {
      load(['--a.interval', 'soon', '--a.listen-address', 'nowhere']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('invalid --a.interval: "soon" is not a duration');
    expect((err as Error).message).toContain('invalid --a.listen-address: "nowhere" is not host:port');
  });

  it('names the environment variable or file key a bad value came from', () => {
    expect(() => load([], { PORTICO_A_MODE: 'z' })).toThrow('invalid PORTICO_A_MODE: "z" is not one of x, y');
    expect(() => load(['--config.file', '/c.yaml'], {}, { '/c.yaml': 'a.size: lots\n' })).toThrow(
      'invalid "a.size" in /c.yaml: "lots" is not a size',
    );
  });

  it('refuses unknown flags, unknown file keys, missing values and positional arguments', () => {
    expect(() => load(['--a.intervall', '1s'])).toThrow('unknown flag --a.intervall (did you mean --a.interval?)');
    expect(() => load(['--a.interval'])).toThrow('flag --a.interval needs a value');
    expect(() => load(['serve'])).toThrow('unexpected argument "serve"');
    expect(() => load(['--config.file', '/c.yaml'], {}, { '/c.yaml': 'a:\n  colour: red\n' })).toThrow('unknown key "a.colour"');
    expect(() => load(['--config.file', '/missing.yaml'])).toThrow('cannot read config file /missing.yaml');
    expect(() => load(['--config.file', '/c.yaml'], {}, { '/c.yaml': 'a: [\n' })).toThrow('is not valid YAML');
  });
});

describe('serve flags', () => {
  it('have the documented defaults', () => {
    const c = loadConfig(serveFlags, { argv: [], env: {}, readFile: () => '' });
    expect(c['pushgateway.listen-address']).toEqual({ host: '', port: 9091 });
    expect(c['management.listen-address']).toEqual({ host: '', port: 8080 });
    expect(c['search.listen-address']).toEqual({ host: '', port: 9200 });
    expect(c['data.dir']).toBe('./data');
  });

  it('turn a listener off', () => {
    const c = loadConfig(serveFlags, { argv: ['--search.listen-address', 'off'], env: {}, readFile: () => '' });
    expect(c['search.listen-address']).toBeNull();
  });

  it('--help lists every flag with its default and environment variable', () => {
    const help = formatHelp('Usage: portico serve [flags]', serveFlagGroups);
    for (const name of Object.keys(serveFlags)) {
      expect(help).toContain(`--${name}`);
      expect(help).toContain(envName(name));
    }
    expect(help).toContain('(default: :9091)');
  });
});
