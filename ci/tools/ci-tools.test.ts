import { expect } from 'chai';
import { LabError } from '../../lab/errors.ts';
import type { RunOptions, RunResult } from '../../lab/exec/command-runner.ts';
import { planLab } from '../../lab/plan/plan-lab.ts';
import type { NodeShell } from '../../lab/remote/node-shell.ts';
import { validateSpec } from '../../lab/spec/load-spec.ts';
import { expandShorthand } from '../../lab/spec/shorthand.ts';
import { NODE_COMMANDS, nodeState } from './collect-node-state.ts';
import { planFacts } from './periodic-facts.ts';

const plan = planLab(validateSpec(expandShorthand('k8s-netns-1-1-1'), 'test'), 'test');
const libvirt = planLab(validateSpec(expandShorthand('k8s-libvirt-1-1-1-2'), 'test'), 'test');

describe('ci tools', () => {
  it('periodic-facts: one shell word per value, one line per hypervisor', () => {
    expect(planFacts(plan, 'plan.json')).to.deep.equal([
      'name=k8s-netns-1-1-1',
      'id=hl-k8s-netns-1-1-1',
      'prefix=hl-k8s-netns-1-1-1-',
      'provider=netns',
      'cluster=emulated',
      'emulated=true',
    ]);
    expect(
      planFacts(libvirt, 'plan.json').filter((l) => l.startsWith('hypervisor=')),
    ).to.deep.equal([
      'hypervisor=hv1 local qemu:///system',
      'hypervisor=hv2 remote qemu+ssh://root@hv2/system',
    ]);
  });

  it('periodic-facts: names the plan and the field it cannot use', () => {
    expect(() => planFacts({ ...plan, prefix: 'x; rm -rf /' }, '/tmp/p.json'))
      .to.throw(LabError)
      .with.property('message')
      .that.contains('plan /tmp/p.json')
      .and.contains('prefix');
  });

  it('node state: every command is run, failures are recorded and do not stop the rest', async () => {
    const ran: string[] = [];
    const shell: NodeShell = {
      node: 'lin1',
      exec(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
        ran.push(argv.join(' '));
        expect(options).to.include({ check: false });
        if (argv[0] === 'ip' && argv[1] === 'neigh')
          return Promise.reject(new Error('netns vanished'));
        const exitCode = argv[0] === 'iptables-save' ? 4 : 0;
        return Promise.resolve({
          command: argv.join(' '),
          exitCode,
          stdout: `out of ${argv[0]}\n`,
          stderr: '',
          durationMs: 1,
          timedOut: false,
        });
      },
    };
    const text = await nodeState(plan.nodes[1]!, shell);
    expect(ran).to.deep.equal(NODE_COMMANDS.linux.map((a) => a.join(' ')));
    expect(text).to.contain('$ ip route\nout of ip\n');
    expect(text).to.contain('$ ip neigh\n(failed: netns vanished)');
    expect(text).to.contain('$ iptables-save\nout of iptables-save\n(exit 4)');
  });
});
