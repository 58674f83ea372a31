import { flag } from '../config/flag-types.js';

/** Search (Elasticsearch-compatible) flags. */
export const searchFlags = {
  'search.listen-address': flag.address(':9200', 'Address of the Elasticsearch-compatible search listener (host:port, or off)'),
};
