/**
 * The commands' flags, composed from what each area declares (the areas own their flags and the
 * slice of the configuration they read; only this top layer sees them all).
 */
import { commonFlags, serveRuntimeFlags } from './config/common-flags.js';
import { listenerFlags } from './http/listener-flags.js';
import { renderFlagReference } from './config/flag-reference.js';
import type { FlagValues } from './config/flag-types.js';
import { pushgatewayFlags } from './pushgateway/flags.js';
import { managementFlags } from './management/flags.js';
import { searchFlags } from './search/flags.js';
import { operatorFlags } from './providers/kubernetes/flags.js';

/** Every flag of `portico serve`, grouped as `--help` and docs/configuration.md show them. */
export const serveFlagGroups = {
  General: commonFlags,
  Runtime: serveRuntimeFlags,
  Listeners: listenerFlags,
  'Push gateway': pushgatewayFlags,
  'Management API': managementFlags,
  Search: searchFlags,
} as const;

/** Every flag of `portico operator`. */
export const operatorFlagGroups = {
  General: commonFlags,
  Operator: operatorFlags,
} as const;

export const serveFlags = { ...commonFlags, ...serveRuntimeFlags, ...listenerFlags, ...pushgatewayFlags, ...managementFlags, ...searchFlags };
export const operatorCommandFlags = { ...commonFlags, ...operatorFlags };

/** The validated configuration of `portico serve`; keys are flag names. */
export type ServeConfig = FlagValues<typeof serveFlags>;

/** docs/configuration.md: every flag of both commands (`npm run docs:flags` writes it). */
export function flagReference(): string {
  return renderFlagReference([
    { command: 'serve', groups: serveFlagGroups },
    { command: 'operator', groups: operatorFlagGroups },
  ]);
}
