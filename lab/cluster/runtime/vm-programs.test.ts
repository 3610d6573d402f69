import { expect } from 'chai';
import { VM_PATHS } from './shell-pod-runtime.ts';
import { nodeProgramFiles } from './vm-programs.ts';
import { WORKLOAD_FILES } from './workload-programs.ts';

describe('VM pod programs', function () {
  it('ships the pod helper executable and every workload program', function () {
    const files = nodeProgramFiles();
    expect(files[VM_PATHS.helper]!.mode).to.equal(0o755);
    expect(files[VM_PATHS.helper]!.text).to.match(/^#!\/bin\/sh/);
    for (const f of WORKLOAD_FILES)
      expect(files[`${VM_PATHS.workloads.dir}/${f}`]?.text).to.have.length.greaterThan(100);
  });

  it('ships every workload file a shipped one imports', function () {
    const shipped = new Set<string>(WORKLOAD_FILES);
    for (const f of WORKLOAD_FILES) {
      const text = nodeProgramFiles()[`${VM_PATHS.workloads.dir}/${f}`]!.text;
      for (const [, imported] of text.matchAll(/from '\.\/([^']+)'/g))
        expect(shipped.has(imported!), `${f} imports ${imported}`).to.equal(true);
    }
  });
});
