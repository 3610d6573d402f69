import { expect } from 'chai';
import { e2eCommand, type E2eCommandInput } from './e2e-command.ts';

const INPUT: E2eCommandInput = {
  ginkgo: '/cache/e2e/linux/amd64/ginkgo',
  e2eTest: '/cache/e2e/linux/amd64/e2e.test',
  kubectl: '/cache/kubernetes/v1.20.2/linux/amd64/kubectl',
  kubeconfig: '/work/.lab/k35/kubeconfig',
  reportDir: '/work/test-results/e2e',
  repoList: '/cache/e2e/repo-list.yaml',
  selection: { focus: '(Granular)|(DNS should)', skip: '(\\[Serial\\])', focusKind: 'default' },
  nodes: 2,
  timeoutMs: 30 * 60_000,
  dnsDomain: 'cluster.local',
  windowsNodes: false,
  nodeCount: 3,
};

describe('e2e command', function () {
  it('runs e2e.test through ginkgo with the selection, offline images and the lab`s kubeconfig and kubectl', function () {
    const command = e2eCommand(INPUT);
    expect(command.file).to.equal(INPUT.ginkgo);
    expect(command.args).to.deep.equal([
      '-nodes=2',
      '-noColor',
      '-focus=(Granular)|(DNS should)',
      '-skip=(\\[Serial\\])',
      '-timeout=30m',
      '/cache/e2e/linux/amd64/e2e.test',
      '--',
      '--kubeconfig=/work/.lab/k35/kubeconfig',
      '--provider=skeleton',
      '--kubectl-path=/cache/kubernetes/v1.20.2/linux/amd64/kubectl',
      '--report-dir=/work/test-results/e2e',
      '--report-prefix=e2e_',
      '--dns-domain=cluster.local',
      '--num-nodes=3',
    ]);
    expect(command.env).to.deep.equal({ KUBE_TEST_REPO_LIST: '/cache/e2e/repo-list.yaml' });
  });

  it('without the lab`s images upstream`s names stay, and Windows nodes set the node OS distro', function () {
    const command = e2eCommand({
      ...INPUT,
      repoList: undefined,
      windowsNodes: true,
      timeoutMs: 90_001,
      nodeCount: undefined,
    });
    expect(command.env).to.deep.equal({});
    expect(command.args).to.include('--node-os-distro=windows');
    expect(command.args).to.include('-timeout=2m');
    expect(command.args.filter((a) => a.startsWith('--num-nodes'))).to.deep.equal([]);
  });
});
