import { errors } from '../errors.js';

/**
 * Content negotiation as Elasticsearch does it: JSON and NDJSON bodies, plain or with the vendor
 * types `application/vnd.elasticsearch+json; compatible-with=7|8|9` (and the OpenSearch ones),
 * answered with the same family of content type.
 */

export interface MediaType {
  readonly kind: 'json' | 'ndjson';
  /** The compatible-with version of a vendor type, or undefined for plain types. */
  readonly compatibleWith: number | undefined;
  readonly vendor: 'elasticsearch' | 'opensearch' | undefined;
}

const RE = /^\s*application\/(?:vnd\.(elasticsearch|opensearch)\+)?(json|x-ndjson)\s*(?:;(.*))?$/i;

/** Parses a Content-Type or Accept entry; undefined when it is not one we speak. */
export function parseMediaType(header: string): MediaType | undefined {
  const m = RE.exec(header);
  if (!m) return undefined;
  // Most requests carry no parameters (`application/json`): nothing to split.
  const compat = m[3] === undefined ? undefined : m[3].split(';').map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('compatible-with='));
  const version = compat === undefined ? undefined : Number(compat.slice('compatible-with='.length));
  if (version !== undefined && ![7, 8, 9].includes(version)) {
    throw errors.mediaTypeHeader(`Accept version must be either version 7, 8 or 9, but found ${compat?.slice(16)}. Accept=${header}`);
  }
  return {
    kind: (m[2] as string).toLowerCase() === 'json' ? 'json' : 'ndjson',
    compatibleWith: version,
    vendor: m[1] === undefined ? undefined : ((m[1] as string).toLowerCase() as 'elasticsearch' | 'opensearch'),
  };
}

/** The body's media type; refuses anything else with ES's 406. `text/plain` is read as JSON (curl -d). */
export function requestMediaType(contentType: string | undefined): MediaType | undefined {
  if (contentType === undefined || contentType === '') return undefined;
  const mt = parseMediaType(contentType);
  if (mt !== undefined) return mt;
  if (/^\s*(?:text\/plain|application\/x-www-form-urlencoded)\b/i.test(contentType)) return { kind: 'json', compatibleWith: undefined, vendor: undefined };
  throw errors.unsupportedContentType(contentType);
}

/** Content type of a JSON response for the request's Accept (or Content-Type) header. */
export function responseContentType(accept: string | undefined, contentType: string | undefined): string {
  return versionedContentType(accept) ?? versionedContentType(contentType) ?? DEFAULT_CONTENT_TYPE;
}

/** Content type of JSON responses to requests that name no compatible version. */
export const DEFAULT_CONTENT_TYPE = 'application/json; charset=UTF-8';

/** The vendor content type for a header's first entry with a compatible version, else undefined. */
function versionedContentType(h: string | undefined): string | undefined {
  // A version is a parameter: a header without `;` (the usual `application/json`) names none.
  if (h === undefined || !h.includes(';')) return undefined;
  for (const entry of h.split(',')) {
    const mt = parseMediaTypeSafe(entry);
    if (mt?.compatibleWith !== undefined) return `application/vnd.${mt.vendor ?? 'elasticsearch'}+json;compatible-with=${mt.compatibleWith}`;
  }
  return undefined;
}

function parseMediaTypeSafe(h: string): MediaType | undefined {
  try {
    return parseMediaType(h);
  } catch {
    return undefined;
  }
}

/** The major version the server answers as (GET / says 8.17) and the oldest and newest it accepts. */
const CURRENT_MAJOR = 8;
const MIN_MAJOR = 7;
const MAX_MAJOR = 9;

/** The compatible-with version of a header's first vendor entry (or its first entry), or undefined. */
function headerVersion(header: string | undefined): number | undefined {
  // The version pattern starts with `;`: most headers are refused before any split or regex.
  if (header === undefined || !header.includes(';')) return undefined;
  const entries = header.split(',');
  const m = entries.map((e) => /;\s*compatible-with\s*=\s*(\d+)/i.exec(e)).find((x) => x !== null);
  return m === undefined || m === null ? undefined : Number(m[1]);
}

/**
 * ES's check of REST API compatibility headers (RestCompatibleVersionHelper): a versioned Accept
 * must name a version the server speaks; with a body, Content-Type must too, and both headers
 * must be versioned alike with the same version. Throws media_type_header_exception (400).
 */
export function checkCompatibleVersions(accept: string | undefined, contentType: string | undefined, hasContent: boolean): void {
  const aVersion = headerVersion(accept);
  const cVersion = headerVersion(contentType);
  const acceptVersion = aVersion ?? CURRENT_MAJOR;
  const contentTypeVersion = cVersion ?? CURRENT_MAJOR;
  const range = `either version ${MAX_MAJOR}, ${CURRENT_MAJOR} or ${MIN_MAJOR}`;
  if (acceptVersion < MIN_MAJOR || acceptVersion > MAX_MAJOR) {
    throw errors.mediaTypeHeader(`Accept version must be ${range}, but found ${acceptVersion}. Accept=${accept ?? 'null'}`);
  }
  if (!hasContent) return;
  if (contentTypeVersion < MIN_MAJOR || contentTypeVersion > MAX_MAJOR) {
    throw errors.mediaTypeHeader(`Content-Type version must be ${range}, but found ${contentTypeVersion}. Content-Type=${contentType ?? 'null'}`);
  }
  if (contentTypeVersion !== acceptVersion) {
    throw errors.mediaTypeHeader(
      'A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version ' +
        `and the compatible versions must match. Accept=${accept ?? 'null'}, Content-Type=${contentType ?? 'null'}`,
    );
  }
  if ((cVersion === undefined) !== (aVersion === undefined)) {
    throw errors.mediaTypeHeader(
      `A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version. Accept=${accept ?? 'null'}, Content-Type=${contentType ?? 'null'}`,
    );
  }
}
