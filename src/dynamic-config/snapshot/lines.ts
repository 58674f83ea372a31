/**
 * Snapshot wire format 2, "snapshot lines" (media type {@link SNAPSHOT_LINES_MEDIA_TYPE}): the
 * same whole {@link ProviderSnapshot} the JSON body carries (format 1, `application/json`), cut
 * into one line per record so that both ends can skip what did not change.
 *
 * The body is UTF-8 text, lines separated by `\n`. Each line is an assignment
 * `<path>\t<value>`: `<path>` is a JSON array of one or more strings (object keys from the
 * snapshot's root), `<value>` any JSON text. Neither contains a raw tab or newline (JSON escapes
 * them in strings and compact JSON has no whitespace). Decoding starts from `{}` and, line by line,
 * sets the value at its path, creating the objects on the way; a path assigned twice, or one that
 * runs through a value that is not an object created this way, is refused. Key order is line
 * order, as JSON.parse of format 1 would give it. Empty lines are ignored.
 *
 * The operator writes `["version"]` first, then one line per router, service, middleware, …
 * (`["configuration","http","routers","<name>"]`) and per `serverStatus` entry, and `{}` for an
 * empty map it walks. Any split is valid: `["configuration"]\t{…}` alone is a whole snapshot.
 *
 * Why: an operator re-sends thousands of records per change and changes a handful. The server
 * keeps the body it accepted last with its parsed values (line-decoder.ts); a line equal
 * to one of it, byte for byte, yields the very same value object, which is neither parsed nor
 * validated again and which the runtime recognises as unchanged by identity. The operator keeps
 * each record's line by object identity and serializes only new records. A sender may also send
 * only the lines that changed (delta.ts).
 */
import { hash } from 'node:crypto';

/** Media type of format 2. */
export const SNAPSHOT_LINES_MEDIA_TYPE = 'application/vnd.portico.snapshot.v2+jsonl';



/**
 * A flat copy of a string: neither a substring that keeps its whole parent alive nor a
 * concatenation kept as a tree of its parts.
 */
function detached(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

interface CachedLine {
  readonly parent: string;
  readonly name: string;
  readonly line: string;
  /** The line's SHA-256 as a latin1 string: 32 characters, lighter than a Buffer per record. */
  readonly digest: string;
}

/** An encoded snapshot: its record lines and version (a content hash of the lines). */
export interface EncodedSnapshot {
  readonly version: string;
  /** The lines after the version line; the strings are the encoder's, shared between encodings. */
  readonly lines: readonly string[];
}

/**
 * The body to send in pieces of about `chunkChars` characters: the version line, then the record
 * lines. A sender streams them, so that no 6 MB string (and 6 MB buffer) is built per delivery.
 */
export function* snapshotLinesChunks(encoded: EncodedSnapshot, chunkChars = 64 * 1024): Generator<string> {
  let parts: string[] = [`["version"]\t${JSON.stringify(encoded.version)}`];
  let size = 0;
  for (const line of encoded.lines) {
    if (size >= chunkChars) {
      yield `${parts.join('\n')}\n`;
      parts = [];
      size = 0;
    }
    parts.push(line);
    size += line.length + 1;
  }
  yield parts.join('\n');
}

/** The whole body as one string (tests, small snapshots). */
export function snapshotLinesBody(encoded: EncodedSnapshot): string {
  return [...snapshotLinesChunks(encoded)].join('');
}

/**
 * Encodes snapshots into lines. Each record's line (and its digest) is remembered by the record
 * object's identity: unchanged records are the same objects from one translation to the next (the
 * translation memo reuses them), so a one-record change serializes and hashes one line.
 */
export class SnapshotLineEncoder {
  private cache = new WeakMap<object, CachedLine>();

  /**
   * A provider snapshot's lines as the operator sends them: records three maps down in
   * `configuration` (configuration → http → routers → name) and in `sources` (sources → http →
   * routers → name), one down in `serverStatus` (service name → servers). `sources` is left out
   * when absent, `serverStatus` is `{}` then.
   */
  encodeSnapshot(snapshot: { readonly configuration: object; readonly serverStatus?: object; readonly sources?: object }): EncodedSnapshot {
    return this.encode(
      { configuration: snapshot.configuration, serverStatus: snapshot.serverStatus ?? {}, sources: snapshot.sources },
      { configuration: 3, serverStatus: 1, sources: 3 },
    );
  }

  /**
   * @param value the snapshot without its version (`{configuration, serverStatus}`)
   * @param depths how many levels of maps are cut into lines below each top-level key
   *   (`{configuration: 3, serverStatus: 1}`); other keys are one line each
   */
  encode(value: Readonly<Record<string, unknown>>, depths: Readonly<Record<string, number>>): EncodedSnapshot {
    const lines: string[] = [];
    const digests: string[] = [];
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      this.walk(value[key], '[', key, depths[key] ?? 0, lines, digests);
    }
    const version = hash('sha256', Buffer.from(digests.join(''), 'latin1'), 'hex').slice(0, 16);
    return { version, lines };
  }

  /** `parent` is the path's JSON text so far without its closing bracket (`["configuration"`). */
  private walk(value: unknown, parent: string, name: string, depth: number, lines: string[], digests: string[]): void {
    if (value === undefined) return;
    const isMap = typeof value === 'object' && value !== null && !Array.isArray(value);
    if (isMap && depth > 0) {
      const path = `${parent}${parent === '[' ? '' : ','}${JSON.stringify(name)}`;
      let empty = true;
      for (const k in value) {
        if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
        const v = (value as Record<string, unknown>)[k];
        if (v === undefined) continue;
        empty = false;
        this.walk(v, path, k, depth - 1, lines, digests);
      }
      if (empty) this.push(`${path}]\t{}`, lines, digests);
      return;
    }
    if (typeof value === 'object' && value !== null) {
      const cached = this.cache.get(value);
      if (cached !== undefined && cached.name === name && cached.parent === parent) {
        lines.push(cached.line);
        digests.push(cached.digest);
        return;
      }
      // One flat copy: the template would be kept as a tree of five strings, all of them held.
      const line = detached(`${parent}${parent === '[' ? '' : ','}${JSON.stringify(name)}]\t${JSON.stringify(value)}`);
      const digest = hash('sha256', line, 'binary');
      this.cache.set(value, { parent, name, line, digest });
      lines.push(line);
      digests.push(digest);
      return;
    }
    this.push(`${parent}${parent === '[' ? '' : ','}${JSON.stringify(name)}]\t${JSON.stringify(value)}`, lines, digests);
  }

  private push(line: string, lines: string[], digests: string[]): void {
    lines.push(line);
    digests.push(hash('sha256', line, 'binary'));
  }
}

export { SnapshotLineDecoder, SnapshotLinesError, type DecodeSession, type DecodedSnapshot, type SnapshotLine } from './line-decoder.js';
