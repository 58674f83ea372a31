import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * Where the build puts KubeConfig bundled into one file (scripts/bundle-kube-config.ts), relative
 * to this module's compiled place, `dist/providers/kubernetes/client/`.
 */
const BUNDLED = new URL('../../../vendor/kube-config.js', import.meta.url);

/**
 * @kubernetes/client-node's KubeConfig class. From the build's one-file bundle when there is one:
 * the package itself loads its whole generated API client (about 900 modules, 0.4-0.6 s of CPU
 * at every operator start, before the first list request could go out). From the package
 * otherwise (tests running from the sources, a build without the bundle): the same code.
 */
export async function loadKubeConfigClass(): Promise<typeof KubeConfig> {
  if (existsSync(fileURLToPath(BUNDLED))) {
    const bundled = (await import(BUNDLED.href)) as { KubeConfig: typeof KubeConfig };
    return bundled.KubeConfig;
  }
  return (await import('@kubernetes/client-node')).KubeConfig;
}
