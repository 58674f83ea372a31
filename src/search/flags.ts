import type { commonFlags } from '../config/common-flags.js';
import { flag, type FlagValues } from '../config/flag-types.js';
import type { listenerFlags } from '../http/listener-flags.js';

/** Search (Elasticsearch-compatible) flags. Documents live under `<data.dir>/search/`. */
export const searchFlags = {
  'search.listen-address': flag.address(':9200', 'Address of the Elasticsearch-compatible search listener (host:port, or off)'),
  'search.users-file': flag.string('', 'File of user:bcrypt-hash lines (htpasswd -B -C 10 or more) for HTTP basic auth on the search listener; empty: no auth'),
  'search.max-body-size': flag.bytes('100mb', 'Largest accepted request body, like ES http.max_content_length; larger requests get 413'),
  'search.flavor': flag.enumOf(['elasticsearch', 'opensearch'] as const, 'elasticsearch', 'Which product GET / describes'),
  'search.warmup-docs': flag.int(2000, 'Made-up documents indexed into a throwaway index at start, so that V8 has compiled the indexing code before the first _bulk (0: no warm-up)', 0, 20_000),
  'search.bulk-slice': flag.duration('10ms', 'A _bulk is parsed and applied in slices of about this much work, with searches and other requests served between them (0: each _bulk in one piece)'),
  'search.request-cache-size': flag.bytes('16mb', 'Bound of the shard request cache (size-0 search answers per index, like ES indices.requests.cache.size); least recently used entries are evicted past it (0: no cache)'),
  'search.durability': flag.enumOf(['request', 'async'] as const, 'request', 'Like ES index.translog.durability: request fsyncs every acknowledged write (SQLite synchronous=FULL); async survives process crashes but not power loss (synchronous=NORMAL)'),
};

/** The slice of the configuration this area reads: its own flags and the general ones. */
export type SearchConfig = FlagValues<typeof commonFlags & typeof listenerFlags & typeof searchFlags>;
