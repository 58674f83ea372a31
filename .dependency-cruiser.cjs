// The import rules of the house, checked by `npm run depcheck` (part of `make test`):
// no import cycle anywhere, and no import that points up a layer. docs/architecture.md explains the
// layers; this file is their only definition.
//
// A layer list is ordered lowest first. A module may import from its own layer and from lower
// layers, never from a higher one. Paths are regular expressions on the repository-relative path.

/** The program: shared foundations, then the areas (which never import each other), then the top. */
const program = [
  ['^src/(collections|config|http|dynamic-config|log)/', '^src/area\\.ts$'],
  ['^src/(pushgateway|search|management|providers)/'],
  ['^src/(server|cli|flag-groups)\\.ts$'],
];

/** Inside each area: its root catalogue and flags lowest, its app (the wiring) highest. */
const areas = {
  search: [
    ['^src/search/(errors|flags)\\.ts$'],
    ['^src/search/syntax/'],
    ['^src/search/http/'],
    ['^src/search/mapping/'],
    ['^src/search/store/'],
    ['^src/search/index/'],
    ['^src/search/requests/'],
    ['^src/search/query/'],
    ['^src/search/highlight/'],
    ['^src/search/engine/'],
    ['^src/search/routes/'],
    ['^src/search/app\\.ts$'],
  ],
  pushgateway: [
    ['^src/pushgateway/(errors|flags|model)\\.ts$'],
    ['^src/pushgateway/exposition/'],
    ['^src/pushgateway/store/'],
    ['^src/pushgateway/http/'],
    ['^src/pushgateway/console/'],
    ['^src/pushgateway/routes/'],
    ['^src/pushgateway/app\\.ts$'],
  ],
  'dynamic-config': [
    ['^src/dynamic-config/snapshot/'],
    ['^src/dynamic-config/(http|tcp|udp|configuration|internal-endpoint)\\.ts$'],
    ['^src/dynamic-config/(quick-checks|validation)\\.ts$'],
  ],
  management: [
    ['^src/management/(errors|flags|go-json)\\.ts$'],
    ['^src/management/runtime/'],
    ['^src/management/view/'],
    ['^src/management/record-store\\.ts$'],
    ['^src/management/(api|internal|dashboard)/'],
    ['^src/management/app\\.ts$'],
  ],
  kubernetes: [
    ['^src/providers/kubernetes/flags\\.ts$'],
    ['^src/providers/kubernetes/client/'],
    ['^src/providers/kubernetes/translate/shared/'],
    ['^src/providers/kubernetes/translate/ingress/'],
    ['^src/providers/kubernetes/translate/crd/'],
    ['^src/providers/kubernetes/translate/[^/]+\\.ts$'],
    ['^src/providers/kubernetes/(watch|deliver|status)/'],
    ['^src/providers/kubernetes/[^/]+\\.ts$'],
  ],
};

function layerRules(name, layers) {
  const rules = [];
  layers.forEach((lower, i) => {
    const higher = layers.slice(i + 1).flat();
    if (higher.length === 0) return;
    rules.push({
      name: `${name}-layer-${i}-imports-up`,
      comment: `${name}: ${lower.join(' ')} may not import from a higher layer`,
      severity: 'error',
      from: { path: lower },
      to: { path: higher },
    });
  });
  return rules;
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Import cycles make modules impossible to read, test or load in isolation.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'areas-stay-apart',
      comment: 'An area never imports another area: shared code lives in the foundations.',
      severity: 'error',
      from: { path: '^src/(pushgateway|search|management|providers)/' },
      to: { path: '^src/(pushgateway|search|management|providers)/', pathNot: '^src/$1/' },
    },
    {
      name: 'src-stays-out-of-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    ...layerRules('program', program),
    ...Object.entries(areas).flatMap(([name, layers]) => layerRules(name, layers)),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
