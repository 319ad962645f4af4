// The rule of the house (docs/architecture.md), checked in `npm test` by `npm run lint:deps`.
const { readdirSync } = require('node:fs');
const { join } = require('node:path');

// Shared capabilities are few and chosen; every other folder of lib/ but the
// platform and the composition (app, local tooling, operator CLI) is a feature.
const SHARED_NAMES = ['expressions', 'models', 'net', 'events', 'mcp'];
const NOT_FEATURES = new Set(['platform', 'app', 'local', 'admin', ...SHARED_NAMES]);
const FEATURE_NAMES = readdirSync(join(__dirname, 'lib'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !NOT_FEATURES.has(entry.name))
  .map((entry) => entry.name);
const FEATURES = `(${FEATURE_NAMES.join('|')})`;
const SHARED = `(${SHARED_NAMES.join('|')})`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module cycle makes load order matter and features impossible to read alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-stands-alone',
      severity: 'error',
      comment: 'lib/platform is what every feature stands on; it knows no feature, capability or composition.',
      from: { path: '^lib/platform/' },
      to: { path: '^lib/', pathNot: '^lib/platform/' },
    },
    {
      name: 'shared-capabilities-know-no-feature',
      severity: 'error',
      comment: 'expressions, models, net, events and mcp serve every feature and import only the platform and each other.',
      from: { path: `^lib/${SHARED}/` },
      to: { path: '^lib/', pathNot: [`^lib/${SHARED}/`, '^lib/platform/'] },
    },
    {
      name: 'features-meet-through-their-index',
      severity: 'error',
      comment:
        "A feature reaches another only through that feature's index.ts (its exported services) or its model.ts (types and constants, no I/O), never its repositories or internals.",
      from: { path: `^lib/${FEATURES}/`, pathNot: `^lib/${FEATURES}/contracts/` },
      to: { path: `^lib/${FEATURES}/`, pathNot: ['^lib/$1/', `^lib/${FEATURES}/index\\.ts$`, `^lib/${FEATURES}/model\\.ts$`] },
    },
    {
      name: 'contracts-meet-through-index-or-responses',
      severity: 'error',
      comment:
        "An endpoint contract reaches another feature through its index.ts or model.ts, or loads its response-only schemas (openapi/) in its lazy responses thunk: documentation that no Lambda evaluates, so a worker that uses the feature's services does not bundle it.",
      from: { path: `^lib/${FEATURES}/contracts/` },
      to: { path: `^lib/${FEATURES}/`, pathNot: ['^lib/$1/', `^lib/${FEATURES}/index\\.ts$`, `^lib/${FEATURES}/model\\.ts$`, `^lib/${FEATURES}/openapi/`] },
    },
    {
      name: 'settlement-stands-between-work-and-money',
      severity: 'error',
      comment:
        'lib/settlement settles the work that runs, workflow requests, evaluations (and schedules, forks) start and end, on billing, accounts and usage: it knows none of the features above it, and those below never reach up to it.',
      from: { path: '^lib/settlement/' },
      to: { path: `^lib/${FEATURES}/`, pathNot: ['^lib/settlement/', '^lib/(billing|accounts|usage)/(index|model)\\.ts$'] },
    },
    {
      name: 'money-knows-no-settlement',
      severity: 'error',
      comment: 'billing, accounts and usage are what settlement stands on; importing it back would make a cycle of money.',
      from: { path: '^lib/(billing|accounts|usage)/' },
      to: { path: '^lib/settlement/' },
    },
    {
      name: 'features-know-no-composition',
      severity: 'error',
      comment: 'lib/app composes the features (routes, queues, the OpenAPI document); features do not import it, nor the local tooling.',
      from: { path: `^lib/(platform|${FEATURES.slice(1, -1)}|${SHARED.slice(1, -1)})/` },
      to: { path: '^lib/(app|local|admin)/' },
    },
    {
      name: 'lib-is-not-an-entry-point',
      severity: 'error',
      comment: 'Handlers, tests, the bench and the CDK app import lib, never the other way round.',
      from: { path: '^lib/' },
      to: { path: '^(functions|test|bench|infra)/' },
    },
    {
      name: 'pages-are-built-not-imported',
      severity: 'error',
      comment:
        'web/build.ts builds the console and the reference page at synthesis and on `npm start`: deployed code serves its output (lib/pages) and never runs the build.',
      from: { path: '^(lib|functions)/', pathNot: '^lib/local/' },
      to: { path: '^web/' },
    },
    {
      name: 'browser-code-stands-alone',
      severity: 'error',
      comment: 'The console runs in a browser: it calls the service through the typed client only, never lib/ (Node.js code, AWS clients).',
      from: { path: '^web/(console|docs)/' },
      to: { path: '^(lib|functions|infra|test|bench)/' },
    },
    {
      name: 'the-client-is-its-own-package',
      severity: 'error',
      comment: 'clients/typescript/src is published on its own: it knows the service only through the generated document types.',
      from: { path: '^clients/typescript/src/' },
      to: { path: '^(?!clients/typescript/src/|node_modules/)' },
    },
    {
      name: 'handlers-are-not-libraries',
      severity: 'error',
      comment: 'A handler is an entry point; shared code belongs in lib/.',
      from: { path: '^(functions|lib|infra)/' },
      to: { path: '^functions/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk\\.out|coverage|\\.bench)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
    combinedDependencies: true,
  },
};
