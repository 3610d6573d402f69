/**
 * Integration (real Kubernetes 1.20.2 from the artifact cache on namespace nodes): the
 * netns-kubeadm preset comes up through the CLI as a user types it, its nodes are Ready, `lab
 * provision`'s steps changed nothing on a second pass, `lab down` leaves nothing; and a harness
 * killed during `up` leaves nothing after `lab reap`. While it is up, a hand-made nft drop on
 * lin2 turns only lin1 → lin2 cells red, and their path evidence names it: from the lab's node
 * shells, and from node shell pods when the cluster is run as one the harness did not make. As
 * such a cluster (KUBECONFIG alone): with lin2 tainted, then lin1 cordoned, every cell through the
 * node skipped naming it and why, the rest green; as a ServiceAccount bound only to the shipped
 * ClusterRole, green, and with one verb taken from the role, stopped in preflight naming the verb,
 * no run namespace made. Then
 * every disruption action on the middle Linux worker (lin1), each of its cells green again within
 * its bound, the long-lived connections and the UDP conntrack sockets intact. Run
 * by `npm run test:netns-kubeadm` (HL_KUBEADM_NETNS=1, root, the cache of
 * vagrant/artifacts/kubernetes/build.sh).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { ExecaRunner } from '../../../exec/execa-runner.ts';
import { silentLogger } from '../../../log/logger.ts';
import { rootNetnsSnapshot } from '../../../testing/netns-host.ts';
import { pollUntil } from '../../../wait/poll.ts';
import { runSuite } from '../../../../specs/selftest/suite-process.ts';
import {
  expectOnlyDroppedCells,
  FOREIGN_TABLE,
  foreignDropTable,
} from '../../../../specs/testing/foreign-drop.ts';
import {
  CLUSTER_SUBJECT,
  DISRUPTION_ACTIONS,
  NODE_ACTIONS,
} from '../../../contracts/disruptions.ts';
import { KUBELET_SYSCTLS, NODE_STATE_ROOT, PIN_ROOT } from './node-host.ts';
import { REGISTRY_HOSTS_DIR } from './node-machines.ts';
import { missing, optIn, skipIf, type Skip } from '../../../testing/skip.ts';

const CLI = ['node_modules/.bin/tsx', 'lab/cli/main.ts'];
const PRESET = 'lab/presets/netns-kubeadm.yaml';
/** The preset's artifact cache: Kubernetes, its images (agnhost's tarball among them). */
const ARTIFACTS = (parse(readFileSync(PRESET, 'utf8')) as { artifacts: { dir: string } }).artifacts
  .dir;
const DAEMONS =
  /^(kubelet|kube-apiserver|kube-proxy|kube-controller|kube-scheduler|etcd|containerd.*|kubelet-loop.sh|pause|agnhost|hl-cluster-dns)$/;

/** Every disruption action: on lin1, and (the DNS pods) on the cluster. */
const ACTIONS_ON_LIN1 = DISRUPTION_ACTIONS.map(
  (a) => `${a}/${NODE_ACTIONS.includes(a) ? 'lin1' : CLUSTER_SUBJECT}`,
);

function skipReason(): Skip | undefined {
  const optedOut = optIn(
    'HL_KUBEADM_NETNS',
    'npm run test:netns-kubeadm',
    'brings real Kubernetes up on namespace nodes',
  );
  if (optedOut !== undefined) return optedOut;
  if (process.getuid?.() !== 0) return missing('needs root for namespaces, mounts and cgroups');
  return existsSync(join(ARTIFACTS, 'recipe.json'))
    ? undefined
    : missing(`no artifact cache at ${ARTIFACTS}: bash vagrant/artifacts/kubernetes/build.sh`);
}

/** Everything of lab `id` this host still holds, one line each: the test's definition of "nothing left". */
function leftovers(id: string): string[] {
  const lines: string[] = [];
  const netns = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
  for (const ns of netns.split('\n').map((l) => l.split(' ')[0] ?? ''))
    if (ns.startsWith(`${id}-`)) lines.push(`namespace ${ns}`);
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n'))
    if (line.includes(id) || line.includes('hl-run-')) lines.push(`mount ${line.split(' ')[4]}`);
  for (const controller of existsSync('/sys/fs/cgroup') ? readdirSync('/sys/fs/cgroup') : []) {
    const dir = join('/sys/fs/cgroup', controller);
    for (const name of existsSync(dir) && !dir.endsWith('.procs') ? safeList(dir) : [])
      if (name.startsWith(`${id}_`)) lines.push(`cgroup ${controller}/${name}`);
  }
  for (const dir of [join(PIN_ROOT, id), join(NODE_STATE_ROOT, id)])
    if (existsSync(dir)) lines.push(`folder ${dir}`);
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let comm: string;
    let environ: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue;
    }
    if (DAEMONS.test(comm) || environ.includes(`HL_LAB_ID=${id}\0`))
      lines.push(`process ${pid} (${comm})`);
  }
  return lines;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function sysctls(): string {
  return Object.keys(KUBELET_SYSCTLS)
    .map((k) => `${k}=${readFileSync(`/proc/sys/${k}`, 'utf8').trim()}`)
    .join(' ');
}

describe('kubeadm on namespace nodes (real Kubernetes 1.20.2 from the artifact cache)', function () {
  // Up, a hand-made drop, the runs as a cluster the harness did not make, every disruption action.
  this.timeout(40 * 60_000);
  const skip = skipReason();
  const home = mkdtempSync(join(tmpdir(), 'hl-kubeadm-'));
  const env = { ...process.env, LAB_HOME: join(home, '.lab'), CI: 'true' };
  const runner = new ExecaRunner(silentLogger());
  const cli = (...args: string[]) =>
    spawnSync(CLI[0]!, [...CLI.slice(1), ...args], { env, encoding: 'utf8' });
  /** The preset under another name, so a user's own lab is left alone. */
  const spec = (name: string): string => {
    const file = join(home, `${name}.yaml`);
    writeFileSync(file, stringify({ ...(parse(readFileSync(PRESET, 'utf8')) as object), name }));
    return file;
  };

  before(function () {
    skipIf(this, skip);
  });

  after(() => {
    for (const lab of ['itkubeadm', 'itkubecrash']) cli('reap', '--lab', lab);
    rmSync(home, { recursive: true, force: true });
  });

  /** The lab's admin kubeconfig, as `lab up` wrote it. */
  const adminKubeconfig = () => join(env.LAB_HOME, 'itkubeadm', 'kubeconfig');

  /**
   * The suite's options as a user with KUBECONFIG alone (no lab) gives them: pod-to-pod Linux
   * cells only, since NodePort and outbound cells need this host on the lab's network.
   */
  function asExisting(kubeconfig: string, settings: Record<string, string> = {}) {
    return {
      labHome: mkdtempSync(join(home, 'no-lab-')),
      grep: 'pod-to-pod linux-to-linux',
      env: { KUBECONFIG: kubeconfig, AGNHOST_IMAGE: 'hybrid-lab/agnhost:2.25', ...settings },
    };
  }

  /**
   * Runs the suite with path evidence of every red cell, checks that exactly the cells from lin1
   * into lin2 are red and that each names `rule` on lin2 first; returns the first one's folder.
   */
  async function droppedOnLin2(
    results: string,
    rule: string,
    options: Omit<Parameters<typeof runSuite>[2], 'timeoutMs'>,
  ): Promise<{ cells: string[]; first: string; suiteLog: string }> {
    const defaults = {
      PROBE_TIMEOUT_MS: '2000',
      EVIDENCE: 'failed',
      EVIDENCE_MAX_CELLS: '20',
    };
    const run = await runSuite(runner, results, {
      ...options,
      timeoutMs: 600_000,
      env: { ...defaults, ...options.env },
    });
    const red = expectOnlyDroppedCells(run.cells, {
      source: 'lin1',
      target: 'lin2',
      targetOs: 'linux',
      node: 'lin2',
      rule,
    });
    return {
      cells: run.cells.map((c) => c.cell),
      first: join(results, red[0]!.evidence!.files[0]!, '..'),
      suiteLog: readFileSync(join(results, 'suite.log'), 'utf8'),
    };
  }

  /**
   * A drop the catalogue does not know, on the last node: lin2 forwards nothing from lin1's pods to
   * its own pods' port 8080. Only cells from lin1 into lin2 turn red, and the real cluster's path
   * evidence (from the lab's node shells) names that table and rule on lin2 first.
   */
  async function evidenceOfHandMadeDrop(): Promise<void> {
    const plan = JSON.parse(readFileSync(join(env.LAB_HOME, 'itkubeadm', 'plan.json'), 'utf8')) as {
      nodes: { name: string; podCIDR: string }[];
    };
    const cidr = (name: string) => plan.nodes.find((n) => n.name === name)!.podCIDR;
    const rule = `ip saddr ${cidr('lin1')} ip daddr ${cidr('lin2')} tcp dport 8080 drop`;
    const table = join(home, 'foreign.nft');
    writeFileSync(table, foreignDropTable(rule));
    const add = cli('ssh', 'lin2', '--lab', 'itkubeadm', '--', 'nft', '-f', table);
    expect(add.status, add.stderr).to.equal(0);
    try {
      const { first } = await droppedOnLin2(join(home, 'evidence-results'), rule, {
        lab: 'itkubeadm',
        labHome: env.LAB_HOME,
      });
      for (const file of ['routes.txt', 'nft-ruleset.txt', 'conntrack.txt', 'trace.txt'])
        expect(existsSync(join(first, 'lin2', file)), file).to.equal(true);
      // kube-proxy's own rules are in the node's ruleset (iptables-nft).
      expect(readFileSync(join(first, 'lin2', 'nft-ruleset.txt'), 'utf8')).to.include(
        'KUBE-SERVICES',
      );
      await evidenceAsExistingCluster(rule);
    } finally {
      cli(
        'ssh',
        'lin2',
        '--lab',
        'itkubeadm',
        '--',
        'nft',
        'delete',
        'table',
        'inet',
        FOREIGN_TABLE,
      );
    }
  }

  /**
   * The same drop seen as a cluster the harness did not make (KUBECONFIG alone, no lab): path
   * evidence then goes through a privileged pod on each node of the path, and names the drop too.
   * Pod-to-pod cells only: NodePort and outbound cells need this host on the lab's network.
   */
  async function evidenceAsExistingCluster(rule: string): Promise<void> {
    // Monitors' pid files already in /tmp are not this run's (a harness killed earlier leaves them).
    const tracePids = () => readdirSync('/tmp').filter((f) => f.startsWith('hl-evidence-trace-'));
    const earlierPids = new Set(tracePids());
    const { cells, first, suiteLog } = await droppedOnLin2(
      join(home, 'existing-results'),
      rule,
      asExisting(adminKubeconfig()),
    );
    expect(cells).to.include('pod-to-pod/linux-to-linux/cross-node/cp1/lin2/ip');
    // What the pods cost: the suite's own line, `path evidence of N cell(s) in M ms`.
    const timing = /path evidence of .*/.exec(suiteLog);
    console.log(`      existing-cluster run: ${timing?.[0] ?? 'no evidence line'}`);
    // The node's own state, through the pod: the foreign table and kube-proxy's rules.
    const ruleset = readFileSync(join(first, 'lin2', 'nft-ruleset.txt'), 'utf8');
    expect(ruleset).to.include(`table inet ${FOREIGN_TABLE}`).and.to.include('KUBE-SERVICES');
    expect(readFileSync(join(first, 'lin2', 'routes.txt'), 'utf8')).to.include('10.244.');
    // Nothing of the evidence is left on the node: no trace table, no monitor's pid file.
    const tables = cli('ssh', 'lin2', '--lab', 'itkubeadm', '--', 'nft', 'list', 'tables');
    expect(tables.stdout).to.include(FOREIGN_TABLE).and.not.include('hl_evidence_trace');
    expect(tracePids().filter((f) => !earlierPids.has(f))).to.deep.equal([]);
  }

  /** kubectl as the lab's admin, on the control plane node; fails the test when kubectl does. */
  function kubectl(...args: string[]): string {
    const run = cli(
      'ssh',
      'cp1',
      '--lab',
      'itkubeadm',
      '--',
      'kubectl',
      '--kubeconfig=/etc/kubernetes/admin.conf',
      ...args,
    );
    expect(run.status, `kubectl ${args.join(' ')}: ${run.stdout}${run.stderr}`).to.equal(0);
    return run.stdout;
  }

  /** The run namespaces (`hybrid-lab-<run id>`) the cluster holds. */
  const runNamespaces = (): string[] =>
    kubectl('get', 'namespaces', '-o', 'name')
      .split('\n')
      .filter((n) => /^namespace\/hybrid-lab-\d{8}-/.test(n));

  /** The suite's pod-to-pod Linux cells as a user with KUBECONFIG alone (no lab) runs them. */
  function asExistingCluster(
    results: string,
    kubeconfig: string,
    settings: Record<string, string> = {},
  ) {
    return runSuite(runner, join(home, results), {
      ...asExisting(kubeconfig, settings),
      timeoutMs: 600_000,
    });
  }

  /** `command` on lab node `node`, as root there; fails the test when it fails. */
  function onNode(node: string, command: string): string {
    const run = cli('ssh', node, '--lab', 'itkubeadm', '--', 'sh', '-c', command);
    expect(run.status, `${node}: ${command}: ${run.stdout}${run.stderr}`).to.equal(0);
    return run.stdout;
  }

  /**
   * A private registry on the lab: Debian's docker-registry on cp1's address, TLS from a CA of the
   * test's own (each node's containerd trusts it through a hosts.toml), htpasswd; skopeo copies the
   * agnhost image of the artifact cache in. With IMAGE_PULL_SECRET the cells are green; without
   * it the run ends at its pods' pull naming the setting, no Service made.
   */
  async function privateRegistry(): Promise<void> {
    const apt = spawnSync(
      'bash',
      [
        '-c',
        '. vagrant/bin/hl-apt.sh && hl_apt_install docker-registry skopeo apache2-utils openssl',
      ],
      { encoding: 'utf8' },
    );
    expect(apt.status, `${apt.stdout}${apt.stderr}`).to.equal(0);
    const plan = JSON.parse(readFileSync(join(env.LAB_HOME, 'itkubeadm', 'plan.json'), 'utf8')) as {
      nodes: { name: string; ip: string }[];
    };
    const address = `${plan.nodes.find((n) => n.name === 'cp1')!.ip}:5000`;
    const dir = mkdtempSync(join(home, 'registry-'));
    const sh = (command: string) => {
      const run = spawnSync('sh', ['-c', command], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(run.status, `${command}: ${run.stderr}`).to.equal(0);
    };
    const ip = address.split(':')[0]!;
    sh(
      'openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=hybrid-lab test CA" -keyout ca.key -out ca.crt 2>/dev/null',
    );
    writeFileSync(join(dir, 'san.ext'), `subjectAltName=IP:${ip}\n`);
    sh(
      `openssl req -newkey rsa:2048 -nodes -subj "/CN=${ip}" -keyout registry.key -out registry.csr 2>/dev/null`,
    );
    sh(
      'openssl x509 -req -in registry.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile san.ext -out registry.crt 2>/dev/null',
    );
    const password = randomBytes(12).toString('hex');
    sh(`htpasswd -Bbc htpasswd suite ${password} 2>/dev/null`);
    writeFileSync(
      join(dir, 'config.yml'),
      stringify({
        version: 0.1,
        log: { level: 'warn' },
        storage: { filesystem: { rootdirectory: join(dir, 'data') } },
        http: {
          addr: address,
          tls: {
            certificate: join(dir, 'registry.crt'),
            key: join(dir, 'registry.key'),
          },
        },
        auth: {
          htpasswd: { realm: 'hybrid-lab', path: join(dir, 'htpasswd') },
        },
      }),
    );
    // In cp1's namespaces, in its own process group: the test ends it by that group.
    const registry = spawn(
      CLI[0]!,
      [
        ...CLI.slice(1),
        'ssh',
        'cp1',
        '--lab',
        'itkubeadm',
        '--',
        'docker-registry',
        'serve',
        join(dir, 'config.yml'),
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true },
    );
    let registryLog = '';
    registry.stderr.on('data', (chunk: Buffer) => (registryLog += chunk.toString()));
    const exited = new Promise((resolve) => registry.once('exit', resolve));
    const image = `${address}/e2e/agnhost:2.25`;
    try {
      mkdirSync(join(dir, 'certs'));
      copyFileSync(join(dir, 'ca.crt'), join(dir, 'certs', 'ca.crt'));
      const tar = join(ARTIFACTS, 'images/linux/hybrid-lab_agnhost_2.25.tar');
      await pollUntil(
        'the registry to answer on cp1',
        () =>
          cli(
            'ssh',
            'cp1',
            '--lab',
            'itkubeadm',
            '--',
            'skopeo',
            'copy',
            '--insecure-policy',
            '--quiet',
            `--dest-cert-dir=${join(dir, 'certs')}`,
            `--dest-creds=suite:${password}`,
            `docker-archive:${tar}`,
            `docker://${image}`,
          ).status === 0 || undefined,
        { timeoutMs: 60_000, intervalMs: 1000 },
      );
      for (const node of plan.nodes)
        onNode(
          node.name,
          `mkdir -p ${REGISTRY_HOSTS_DIR}/${address} && printf '%s\n' 'server = "https://${address}"' '[host."https://${address}"]' '  capabilities = ["pull", "resolve"]' '  ca = "${join(dir, 'ca.crt')}"' > ${REGISTRY_HOSTS_DIR}/${address}/hosts.toml`,
        );
      const docker = join(dir, 'dockerconfig.json');
      writeFileSync(
        docker,
        JSON.stringify({
          auths: {
            [address]: {
              auth: Buffer.from(`suite:${password}`).toString('base64'),
            },
          },
        }),
        { mode: 0o600 },
      );
      kubectl(
        '-n',
        'default',
        'create',
        'secret',
        'generic',
        'hl-regcred',
        '--type=kubernetes.io/dockerconfigjson',
        `--from-file=.dockerconfigjson=${docker}`,
      );
      const admin = adminKubeconfig();
      const green = await asExistingCluster('registry', admin, {
        AGNHOST_IMAGE: image,
        IMAGE_PULL_SECRET: 'default/hl-regcred',
      });
      const greenLog = readFileSync(join(green.resultsDir, 'suite.log'), 'utf8');
      expect(green.exitCode, `with IMAGE_PULL_SECRET:\n${greenLog.slice(-3000)}`).to.equal(0);
      expect(green.cells.filter((c) => c.verdict === 'pass')).to.not.be.empty;
      expect(greenLog, 'the password').to.not.include(password);
      // The pull above left the image on every node, where IfNotPresent would use it again.
      for (const node of plan.nodes)
        onNode(
          node.name,
          `ctr -n k8s.io images ls -q | grep '^${address}/' | xargs -r ctr -n k8s.io images rm`,
        );
      const refused = await asExistingCluster('registry-no-secret', admin, {
        AGNHOST_IMAGE: image,
        PREPULL_TIMEOUT_MS: '60000',
        DEPLOY_TIMEOUT_MS: '60000',
      });
      const log = readFileSync(join(refused.resultsDir, 'suite.log'), 'utf8');
      expect(refused.exitCode, 'the run without the secret').to.not.equal(0);
      expect(log)
        .to.match(/ErrImagePull|ImagePullBackOff/)
        .and.to.include('IMAGE_PULL_SECRET');
      console.log(
        `      private registry: ${green.cells.length} cells with the secret; without: ${/timed out[^\n]*/.exec(log)?.[0] ?? 'refused'}`,
      );
    } finally {
      process.kill(-registry.pid!, 'SIGTERM');
      await exited;
      kubectl('-n', 'default', 'delete', 'secret', 'hl-regcred', '--ignore-not-found');
      for (const node of plan.nodes) onNode(node.name, `rm -rf ${REGISTRY_HOSTS_DIR}/${address}`);
      if (registryLog !== '') console.log(`      registry said: ${registryLog.slice(-500)}`);
    }
  }

  /**
   * A node the run cannot use (`make` on it, `undo` after): every cell that needs it skipped
   * naming the node and `why`, every other cell green.
   */
  async function nodeLeftOut(node: string, make: string[], undo: string[], why: RegExp) {
    kubectl(...make);
    try {
      const run = await asExistingCluster(`left-out-${node}`, adminKubeconfig());
      expect(run.broken, run.broken).to.equal(undefined);
      const needs = run.cells.filter((c) => c.cell.split('/').includes(node));
      const rest = run.cells.filter((c) => !c.cell.split('/').includes(node));
      expect(needs, `cells through ${node}`).to.not.be.empty;
      expect(rest, `cells not through ${node}`).to.not.be.empty;
      for (const c of needs) {
        expect(c.verdict, c.cell).to.equal('skipped');
        expect(c.reason, c.cell).to.include(node).and.to.match(why);
      }
      expect(
        rest.filter((c) => c.verdict !== 'pass').map((c) => `${c.cell}: ${c.verdict} ${c.detail}`),
      ).to.deep.equal([]);
      console.log(
        `      ${node} left out: ${needs.length} cells skipped (${needs[0]!.reason}), ${rest.length} green`,
      );
    } finally {
      kubectl(...undo);
    }
  }

  /**
   * A ServiceAccount bound only to the shipped ClusterRole (manifests/rbac) runs the cells green;
   * with one verb taken from the role, the run stops in its preflight naming that verb, and the
   * cluster holds no run namespace after it.
   */
  async function serviceAccountWithShippedRole(): Promise<void> {
    const role = readFileSync('manifests/rbac/hybrid-lab-suite.yaml', 'utf8');
    const roleFile = join(home, 'roles.yaml');
    writeFileSync(roleFile, role);
    kubectl('apply', '-f', roleFile);
    kubectl('create', 'namespace', 'hybrid-lab-runner');
    kubectl('-n', 'hybrid-lab-runner', 'create', 'serviceaccount', 'suite');
    kubectl(
      'create',
      'clusterrolebinding',
      'hybrid-lab-suite',
      '--clusterrole=hybrid-lab-suite',
      '--serviceaccount=hybrid-lab-runner:suite',
    );
    // Kubernetes 1.20's token controller puts the account's token in a Secret of its own.
    const token = await pollUntil(
      "the service account's token",
      () => {
        // The namespace's default account has one too: the Secret the account itself names.
        const secret = kubectl(
          '-n',
          'hybrid-lab-runner',
          'get',
          'serviceaccount',
          'suite',
          '-o',
          'jsonpath={.secrets[0].name}',
        ).trim();
        if (secret === '') return undefined;
        const out = kubectl(
          '-n',
          'hybrid-lab-runner',
          'get',
          'secret',
          secret,
          '-o',
          'jsonpath={.data.token}',
        ).trim();
        return out === '' ? undefined : Buffer.from(out, 'base64').toString('utf8');
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const admin = parse(readFileSync(adminKubeconfig(), 'utf8')) as {
      clusters: { name: string }[];
    };
    const kubeconfig = join(home, 'suite-sa.kubeconfig');
    writeFileSync(
      kubeconfig,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: admin.clusters,
        users: [{ name: 'suite', user: { token } }],
        contexts: [
          {
            name: 'suite',
            context: { cluster: admin.clusters[0]!.name, user: 'suite' },
          },
        ],
        'current-context': 'suite',
      }),
      { mode: 0o600 },
    );
    const green = await asExistingCluster('service-account', kubeconfig);
    expect(green.broken, green.broken).to.equal(undefined);
    const greenLog = readFileSync(join(green.resultsDir, 'suite.log'), 'utf8');
    expect(green.exitCode, `the run as the service account:\n${greenLog.slice(-3000)}`).to.equal(0);
    expect(green.cells.filter((c) => c.verdict === 'pass')).to.not.be.empty;
    expect(
      green.cells.filter((c) => c.verdict !== 'pass' && c.verdict !== 'skipped'),
    ).to.deep.equal([]);
    // One verb less: endpoints may be read but no longer created.
    const without = role.replace(
      /(resources: \[endpoints\]\n\s+verbs: )\[create, get\]/,
      '$1[get]',
    );
    expect(without, 'the endpoints rule of the shipped role').to.not.equal(role);
    writeFileSync(roleFile, without);
    kubectl('apply', '-f', roleFile);
    try {
      const before = runNamespaces();
      const refused = await asExistingCluster('service-account-refused', kubeconfig);
      expect(refused.exitCode, 'the run without endpoints create').to.not.equal(0);
      const log = readFileSync(join(refused.resultsDir, 'suite.log'), 'utf8');
      expect(log).to.include('may not create endpoints').and.to.include('nothing was created');
      expect(runNamespaces(), 'run namespaces after the refused run').to.deep.equal(before);
    } finally {
      writeFileSync(roleFile, role);
      kubectl('apply', '-f', roleFile);
      kubectl('delete', 'clusterrolebinding', 'hybrid-lab-suite');
      kubectl('delete', 'namespace', 'hybrid-lab-runner');
    }
  }

  /**
   * The over-time rows and the disruption phase on lin1 (docs/disruption.md), real: every action,
   * every cell that starts or ends on lin1 green again within its bound; the long-lived
   * connections held through the run and the actions (those through the reboot skipped, saying
   * why), the UDP conntrack sockets switched to the new backend.
   */
  async function disruptionsOnLin1(): Promise<void> {
    const run = await runSuite(runner, join(home, 'disruption-results'), {
      lab: 'itkubeadm',
      labHome: env.LAB_HOME,
      timeoutMs: 900_000,
      // The phase probes again the matrix cells through lin1 whether the run selected them or not:
      // the matrix pass itself (run on this lab by the README's commands in CI) is left out.
      grep: 'disruption|long-lived|udp-conntrack|twin-services',
      env: { DISRUPTIONS: 'on', DISRUPTION_NODES: 'lin1' },
    });
    expect(run.broken, run.broken).to.equal(undefined);
    expect(run.run?.emulated, 'labelled real').to.equal(false);
    const notGreen = run.cells.filter((c) => c.verdict !== 'pass' && c.verdict !== 'skipped');
    expect(notGreen.map((c) => `${c.cell}: ${c.verdict} ${c.detail}`)).to.deep.equal([]);
    const ran = (prefix: string) =>
      run.cells.filter((c) => c.cell.startsWith(prefix) && c.verdict === 'pass');
    for (const row of ['long-lived-pod-to-pod/', 'long-lived-pod-to-service/', 'udp-conntrack/'])
      expect(ran(row), row).to.not.be.empty;
    const lines: string[] = [];
    for (const at of ACTIONS_ON_LIN1) {
      const cells = run.cells.filter((c) => c.cell.startsWith(`disruption/${at}/`));
      // Probed again until green, with a time to green; else a connection held through the action.
      const green = ran(`disruption/${at}/`).filter((c) => c.recovery !== undefined);
      const held = ran(`disruption/${at}/`).filter((c) => c.recovery === undefined);
      expect(green.length, `green cells after ${at}`).to.be.greaterThan(10);
      for (const c of green) {
        const { timeToGreenMs, boundMs } = c.recovery!;
        expect(timeToGreenMs, `${c.cell}: time to green`).to.be.a('number');
        expect(timeToGreenMs, `${c.cell}: within its bound`).to.be.at.most(boundMs);
      }
      for (const c of held) expect(c.cell).to.match(/^disruption\/[\w-]+\/lin1\/long-lived-/);
      // Only a connection held through the reboot is not run: it is not expected to survive.
      for (const c of cells.filter((c) => c.verdict === 'skipped'))
        expect(`${c.cell}: ${c.reason ?? ''}`).to.match(
          /^disruption\/node-reboot\/lin1\/long-lived-.*: not expected to survive/,
        );
      const slowest = Math.max(...green.map((c) => c.recovery!.timeToGreenMs!));
      lines.push(`${at}: ${green.length} green, slowest ${slowest} ms; ${held.length} held`);
    }
    console.log(`      time to green: ${lines.join('; ')}`);
  }

  it('comes up Ready, and lab down leaves nothing: no process, mount, cgroup, namespace or folder; the root namespace and the kernel settings as they were', async function () {
    const root = await rootNetnsSnapshot(runner);
    const kernel = sysctls();
    const up = cli('up', '--spec', spec('itkubeadm'));
    expect(up.status, up.stdout + up.stderr).to.equal(0);
    const status = cli('status', '--lab', 'itkubeadm', '--json');
    const nodes = (JSON.parse(status.stdout) as { nodes: { name: string; ready: boolean }[] })
      .nodes;
    expect(nodes.map((n) => `${n.name} ${n.ready}`)).to.deep.equal([
      'cp1 true',
      'lin1 true',
      'lin2 true',
    ]);
    // The kubelets set global kernel settings; each node's are private files.
    expect(sysctls()).to.equal(kernel);
    await evidenceOfHandMadeDrop();
    // As a cluster the harness did not make: nodes it cannot use, and the shipped role alone.
    await nodeLeftOut(
      'lin2',
      ['taint', 'node', 'lin2', 'dedicated=infra:NoSchedule'],
      ['taint', 'node', 'lin2', 'dedicated=infra:NoSchedule-'],
      /has taint dedicated=infra:NoSchedule/,
    );
    await nodeLeftOut('lin1', ['cordon', 'lin1'], ['uncordon', 'lin1'], /is cordoned/);
    await serviceAccountWithShippedRole();
    await privateRegistry();
    await disruptionsOnLin1();
    const down = cli('down', '--lab', 'itkubeadm');
    expect(down.status, down.stdout + down.stderr).to.equal(0);
    expect(leftovers('hl-itkubeadm')).to.deep.equal([]);
    expect(await rootNetnsSnapshot(runner)).to.deep.equal(root);
    expect(sysctls()).to.equal(kernel);
  });

  it('a harness killed during up leaves pieces that lab reap removes', async function () {
    // The kill waits for a kube-apiserver: one of an earlier lab would fire it at once.
    expect(leftovers('hl-itkubecrash'), 'daemons before the crash lab').to.deep.equal([]);
    // Its own process group, so the kill reaches node under tsx's launcher too.
    const harness = spawn(CLI[0]!, [...CLI.slice(1), 'up', '--spec', spec('itkubecrash')], {
      env,
      stdio: 'ignore',
      detached: true,
    });
    const exited = new Promise((resolve) => harness.once('exit', resolve));
    // Killed in the middle of kubeadm init: the control plane's static pods are starting.
    await pollUntil(
      'kubeadm init of the crash lab to start the API server',
      () =>
        leftovers('hl-itkubecrash').some((l) => /\(kube-apiserver\)/.test(l)) ? true : undefined,
      { timeoutMs: 5 * 60_000, intervalMs: 200 },
    );
    process.kill(-harness.pid!, 'SIGKILL');
    await exited;
    const state = JSON.parse(
      readFileSync(join(home, '.lab', 'itkubecrash', 'state.json'), 'utf8'),
    ) as {
      phase: string;
    };
    expect(state.phase, 'the kill came after up had finished').to.not.equal('up');
    expect(leftovers('hl-itkubecrash'), 'what the killed up left').to.not.be.empty;
    const reap = cli('reap', '--lab', 'itkubecrash');
    expect(reap.status, reap.stdout + reap.stderr).to.equal(0);
    expect(leftovers('hl-itkubecrash')).to.deep.equal([]);
  });
});
