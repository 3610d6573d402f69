import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { RecordingRunner, type RecordedCall } from '../testing/recording-runner.ts';
import { fileLogger } from '../log/logger.ts';
import { PlainProgress } from '../log/progress.ts';
import type { LabPlan } from '../plan/lab-plan.ts';
import { TESTDATA } from '../testing/golden.ts';
import { ProvisionError } from './provision-error.ts';
import {
  kubeadmPreflight,
  provision,
  sshProvisionShells,
  type ProvisionOptions,
} from './provision-lab.ts';
import { provisionSettingsOf } from './provision-settings.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';
import { targetsFromSshConfig } from './ssh-config.ts';

/** The hash `openssl x509 -pubkey | openssl rsa -pubin -outform der | openssl dgst -sha256` gives for testdata/ca.crt. */
const CA_HASH = 'sha256:cb2cdde63df598fe170c6127e4e0c333f6b6de9ffbcf59b950c778353f11ddd4';
const KUBECONFIG =
  'apiVersion: v1\nkind: Config\nusers:\n- name: kubernetes-admin\n  user:\n    client-key-data: S0VZLURBVEEtT0YtVEhFLUFETUlO\n';
const TOKEN = /\b[a-z0-9]{6}\.[a-z0-9]{16}\b/;

const sshConfig = (plan: LabPlan) =>
  plan.nodes
    .map(
      (n, i) =>
        `Host ${n.name}\n  HostName 127.0.0.${i + 2}\n  User vagrant\n  Port 22\n  IdentityFile /keys/${n.name}\n`,
    )
    .join('\n');

const script = (call: RecordedCall): string =>
  /([a-z-]+\.(sh|ps1))\b/.exec(call.args.join(' '))?.[1] ?? '';
const hostOf = (call: RecordedCall): string =>
  /@127\.0\.0\.(\d+)/.exec(call.args.join(' '))?.[1] ?? '';

/**
 * A lab of fake nodes with state: each script changes its node the first time it runs there and
 * finds nothing to do after; a node is registered once its join ran (the control plane once
 * kubeadm-init did). So a second provision() sees exactly what the first one left.
 */
function fakeLab(options: { joinFails?: boolean } = {}): RecordingRunner {
  const done = new Set<string>();
  const node = (call: RecordedCall) => ({ '2': 'cp1', '3': 'lin1', '4': 'win1' })[hostOf(call)];
  /** Whether this is the script's first run on the call's node (and records that it ran). */
  const firstRun = (call: RecordedCall): boolean => {
    const key = `${node(call)} ${script(call)}`;
    const first = !done.has(key);
    done.add(key);
    return first;
  };
  return new RecordingRunner()
    .on(/ -- sudo cat \/etc\/kubernetes\/admin\.conf$/, { stdout: KUBECONFIG })
    .on(/ -- sudo cat \/etc\/kubernetes\/pki\/ca\.crt$/, {
      stdout: readFileSync(join(TESTDATA, 'ca.crt'), 'utf8'),
    })
    .on(/ get nodes -o name$/, () => ({
      stdout: [...done]
        .filter((k) => /^\S+ kubeadm-(init\.sh|join\.(sh|ps1))$/.test(k))
        .map((k) => `node/${k.split(' ')[0]!}\n`)
        .join(''),
    }))
    .on(/kubeadm-join\.(sh|ps1)/, (call) => {
      if (options.joinFails === true) {
        return {
          exitCode: 1,
          stderr: `[preflight] bad token\nkubeadm join --token ${call.options.input?.split('\n')[0] ?? ''} failed\n${call.options.input ?? ''}`,
        };
      }
      return firstRun(call)
        ? { stdout: `hl: changed: joined (read ${call.options.input ?? ''})\n` }
        : { stdout: 'hl: ok: already joined\n' };
    })
    .on(/\.(sh|ps1)\b/, (call) => ({
      stdout: firstRun(call) ? 'hl: changed: something\n' : 'hl: ok: nothing to do\n',
    }));
}

describe('provision() against a recording runner', function () {
  this.timeout(30_000);
  let stateDir: string;
  let lines: string[];
  const plan = kubeadmPlan();
  const targets = () => targetsFromSshConfig(sshConfig(plan), plan);
  const shells = (runner: RecordingRunner, list = targets()) =>
    sshProvisionShells(plan, list, runner);
  const options = (
    runner: RecordingRunner,
    settings = provisionSettingsOf({}),
  ): ProvisionOptions => ({
    runner,
    log: fileLogger(join(stateDir, 'logs', 'harness.log')),
    progress: new PlainProgress(fileLogger(join(stateDir, 'logs', 'harness.log')), (l) =>
      lines.push(l),
    ),
    stateDir,
    settings,
    backoffMs: () => 1,
    sshTimeoutMs: 1000,
  });
  /** Everything the harness wrote or would show: harness log, per-node logs, progress, commands. */
  const everythingShown = (runner: RecordingRunner, extra = ''): string => {
    const logDir = join(stateDir, 'logs', 'provision');
    const nodeLogs = readdirSync(logDir).map((f) => readFileSync(join(logDir, f), 'utf8'));
    const commands = runner.calls.map((c) => runner.redactor.formatArgv(c.file, c.args));
    return [
      readFileSync(join(stateDir, 'logs', 'harness.log'), 'utf8'),
      ...nodeLogs,
      ...lines,
      ...commands,
      extra,
    ].join('\n');
  };

  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'hl-provision-'));
    lines = [];
  });
  afterEach(() => {
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("runs every node's own steps at once, joins the workers once the control plane is up, with a fresh token", async () => {
    const runner = fakeLab();
    const result = await provision(plan, shells(runner), options(runner));
    const scripts = runner.calls
      .map((c, i) => ({ i, host: hostOf(c), script: script(c) }))
      .filter((c) => c.script !== '');
    const cpInit = scripts.find((c) => c.script === 'kubeadm-init.sh')!.i;
    const cpDone = scripts.find((c) => c.script === 'apply-manifests.sh')!.i;
    const workers = scripts.filter((c) => c.host !== '2');
    expect(workers.length).to.be.greaterThan(8);
    expect(
      workers.some((c) => c.i < cpInit),
      "workers' own steps run while the control plane comes up",
    ).to.equal(true);
    expect(
      workers.filter((c) => c.script.startsWith('kubeadm-join')).every((c) => c.i > cpDone),
      'no worker joins before the control plane is done',
    ).to.equal(true);
    const lin = workers.filter((c) => c.host === '3').map((c) => c.i);
    const win = workers.filter((c) => c.host === '4').map((c) => c.i);
    expect(Math.min(...win)).to.be.lessThan(
      Math.max(...lin),
      'Linux and Windows workers run at once',
    );
    expect(scripts.filter((c) => c.host === '4').map((c) => c.script)).to.include.members([
      'install-containers-feature.ps1',
      'kubeadm-join.ps1',
    ]);
    // flannel's HNS network, made after the join, moves win1's address: its route comes after.
    const winSteps = scripts.filter((c) => c.host === '4').map((c) => c.script);
    expect(winSteps.indexOf('external-route.ps1')).to.be.greaterThan(
      winSteps.indexOf('kubeadm-join.ps1'),
    );

    const tokenCall = runner.calls.find((c) => script(c) === 'create-join-token.sh')!;
    const token = tokenCall.options.input!.trim();
    expect(token).to.match(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    const joins = runner.calls.filter((c) => script(c).startsWith('kubeadm-join'));
    expect(joins.map((c) => c.options.input)).to.deep.equal([
      `${token}\n${CA_HASH}\n`,
      `${token}\n${CA_HASH}\n`,
    ]);
    expect(
      runner.calls.every((c) => !c.args.join(' ').includes(token)),
      'secrets travel on stdin only',
    ).to.equal(true);

    const shown = everythingShown(runner);
    for (const secret of [token, CA_HASH, CA_HASH.slice(7), 'S0VZLURBVEEtT0YtVEhFLUFETUlO']) {
      expect(shown.includes(secret), `secret leaked: ${secret.slice(0, 12)}...`).to.equal(false);
    }
    expect(shown).to.include('***'); // the fake join echoed the token; it was masked
    expect(statSync(result.kubeconfig).mode & 0o777).to.equal(0o600);
    expect(result.kubeconfig).to.equal(join(stateDir, 'kubeconfig'));
    expect(readFileSync(result.kubeconfig, 'utf8')).to.equal(KUBECONFIG);
    expect(result.changed).to.be.greaterThan(10);
  });

  it('provisioned again, runs every step once more, changes nothing and makes no token', async () => {
    const runner = fakeLab();
    const first = await provision(plan, shells(runner), options(runner));
    const firstCalls = runner.calls.length;
    lines = [];
    const result = await provision(plan, shells(runner), options(runner));
    const again = runner.calls.slice(firstCalls);
    const steps = (calls: RecordedCall[]) =>
      calls.filter((c) => script(c) !== '').map((c) => `${hostOf(c)} ${script(c)}`);
    expect(first.changed).to.be.greaterThan(10);
    expect(result.changed).to.equal(0);
    // The same steps, in the same order per node, less the token only new joins need.
    const perNode = (list: string[]) =>
      ['2', '3', '4'].map((h) => list.filter((s) => s.startsWith(`${h} `)));
    expect(perNode(steps(again))).to.deep.equal(
      perNode(
        steps(runner.calls.slice(0, firstCalls)).filter((s) => !s.endsWith('create-join-token.sh')),
      ),
    );
    expect(
      again.some(
        (c) => script(c) === 'create-join-token.sh' || c.args.join(' ').includes('ca.crt'),
      ),
    ).to.equal(false);
    expect(lines.filter((l) => /: no change$/.test(l)).length).to.be.greaterThan(15);
    expect(lines.filter((l) => / \d+ changes?/.test(l))).to.deep.equal([]);
  });

  it('a failing join names node, step, command and output tail, with the secrets masked', async () => {
    const runner = fakeLab({ joinFails: true });
    const error = await provision(plan, shells(runner), options(runner)).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ProvisionError);
    const e = error as ProvisionError;
    expect(e.step).to.equal('kubeadm-join');
    expect(['lin1', 'win1']).to.include(e.node);
    expect(e.message)
      .to.include('command: ssh')
      .and.include('kubeadm-join')
      .and.include('bad token');
    expect(TOKEN.test(e.message), 'no bootstrap token in the error').to.equal(false);
    expect(e.message).to.not.include(CA_HASH.slice(7));
    const token = runner.calls
      .find((c) => script(c) === 'create-join-token.sh')!
      .options.input!.trim();
    expect(everythingShown(runner, `${e.message}\n${e.stack ?? ''}`).includes(token)).to.equal(
      false,
    );
  });

  it('stops before touching any node when the artifact cache lacks files, naming each', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'hl-cache-'));
    try {
      const runner = new RecordingRunner();
      const error = (await provision(
        plan,
        shells(runner),
        options(runner, provisionSettingsOf({ artifacts: { dir: cache } })),
      ).catch((e: unknown) => e)) as ProvisionError;
      expect(error).to.be.instanceOf(ProvisionError);
      expect(error.step).to.equal('preflight');
      expect(error.message).to.include(
        `artifact missing: kubernetes/v1.30.4/linux/amd64/kubeadm for Kubernetes v1.30.4 — stage it in ${cache}`,
      );
      expect(error.message).to.include('kubernetes/v1.30.4/windows/amd64/kubelet.exe');
      expect(runner.calls.filter((c) => c.file === 'ssh' || c.file === 'scp')).to.deep.equal([]);
      const problems = await kubeadmPreflight(
        plan,
        provisionSettingsOf({ artifacts: { dir: cache } }),
        runner,
      );
      expect(problems.map((p) => p.what)).to.include(
        `artifact missing: kubernetes/v1.30.4/windows/amd64/kubeadm.exe for Kubernetes v1.30.4 — stage it in ${cache}`,
      );
      expect(problems.find((p) => p.what.includes('/linux/amd64/kubelet '))?.fix).to.include(
        'https://dl.k8s.io/release/v1.30.4/bin/linux/amd64/kubelet',
      );
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('refuses an emulated plan and a missing target', async () => {
    const runner = new RecordingRunner();
    const emulated = { ...plan, cluster: 'emulated' as const };
    await provision(emulated, shells(runner), options(runner)).then(
      () => expect.fail('resolved'),
      (e: unknown) => expect(String(e)).to.match(/only kubeadm clusters/),
    );
    expect(() => shells(runner, targets().slice(0, 2))).to.throw(
      /win1: step connect: no SSH target/,
    );
  });
});
