import { commonFlags } from './common-flags.js';
import type { FlagValues } from './flag-types.js';
import { pushgatewayFlags } from '../pushgateway/flags.js';
import { managementFlags } from '../management/flags.js';
import { searchFlags } from '../search/flags.js';
import { operatorFlags } from '../providers/kubernetes/flags.js';

/** Every flag of `portico serve`, grouped as `--help` and the README show them. */
export const serveFlagGroups = {
  General: commonFlags,
  'Push gateway': pushgatewayFlags,
  'Management API': managementFlags,
  Search: searchFlags,
} as const;

/** Every flag of `portico operator`. */
export const operatorFlagGroups = {
  General: commonFlags,
  Operator: operatorFlags,
} as const;

export const serveFlags = { ...commonFlags, ...pushgatewayFlags, ...managementFlags, ...searchFlags };
export const operatorCommandFlags = { ...commonFlags, ...operatorFlags };

/** The validated configuration of `portico serve`; keys are flag names. */
export type ServeConfig = FlagValues<typeof serveFlags>;
/** The validated configuration of `portico operator`. */
export type OperatorConfig = FlagValues<typeof operatorCommandFlags>;
