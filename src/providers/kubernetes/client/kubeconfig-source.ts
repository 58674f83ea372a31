/**
 * Where the operator's Kubernetes configuration comes from, decided before anything is loaded, so
 * that a machine with none says so in one line instead of falling back (as client-go's defaults and
 * @kubernetes/client-node's `loadFromDefault` do) to `http://localhost:8080` and retrying forever.
 *
 * The order is kubectl's: `--kubeconfig`, then `$KUBECONFIG` (a list of files, the existing ones
 * merged), then `~/.kube/config`, then the in-cluster service account.
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export type KubeconfigSource =
  | { readonly kind: 'files'; readonly files: readonly string[] }
  | { readonly kind: 'in-cluster' }
  | { readonly kind: 'none'; readonly message: string };

export interface KubeconfigEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  readonly exists: (path: string) => boolean;
  readonly serviceAccountDir: string;
}

export function defaultKubeconfigEnvironment(home: string): KubeconfigEnvironment {
  return { env: process.env, home, exists: existsSync, serviceAccountDir: SERVICE_ACCOUNT_DIR };
}

/**
 * In a pod: the service account's token is mounted and the API server's Service is in the
 * environment. Also what `--operator.leader-election auto` and the default lease namespace follow.
 */
export function inPod(e: KubeconfigEnvironment): boolean {
  return e.exists(join(e.serviceAccountDir, 'token')) && Boolean(e.env.KUBERNETES_SERVICE_HOST) && Boolean(e.env.KUBERNETES_SERVICE_PORT);
}

/** Decides the source; `flag` is `--kubeconfig` ('' when not given). */
export function kubeconfigSource(flag: string, e: KubeconfigEnvironment): KubeconfigSource {
  if (flag !== '') return { kind: 'files', files: [flag] };
  const listed = (e.env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  const existing = listed.filter((f) => e.exists(f));
  if (existing.length > 0) return { kind: 'files', files: existing };
  const home = e.home === '' ? '' : join(e.home, '.kube', 'config');
  if (home !== '' && e.exists(home)) return { kind: 'files', files: [home] };
  if (inPod(e)) return { kind: 'in-cluster' };
  const token = join(e.serviceAccountDir, 'token');
  const hasToken = e.exists(token);
  const looked = [
    '--kubeconfig is not set',
    listed.length === 0 ? '$KUBECONFIG is not set' : `$KUBECONFIG names no existing file (${listed.join(delimiter)})`,
    home === '' ? 'there is no home directory for ~/.kube/config' : `${home} does not exist`,
    hasToken
      ? `${token} exists but KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set`
      : `not in a pod (no ${token})`,
  ];
  return { kind: 'none', message: `no Kubernetes configuration found: ${looked.join(', ')}; pass --kubeconfig FILE or set KUBECONFIG` };
}
