import { flag } from '../config/flag-types.js';

/** Management API (Traefik-compatible) flags. */
export const managementFlags = {
  'management.listen-address': flag.address(':8080', 'Address of the Traefik-compatible management API and dashboard (host:port, or off)'),
};
