import type { IndexState } from './index-state.js';

/**
 * The cluster's health as ES computes it on one node: every primary is assigned here, and no
 * replica can be (a replica never shares its primary's node), so each index with replicas is
 * yellow and the cluster is as bad as its worst index.
 */
export function clusterHealth(states: readonly IndexState[]): { status: 'green' | 'yellow'; primaries: number; unassigned: number; activePercent: number } {
  const primaries = states.reduce((n, s) => n + s.settings.numberOfShards, 0);
  const unassigned = states.reduce((n, s) => n + s.settings.numberOfShards * s.settings.numberOfReplicas, 0);
  const total = primaries + unassigned;
  return { status: unassigned > 0 ? 'yellow' : 'green', primaries, unassigned, activePercent: total === 0 ? 100 : (100 * primaries) / total };
}
