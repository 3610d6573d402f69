/**
 * The facts catalogue's `hns-adapter-rename`: creating the HNS network moves the node's address to
 * a new vEthernet adapter, so a Windows script that acts on an interface runs only once that
 * network exists, and finds the interface then.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { SCRIPTS_DIR } from './node-stage.ts';
import { joinStep, windowsBaseSteps, windowsNetworkSteps } from './provision-steps.ts';
import { kubeadmPlan } from '../testing/kubeadm-plans.ts';

/** Calls that bind something to an interface (or read one to bind to). */
const BY_INTERFACE =
  /\b(New-NetRoute|New-NetIPAddress|Set-NetIPInterface|Set-NetIPAddress)\b|-InterfaceIndex\b|-InterfaceAlias\b/;

/** A script's code, its comment lines left out. */
const text = (script: string) =>
  readFileSync(join(SCRIPTS_DIR, 'windows', script), 'utf8')
    .split('\n')
    .filter((l) => !l.trim().startsWith('#'))
    .join('\n');

describe('Windows steps and the HNS network (facts catalogue: hns-adapter-rename)', () => {
  it('no step before the HNS network exists binds anything to an interface', () => {
    const win = kubeadmPlan().nodes.find((n) => n.os === 'windows')!;
    for (const step of [...windowsBaseSteps(), joinStep(win, undefined)]) {
      expect(BY_INTERFACE.exec(text(step.script))?.[0], step.script).to.equal(undefined);
    }
  });

  it('a step after the join waits for the HNS network before it binds to an interface', () => {
    const binding = windowsNetworkSteps().filter((s) => BY_INTERFACE.test(text(s.script)));
    expect(binding.map((s) => s.script)).to.include('external-route.ps1');
    for (const step of binding) {
      const code = text(step.script);
      const waits = code.indexOf('Get-HnsNetwork');
      const binds = code.search(BY_INTERFACE);
      expect(waits, `${step.script} waits for the HNS network`).to.be.greaterThan(-1);
      expect(waits, `${step.script} waits before it binds`).to.be.lessThan(binds);
      expect(code, `${step.script} waits for the plan's network`).to.include('$Hl.HL_KUBE_NETWORK');
    }
  });
});
