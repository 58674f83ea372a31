import { flag } from '../config/flag-types.js';

/** Management API (Traefik-compatible) flags. */
export const managementFlags = {
  'management.listen-address': flag.address(':8080', 'Address of the Traefik-compatible management API and dashboard (host:port, or off)'),
  'internal.listen-address': flag.address('127.0.0.1:8081', 'Loopback address where providers (the operator) deliver snapshots (host:port, or off)'),
  'internal.token-file': flag.string('', 'File holding the token that protects the internal listener (default: <data.dir>/internal-token, created if missing)'),
};
