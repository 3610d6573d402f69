/**
 * kubeadm-join.sh against stub kubeadm/kubectl/sleep: a join that kubeadm fails after the kubelet's
 * TLS bootstrap (its one PATCH of the Node timed out, as under QEMU emulation) is finished with the
 * same annotation, retried; a join that fails before it stays failed. The kubelet's kubeconfig and
 * the stage are in a temp folder; only the script's 0600 copy of the config goes under /run.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { componentVersions } from './component-versions.ts';
import { renderKubeadmJoinConfig } from './kubeadm-config.ts';
import { linuxNodeEnv } from './node-config.ts';
import { SCRIPTS_DIR } from './node-stage.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';

const TOKEN = 'abcdef.0123456789abcdef';
const CA_HASH = `sha256:${'a'.repeat(64)}`;
/** What kubeadm 1.20 printed when its PATCH of the Node timed out (libvirt-kubeadm lab, QEMU). */
const PATCH_TIMED_OUT =
  'error execution phase kubelet-start: error uploading crisocket: error patching node "lin1" through apiserver: Patch "https://192.168.200.10:6443/api/v1/nodes/lin1?timeout=10s": net/http: request canceled (Client.Timeout exceeded while awaiting headers)';

describe('kubeadm-join.sh (stub kubeadm and kubectl)', () => {
  const plan = kubeadmPlan();
  const versions = componentVersions(plan);
  const node = plan.nodes.find((n) => n.name === 'lin1')!;
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hl-join-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Runs the script with kubeadm exiting `kubeadmExit` (having written the kubelet's kubeconfig
   * when `bootstrapped`) and kubectl refusing its first `kubectlFailures` calls.
   */
  const run = (kubeadmExit: number, bootstrapped: boolean, kubectlFailures: number) => {
    const calls = join(dir, 'calls');
    const kubeletConf = join(dir, 'kubelet.conf');
    writeFileSync(calls, '');
    const stubs: Record<string, string> = {
      kubeadm: `echo "kubeadm $*" >>'${calls}'
[ "$1" = reset ] && exit 0
${bootstrapped ? `echo kubeconfig >'${kubeletConf}'` : ''}
[ ${kubeadmExit} -eq 0 ] || echo '${PATCH_TIMED_OUT}' >&2
exit ${kubeadmExit}`,
      kubectl: `echo "kubectl $*" >>'${calls}'
n=$(grep -c '^kubectl' '${calls}')
[ "$n" -gt ${kubectlFailures} ] || { echo 'Unable to connect to the server: net/http: request canceled' >&2; exit 1; }`,
      sleep: `echo "sleep $*" >>'${calls}'`,
    };
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const [name, body] of Object.entries(stubs)) {
      writeFileSync(join(bin, name), `#!/usr/bin/env bash\n${body}\n`);
      chmodSync(join(bin, name), 0o755);
    }
    mkdirSync(join(dir, 'stage', 'config'), { recursive: true });
    writeFileSync(
      join(dir, 'stage', 'config', 'kubeadm-join.yaml'),
      renderKubeadmJoinConfig(plan, versions, node),
    );
    const env = join(dir, 'node.env');
    writeFileSync(env, linuxNodeEnv(plan, node, versions, { kind: 'none' }, []));
    const result = spawnSync('bash', [join(SCRIPTS_DIR, 'linux', 'kubeadm-join.sh')], {
      encoding: 'utf8',
      input: `${TOKEN}\n${CA_HASH}\n`,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        HL_CONFIG: env,
        HL_STAGE: join(dir, 'stage'),
        HL_KUBELET_CONF: kubeletConf,
      },
    });
    return {
      status: result.status,
      out: result.stdout + result.stderr,
      calls: readFileSync(calls, 'utf8').trim().split('\n'),
    };
  };

  /** The call kubeadm itself makes at the end of a join, as kubectl takes it. */
  const annotate = () =>
    `kubectl --kubeconfig ${join(dir, 'kubelet.conf')} --request-timeout=30s annotate --overwrite node lin1 kubeadm.alpha.kubernetes.io/cri-socket=unix:///run/containerd/containerd.sock`;

  it('joins once with the filled-in config and makes no other call', () => {
    const r = run(0, true, 0);
    expect(r.status, r.out).to.equal(0);
    expect(r.out).to.include('hl: changed: joined 192.168.200.10:6443 as lin1');
    expect(r.calls).to.have.length(1);
    expect(r.calls[0]).to.match(/^kubeadm join --config \/run\/hybrid-lab-join\.\w+$/);
    expect(r.out).to.not.include(TOKEN);
  });

  it('finishes a join kubeadm failed after the TLS bootstrap: the same annotation, retried until it is taken', () => {
    const r = run(1, true, 2);
    expect(r.status, r.out).to.equal(0);
    expect(r.calls.slice(1)).to.deep.equal([
      annotate(),
      'sleep 10',
      annotate(),
      'sleep 10',
      annotate(),
    ]);
    expect(r.out).to.include(
      'joined 192.168.200.10:6443 as lin1 (CRI socket annotation: attempt 3)',
    );
  });

  it('undoes a join that failed before the kubelet had its certificate and asks the harness to run it again (75)', () => {
    const r = run(1, false, 0);
    expect(r.status).to.equal(75);
    expect(r.out).to.include(
      'kubeadm join failed before the kubelet had its certificate; undone with kubeadm reset',
    );
    expect(r.calls.map((c) => c.replace(/\/run\/hybrid-lab-join\.\w+/, 'CONFIG'))).to.deep.equal([
      'kubeadm join --config CONFIG',
      'kubeadm reset -f',
    ]);
  });

  it('fails when the API server refuses the annotation every time', () => {
    const r = run(1, true, 99);
    expect(r.status).to.equal(1);
    expect(r.calls.filter((c) => c.startsWith('kubectl'))).to.have.length(6);
    expect(r.out).to.include('node lin1 joined but its CRI socket annotation was refused 6 times');
  });

  it('makes the annotation an earlier run gave up on, then has nothing left to do', () => {
    expect(run(1, true, 99).status).to.equal(1);
    const again = run(0, true, 0);
    expect(again.status, again.out).to.equal(0);
    expect(again.calls).to.deep.equal([annotate()]);
    expect(again.out).to.include('an earlier run did not get its CRI socket annotation made');
    expect(again.out).to.include('(CRI socket annotation: attempt 1)');
    const third = run(0, true, 0);
    expect(third.out).to.include('hl: ok: already joined');
    expect(third.calls).to.deep.equal(['']);
  });

  it('does nothing on a node that has joined', () => {
    writeFileSync(join(dir, 'kubelet.conf'), 'kubeconfig');
    const r = run(0, true, 0);
    expect(r.status, r.out).to.equal(0);
    expect(r.out).to.include('hl: ok: already joined');
    expect(r.calls).to.deep.equal(['']);
  });
});
