// @ts-check
/**
 * The package graph, enforced by `pnpm lint` (dependency-cruiser): which workspace package may
 * import which, no import cycles anywhere, and no reaching into another package's files past its
 * `index.ts`. docs/package-graph.md says why the graph is this one.
 *
 * `RUNTIME` lists what a package's own code (`src/`, not its tests) may import. A package's tests,
 * benches and scripts may import the same plus `@croupier/testkit`. Adding an edge here is a
 * design decision: add it to docs/package-graph.md and to the package's package.json too.
 */

/** @type {Record<string, readonly string[]>} */
const RUNTIME = {
  // The rules of the game: no I/O, no other package.
  'packages/baccarat': [],
  // Schemas of every event, command and DTO; canonical JSON and the digests over it.
  'packages/contracts': ['packages/baccarat'],
  // The EventStore port and its adapters; knows events, not what decides them.
  'packages/eventstore': ['packages/contracts'],
  // Decider, command handler, projections: the building blocks of every service.
  'packages/application': ['packages/contracts', 'packages/eventstore'],
  // Replay and verification of streams: reads records, never a service.
  'packages/audit': ['packages/baccarat', 'packages/contracts', 'packages/eventstore'],
  'packages/messaging': ['packages/contracts', 'packages/eventstore'],
  'packages/http': ['packages/baccarat', 'packages/contracts', 'packages/eventstore'],
  'packages/runtime': [
    'packages/application',
    'packages/contracts',
    'packages/eventstore',
    'packages/http',
  ],
  // Test infrastructure: only tests import it (see TEST_ONLY).
  'packages/testkit': ['packages/contracts'],
  // Services share only packages; none imports another service.
  'services/shoe': SERVICE(),
  'services/round': SERVICE('packages/messaging'),
  'services/settlement': SERVICE('packages/messaging'),
  'services/wallet': SERVICE('packages/messaging'),
  // The composition root: every service in one process (ADR 0012 puts the CLI on it).
  'services/gateway': [
    ...SERVICE('packages/messaging', 'packages/audit'),
    'services/shoe',
    'services/round',
    'services/settlement',
    'services/wallet',
  ],
  'packages/cli': [
    'packages/audit',
    'packages/baccarat',
    'packages/contracts',
    'packages/eventstore',
    'packages/http',
    'packages/messaging',
    'packages/runtime',
    'services/gateway',
  ],
};

/** What every service builds on, plus the extra packages it names. */
function SERVICE(/** @type {string[]} */ ...extra) {
  return [
    'packages/application',
    'packages/baccarat',
    'packages/contracts',
    'packages/eventstore',
    'packages/http',
    'packages/runtime',
    ...extra,
  ];
}

/** The graph itself has no cycle: a package that reaches itself through RUNTIME fails here. */
(function acyclic() {
  /** @type {Map<string, 'visiting' | 'done'>} */
  const marks = new Map();
  const visit = (/** @type {string} */ pkg, /** @type {string[]} */ trail) => {
    if (marks.get(pkg) === 'done') return;
    if (marks.get(pkg) === 'visiting')
      throw new Error(
        `dependency-cruiser.config.js: a package cycle ${[...trail, pkg].join(' -> ')}`,
      );
    marks.set(pkg, 'visiting');
    for (const next of RUNTIME[pkg] ?? []) visit(next, [...trail, pkg]);
    marks.set(pkg, 'done');
  };
  for (const pkg of Object.keys(RUNTIME)) visit(pkg, []);
})();

const TEST_ONLY = ['packages/testkit'];
/** Tests, benches and scripts of a package: they may use its test kit. */
const TEST_FILE = '(^|/)(test|bench|scripts)/|\\.test\\.ts$';
/** Workspace code outside the packages (cross-service tests, examples): a consumer of them all. */
const WORKSPACE = '^(packages|services)/[^/]+/';

const escape = (/** @type {string} */ text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const anyOf = (/** @type {readonly string[]} */ paths) =>
  paths.length === 0 ? '^$' : `^(${paths.map(escape).join('|')})/`;

/** @type {import('dependency-cruiser').IForbiddenRuleType[]} */
const packageGraph = Object.entries(RUNTIME).flatMap(([pkg, allowed]) => [
  {
    name: 'package-graph',
    comment: `${pkg} may import only ${allowed.join(', ') || 'nothing of the workspace'} (dependency-cruiser.config.js)`,
    severity: 'error',
    from: { path: `^${escape(pkg)}/`, pathNot: TEST_FILE },
    to: { path: WORKSPACE, pathNot: anyOf([pkg, ...allowed]) },
  },
  {
    name: 'package-graph-tests',
    comment: `${pkg}'s tests may import only ${[...allowed, ...TEST_ONLY].join(', ')}`,
    severity: 'error',
    from: { path: `^${escape(pkg)}/((test|bench|scripts)/|.*\\.test\\.ts$)` },
    to: { path: WORKSPACE, pathNot: anyOf([pkg, ...allowed, ...TEST_ONLY]) },
  },
]);

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules import one way: a cycle makes each end depend on the whole loop.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      comment:
        "An import that does not resolve: often a workspace package missing from the importer's package.json.",
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-internals',
      comment:
        "Another package is imported through its name and its index.ts (or testkit's vitest.ts), never by its files.",
      severity: 'error',
      from: { path: '^((packages|services|examples)/[^/]+/|test/)' },
      to: {
        path: WORKSPACE,
        pathNot: [
          '^$1',
          '^(packages|services)/[^/]+/src/index\\.ts$',
          '^packages/testkit/src/vitest\\.ts$',
        ],
      },
    },
    {
      name: 'workspace-packages-are-declared',
      comment: 'Every workspace package is in the graph: a new one needs its line in RUNTIME.',
      severity: 'error',
      from: { path: WORKSPACE, pathNot: anyOf(Object.keys(RUNTIME)) },
      to: {},
    },
    ...packageGraph,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|data|coverage|\\.turbo)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@croupier/source', 'import', 'types', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
  },
};
