import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FAULT_CATALOGUE } from '../../lab/faults/fault-catalogue.ts';
import { resolveTargets, selftestNodes } from '../../lab/faults/fault-targets.ts';
import {
  caseBlocks,
  defaultPlan,
  faultFingerprints,
  FINGERPRINTS_FILE,
  fingerprintsText,
} from './fault-fingerprints.ts';

const ACTIONS = fileURLToPath(new URL('../../lab/faults/fault-actions.ts', import.meta.url));
const source = readFileSync(ACTIONS, 'utf8');
const plan = defaultPlan();
const prints = faultFingerprints(plan, source);

describe('fault fingerprints', () => {
  it('the committed file is current (else: tsx specs/selftest/fault-fingerprints.ts --write)', () => {
    const file = fileURLToPath(new URL(`../../${FINGERPRINTS_FILE}`, import.meta.url));
    expect(readFileSync(file, 'utf8')).to.equal(fingerprintsText(prints));
  });

  it('one per fault, each different', () => {
    expect(Object.keys(prints)).to.have.members(FAULT_CATALOGUE.map((f) => f.id));
    expect(new Set(Object.values(prints)).size).to.equal(FAULT_CATALOGUE.length);
  });

  it("reads an action kind's code from its case to the next, stacked cases included", () => {
    const text = [
      'switch (a.kind) {',
      "  case 'one': {",
      '    return 1;',
      '  }',
      "  case 'two':",
      "  case 'three': {",
      '    return 3;',
      '  }',
      '}',
    ].join('\n');
    expect(caseBlocks(text, 'one')).to.deep.equal(["  case 'one': {\n    return 1;\n  }"]);
    expect(caseBlocks(text, 'two')).to.deep.equal([
      "  case 'two':\n  case 'three': {\n    return 3;\n  }",
    ]);
    expect(caseBlocks(text, 'three')).to.deep.equal(["  case 'three': {\n    return 3;\n  }"]);
    // The real file: both the make (prepare) and the undo switch of a kind that has both.
    expect(caseBlocks(source, 'windows-cni')).to.have.length(2);
  });

  it('a change to the code of one action kind changes exactly the faults that take it', () => {
    const edited = source.replace("case 'route-del': {", "case 'route-del': {\n      // edited");
    const after = faultFingerprints(plan, edited);
    const changed = Object.keys(prints).filter((id) => prints[id] !== after[id]);
    const users = FAULT_CATALOGUE.filter((f) =>
      selftestNodes(f, plan, 'ends').some((node) =>
        f.actions(plan, resolveTargets(f, plan, node)).some((a) => a.kind === 'route-del'),
      ),
    ).map((f) => f.id);
    expect(changed).to.include('pod-route-removed');
    expect(changed).to.have.members(users);
    expect(changed.length).to.be.lessThan(FAULT_CATALOGUE.length / 2);
  });
});
