import { describe, expect, it } from 'vitest';
import { inPod, kubeconfigSource, type KubeconfigEnvironment } from '../../../../src/providers/kubernetes/client/kubeconfig-source.js';

const SA = '/var/run/secrets/kubernetes.io/serviceaccount';

function environment(files: string[], env: Record<string, string> = {}, home = '/home/me'): KubeconfigEnvironment {
  return { env, home, exists: (p) => files.includes(p), serviceAccountDir: SA };
}

describe('kubeconfigSource', () => {
  it('takes --kubeconfig first, even when the file is missing (loading it then says why)', () => {
    expect(kubeconfigSource('/etc/k.yaml', environment(['/home/me/.kube/config']))).toEqual({ kind: 'files', files: ['/etc/k.yaml'] });
  });

  it('merges the existing files of $KUBECONFIG, as kubectl does', () => {
    const e = environment(['/a', '/c', '/home/me/.kube/config'], { KUBECONFIG: '/a:/b::/c' });
    expect(kubeconfigSource('', e)).toEqual({ kind: 'files', files: ['/a', '/c'] });
  });

  it('falls back to ~/.kube/config, then to the in-cluster service account', () => {
    expect(kubeconfigSource('', environment(['/home/me/.kube/config'], { KUBECONFIG: '/gone' }))).toEqual({ kind: 'files', files: ['/home/me/.kube/config'] });
    const pod = environment([`${SA}/token`], { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' });
    expect(kubeconfigSource('', pod)).toEqual({ kind: 'in-cluster' });
  });

  it('is in a pod only with both the token and the API server\'s Service in the environment (what leader election auto follows)', () => {
    const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
    expect(inPod(environment([`${SA}/token`], env))).toBe(true);
    expect(inPod(environment([`${SA}/token`]))).toBe(false);
    expect(inPod(environment([], env))).toBe(false);
  });

  it('names everything it looked at when there is nothing', () => {
    const none = kubeconfigSource('', environment([], { KUBECONFIG: '/gone' }));
    expect(none).toEqual({
      kind: 'none',
      message: `no Kubernetes configuration found: --kubeconfig is not set, $KUBECONFIG names no existing file (/gone), /home/me/.kube/config does not exist, not in a pod (no ${SA}/token); pass --kubeconfig FILE or set KUBECONFIG`,
    });
  });

  it('does not take a token without the service host for a pod', () => {
    const half = kubeconfigSource('', environment([`${SA}/token`]));
    expect(half.kind).toBe('none');
    expect(half.kind === 'none' && half.message).toContain('KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set');
  });
});
