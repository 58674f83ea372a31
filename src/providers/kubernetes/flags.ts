import { flag } from '../../config/flag-types.js';

/** Operator (`portico operator`) flags. */
export const operatorFlags = {
  'operator.health-address': flag.address(':8082', 'Address of the operator\'s health and readiness endpoints (host:port, or off)'),
};
