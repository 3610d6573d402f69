import { expect } from 'chai';
import {
  EVIDENCE_ROLE,
  PULL_SECRET_ROLE,
  SUITE_ROLE,
  permissionText,
  suiteRoles,
  type Permission,
} from '../../../lab/providers/existing/suite-roles.ts';
import { API_CALLS, permissionsOf } from './api-permissions.ts';

const texts = (ps: readonly Permission[]) => ps.map(permissionText).sort();

describe('the shipped ClusterRoles and the API calls the code makes', () => {
  const roles = suiteRoles();

  it('hybrid-lab-suite grants exactly what a run and `lab reap` call', () => {
    expect(texts(roles[SUITE_ROLE])).to.deep.equal(texts(permissionsOf('run', 'reap')));
  });

  it("hybrid-lab-evidence grants exactly what path evidence calls beyond the run's role", () => {
    const run = new Set(texts(roles[SUITE_ROLE]));
    const extra = texts(permissionsOf('evidence')).filter((p) => !run.has(p));
    expect(texts(roles[EVIDENCE_ROLE])).to.deep.equal(extra);
  });

  it('hybrid-lab-pull-secret grants exactly what IMAGE_PULL_SECRET calls, and the run role no Secret', () => {
    expect(texts(roles[PULL_SECRET_ROLE])).to.deep.equal(texts(permissionsOf('pull-secret')));
    expect(texts(roles[SUITE_ROLE]).filter((p) => p.includes('secrets'))).to.deep.equal([]);
  });

  it('holds the Endpoints create a namespace admin lacks since 1.22, and nothing only labs the harness made need', () => {
    expect(texts(roles[SUITE_ROLE])).to.include('create endpoints');
    const harnessOnly = texts(permissionsOf('harness-labs'));
    for (const p of harnessOnly) expect(texts(roles[SUITE_ROLE])).not.to.include(p);
    expect(Object.keys(API_CALLS)).to.include.members(['patchNode', 'createNamespacedEndpoints']);
  });
});
