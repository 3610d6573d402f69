/**
 * The Windows facts catalogue itself (every fact sourced, relied on, and checked by a test that
 * exists), and the checks derived from its facts that have no better home.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { evidenceCommand } from '../cluster/windows-path-evidence.ts';
import { planLab } from '../plan/plan-lab.ts';
import { WINDOWS_VERSION_FLOORS } from '../plan/windows-checks.ts';
import { SshNodeShell } from '../remote/ssh-node-shell.ts';
import { loadSpec } from '../spec/load-spec.ts';
import { exitCodeOverOpenSsh } from '../testing/openssh-powershell.ts';
import { RecordingRunner } from '../testing/recording-runner.ts';
import { REPO_ROOT, windowsScripts } from '../testing/windows-scripts.ts';
import { joinStep, windowsBaseSteps, windowsNetworkSteps } from './provision-steps.ts';
import { scriptCommand } from './step-runner.ts';
import { PKTMON_DEFAULT_VXLAN_PORT, WINDOWS_FACTS } from './windows-facts.ts';
import { renderFactsSection, withFactsSection } from './windows-facts-page.ts';

/** The `it()` titles of a test file, as patterns (a template's `${…}` matches anything). */
function testTitles(file: string): RegExp[] {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const titles = [...text.matchAll(/\bit\(\s*(['"`])((?:\\.|(?!\1)[\s\S])*)\1/g)];
  return titles.map(([, , title = '']) => {
    const parts = title.replace(/\\(.)/g, '$1').split(/\$\{[^}]*\}/);
    return new RegExp(`^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  });
}

/** Code lines of a script with continuation lines (ending in a backtick) joined. */
function statements(text: string): string[] {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const out: string[] = [];
  for (const line of lines) {
    if (out.length > 0 && out.at(-1)!.endsWith('`')) out[out.length - 1] = `${out.at(-1)!} ${line}`;
    else out.push(line);
  }
  return out;
}

/** Pod templates (or pods) of the repository's manifests. */
function podSpecs(): { origin: string; spec: Record<string, unknown> }[] {
  const out: { origin: string; spec: Record<string, unknown> }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(REPO_ROOT, dir)).sort()) {
      const path = `${dir}/${name}`;
      if (!name.includes('.')) walk(path);
      else if (/\.ya?ml$/.test(name)) {
        for (const doc of parseAllDocuments(readFileSync(join(REPO_ROOT, path), 'utf8'))) {
          const obj = doc.toJS() as { kind?: string; spec?: Record<string, unknown> } | null;
          const template = (obj?.spec?.template as { spec?: Record<string, unknown> } | undefined)
            ?.spec;
          const spec = template ?? (obj?.kind === 'Pod' ? obj.spec : undefined);
          if (spec !== undefined) out.push({ origin: `${path} ${obj?.kind ?? ''}`, spec });
        }
      }
    }
  };
  walk('manifests');
  return out;
}

describe('the Windows facts catalogue', () => {
  it('every fact has sources, code that relies on it, and tests derived from it that exist', () => {
    const ids = WINDOWS_FACTS.map((f) => f.id);
    expect(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      'ids twice',
    ).to.deep.equal([]);
    for (const fact of WINDOWS_FACTS) {
      expect(fact.id).to.match(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(fact.sources, `${fact.id}: sources`).to.not.be.empty;
      for (const source of fact.sources) {
        if (source.startsWith('https://'))
          expect(source, fact.id).to.match(
            /^https:\/\/(learn\.microsoft\.com|kubernetes\.io|github\.com|nssm\.cc)\/\S+$/,
          );
        else expect(existsSync(join(REPO_ROOT, source)), `${fact.id}: ${source}`).to.equal(true);
      }
      expect(fact.reliedOnBy, `${fact.id}: relied on by`).to.not.be.empty;
      for (const path of fact.reliedOnBy)
        expect(existsSync(join(REPO_ROOT, path)), `${fact.id}: ${path}`).to.equal(true);
      expect(fact.checkedBy, `${fact.id}: tests`).to.not.be.empty;
      for (const { file, test } of fact.checkedBy) {
        expect(existsSync(join(REPO_ROOT, file)), `${fact.id}: ${file}`).to.equal(true);
        expect(
          testTitles(file).some((title) => title.test(test)),
          `${fact.id}: ${file} has no test "${test}"`,
        ).to.equal(true);
      }
    }
    for (const floor of WINDOWS_VERSION_FLOORS)
      expect(ids, `the fact behind the ${floor.since} floor`).to.include(floor.fact);
  });

  it('every line the harness sends a Windows node over SSH keeps the exit code of its program', () => {
    const win = planLab(loadSpec('libvirt-hybrid', REPO_ROOT).spec).nodes.find(
      (n) => n.os === 'windows',
    )!;
    const steps = [...windowsBaseSteps(), joinStep(win, undefined), ...windowsNetworkSteps()];
    const programs = [
      ...steps.map((s) => scriptCommand('windows', s.script, s.args)),
      scriptCommand('windows', 'artifact-hashes.ps1', ['kubernetes/v1.30.4/windows/amd64']),
      evidenceCommand("Start-HlCapture -Addresses @('10.244.3.2')"),
      ['hostname'],
    ];
    const target = {
      node: 'win1',
      host: '10.0.0.5',
      port: 22,
      user: 'vagrant',
      identityFile: '/k',
    };
    const shell = new SshNodeShell('win1', { target }, new RecordingRunner(), {
      flavour: 'powershell',
    });
    for (const argv of programs) {
      const line = shell.sshArgv(argv).at(-1)!;
      for (const exitCode of [0, 1, 2, 3, 75, 3010])
        expect(exitCodeOverOpenSsh(line, { exitCode }), `${argv[0]} … exits ${exitCode}`).to.equal(
          exitCode,
        );
      expect(exitCodeOverOpenSsh(line, 'not-found'), `${argv[0]} not found`).to.equal(1);
    }
  });

  it('every Windows script whose last statement runs a program passes its exit code on', () => {
    const wrapper = /\$wrapper = @"\n([\s\S]*?)\n"@/.exec(
      readFileSync(join(REPO_ROOT, 'vagrant/scripts/windows/install-kubernetes.ps1'), 'utf8'),
    )?.[1];
    expect(wrapper, "install-kubernetes.ps1's kubelet wrapper").to.be.a('string');
    const scripts = [
      ...windowsScripts(),
      { origin: 'install-kubernetes.ps1 StartKubelet.ps1', text: wrapper!.replace(/`(.)/g, '$1') },
    ];
    for (const { origin, text } of scripts) {
      const last = statements(text).at(-1) ?? '';
      const runsProgram = /^&\s/.test(last) || /^[\w:.\\-]+\.exe\b/i.test(last);
      expect(runsProgram, `${origin} ends with a program: ${last.slice(0, 60)}`).to.equal(false);
    }
  });

  it('every Windows feature the manifests use has a version floor the planner holds', () => {
    const manifests = podSpecs().map((p) => JSON.stringify(p.spec));
    const used = {
      'hostprocess-version-floor': manifests.some((m) => m.includes('"hostProcess":true')),
      'windsr-version-floor': readFileSync(
        join(REPO_ROOT, 'manifests/windows/kube-proxy-hostprocess.yaml'),
        'utf8',
      ).includes('WinDSR'),
    };
    for (const [fact, isUsed] of Object.entries(used)) {
      expect(isUsed, `the manifests use ${fact}`).to.equal(true);
      expect(
        WINDOWS_VERSION_FLOORS.some((f) => f.fact === fact),
        `the planner holds ${fact}`,
      ).to.equal(true);
    }
  });

  it('every HostProcess pod template sets hostNetwork', () => {
    const hostProcess = podSpecs().filter((p) =>
      JSON.stringify(p.spec).includes('"hostProcess":true'),
    );
    expect(hostProcess.length).to.be.greaterThanOrEqual(4);
    for (const { origin, spec } of hostProcess) expect(spec.hostNetwork, origin).to.equal(true);
  });

  it("the lab's VXLAN port is the one pktmon -e matches", () => {
    const plan = planLab(loadSpec('libvirt-hybrid', REPO_ROOT).spec);
    expect(plan.cni.port).to.equal(PKTMON_DEFAULT_VXLAN_PORT);
  });

  it('docs/windows-facts.md shows every fact of the catalogue, and no other (UPDATE_DOCS=1 rewrites it)', () => {
    const file = join(REPO_ROOT, 'docs/windows-facts.md');
    const page = readFileSync(file, 'utf8');
    const rendered = withFactsSection(page);
    if (process.env.UPDATE_DOCS === '1') writeFileSync(file, rendered);
    expect(page, 'the page is the rendering of the catalogue').to.equal(rendered);
    const headings = [...page.matchAll(/^### (\S+)$/gm)].map((m) => m[1]);
    expect(headings).to.deep.equal(WINDOWS_FACTS.map((f) => f.id));
    for (const fact of WINDOWS_FACTS)
      for (const source of fact.sources) expect(renderFactsSection(), fact.id).to.include(source);
  });

  it('every file a HostProcess start script reads from its sandbox is in a volume its container mounts', () => {
    interface PodSpec {
      automountServiceAccountToken?: boolean;
      containers: { command: string[]; volumeMounts?: { mountPath: string }[] }[];
    }
    interface Doc {
      kind: string;
      data?: Record<string, string>;
      spec?: { template: { spec: PodSpec } };
    }
    let read = 0;
    for (const file of [
      'manifests/windows/flannel-hostprocess.yaml',
      'manifests/windows/kube-proxy-hostprocess.yaml',
    ]) {
      const docs = parseAllDocuments(readFileSync(join(REPO_ROOT, file), 'utf8')).map(
        (d) => d.toJS() as Doc,
      );
      const scripts = docs.flatMap((d) =>
        d.kind === 'ConfigMap' ? Object.values(d.data ?? {}) : [],
      );
      const pod = docs.find((d) => d.kind === 'DaemonSet')!.spec!.template.spec;
      // The service account token is mounted unless the pod opts out.
      const mounts = [
        ...(pod.automountServiceAccountToken === false
          ? []
          : ['/var/run/secrets/kubernetes.io/serviceaccount']),
        ...pod.containers.flatMap((c) =>
          (c.volumeMounts ?? []).map((m) => m.mountPath.replace(/\/$/, '')),
        ),
      ];
      const command = JSON.stringify(pod.containers.map((c) => c.command));
      for (const text of [...scripts, command]) {
        for (const [, path = ''] of text.matchAll(
          /\$(?:sandbox|env:CONTAINER_SANDBOX_MOUNT_POINT)[\\/]+([^"'\s)]+)/g,
        )) {
          read++;
          const inside = `/${path.replace(/\\+/g, '/')}`;
          expect(
            mounts.some((m) => inside === m || inside.startsWith(`${m}/`)),
            `${file}: ${inside} is in no volume (${mounts.join(', ')})`,
          ).to.equal(true);
        }
      }
    }
    expect(read).to.be.greaterThan(4);
  });
});
