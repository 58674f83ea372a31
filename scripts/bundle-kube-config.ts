/**
 * Bundles @kubernetes/client-node's KubeConfig (with what it imports) into one file,
 * `dist/vendor/kube-config.js`, run by `npm run build` after tsc. The operator needs only
 * KubeConfig (kubeconfig files, in-cluster service accounts, exec and OIDC credentials), but the
 * package's entry point, and its config module too, import the whole generated API client: about
 * 900 ES modules, whose loading was 0.4-0.6 s of CPU before the operator could send its first list
 * request. One tree-shaken file of the same code loads in about 0.1 s.
 * src/providers/kubernetes/client/kube-config-loader.ts loads this file and falls back to the package
 * when it is missing (tests run from the sources).
 *
 *   npx tsx scripts/bundle-kube-config.ts [outfile]
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = process.argv[2] ?? join(root, 'dist/vendor/kube-config.js');

await build({
  stdin: { contents: "export { KubeConfig } from '@kubernetes/client-node';", resolveDir: root, loader: 'js' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile,
  logLevel: 'warning',
  legalComments: 'inline',
  // The bundled CommonJS dependencies (js-yaml, node-fetch, ...) call require() for node's modules.
  banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module';\nconst require = __bundleCreateRequire(import.meta.url);" },
});
