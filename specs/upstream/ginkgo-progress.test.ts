import { expect } from 'chai';
import { ginkgoProgress } from './ginkgo-progress.ts';

// As e2e.test v1.20.2 printed them through ginkgo with three parallel nodes.
const OUTPUT = `[1] {"msg":"Test Suite starting","total":-1,"completed":0,"skipped":0,"failed":0}
{"msg":"FAILED [sig-network] Networking Granular Checks: Services should function for node-Service: http","total":-1,"completed":2,"skipped":120,"failed":1,"failures":["[sig-network] Networking Granular Checks: Services should function for node-Service: http"]}
SSSSS
{"msg":"PASSED [sig-network] Services should be able to switch session affinity for service with type clusterIP [LinuxOnly] [Conformance]","total":-1,"completed":6,"skipped":1503,"failed":8,"failures":[]}
{"msg":"PASSED [sig-network] DNS should answer \\"quoted\\" names","total":-1,"completed":7,"skipped":1503,"failed":8}
{"msg":"PASSED broken json
`;

describe('ginkgo progress lines', function () {
  it('reads every finished spec, its state and its name (JSON-escaped), ignoring the rest', function () {
    expect([...ginkgoProgress(OUTPUT)]).to.deep.equal([
      [
        '[sig-network] Networking Granular Checks: Services should function for node-Service: http',
        'failed',
      ],
      [
        '[sig-network] Services should be able to switch session affinity for service with type clusterIP [LinuxOnly] [Conformance]',
        'passed',
      ],
      ['[sig-network] DNS should answer "quoted" names', 'passed'],
    ]);
  });
});
