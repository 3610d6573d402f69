// The health-check Services and the load balancer a cloud would build for them: a class no
// controller implements where the API has the field (1.24+), a warning where it has not.
import { VersionInfo } from '@kubernetes/client-node';
import { expect } from 'chai';
import { podNames } from '../../model/workload-names.ts';
import { NO_LOAD_BALANCER_CLASS } from '../../model/service-features.ts';
import { driverFixture } from '../../testing/kube-driver-fixture.ts';
import { RECORDED, recordedResponse } from '../../testing/kube-recorded-objects.ts';
import { healthCheckLoadBalancer, renderFeatureManifests } from './feature-manifests.ts';
import { KubernetesDriver } from './kubernetes-driver.ts';

const INPUT = {
  runId: 'r1',
  lab: 'existing',
  namespace: 'hybrid-lab-r1',
  dnsDomain: 'cluster.local',
  oses: ['linux', 'windows'] as const,
  internalLocal: true,
  affinityTimeoutSeconds: 10,
  echo: { address: '192.0.2.10', port: 8099 },
};

/** The recorded /version with another gitVersion. */
function versionAnswering(gitVersion: string) {
  const info = recordedResponse(VersionInfo, RECORDED.cluster.version);
  info.gitVersion = gitVersion;
  return { getCode: () => Promise.resolve(info) };
}

describe('the health-check Services and load balancers', () => {
  it('gives them a class no controller implements where the API has the field, else nothing', () => {
    const health = (loadBalancerClass?: string) =>
      renderFeatureManifests({
        ...INPUT,
        ...(loadBalancerClass === undefined ? {} : { loadBalancerClass }),
      }).selected.filter((s) => s.metadata?.name?.startsWith('health-'));
    const classed = health(NO_LOAD_BALANCER_CLASS);
    expect(classed.map((s) => s.metadata?.name)).to.deep.equal(['health-linux', 'health-windows']);
    for (const service of classed) {
      expect(service.spec).to.deep.include({
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        loadBalancerClass: 'hybrid-lab.io/none',
      });
    }
    for (const service of health()) expect(service.spec?.loadBalancerClass).to.equal(undefined);
  });

  it('1.24 and later: the class, on every cluster; below: none, a warning only where the harness did not build the cluster', () => {
    for (const version of ['v1.24.0', 'v1.27.16-eks-a18cd3a', 'v1.31.2+k3s1', 'unknown'])
      for (const existing of [true, false])
        expect(healthCheckLoadBalancer(version, existing), version).to.deep.equal({
          loadBalancerClass: 'hybrid-lab.io/none',
        });
    const theirs = healthCheckLoadBalancer('v1.23.17', true);
    expect(theirs.loadBalancerClass).to.equal(undefined);
    expect(theirs.note?.warn).to.equal(true);
    expect(theirs.note?.text).to.match(
      /^Kubernetes v1\.23\.17 has no spec\.loadBalancerClass to rely on .*: health-linux and health-windows are plain type LoadBalancer Services, for which a cloud controller on this cluster may build a load balancer/,
    );
    const ours = healthCheckLoadBalancer('v1.20.2', false);
    expect(ours.loadBalancerClass).to.equal(undefined);
    expect(ours.note).to.deep.include({ warn: false });
    expect(ours.note?.text).to.contain('no cloud controller runs on this lab');
  });

  it('deploys them with the class on a 1.27 cluster; their health-check node port is still allocated', async () => {
    const { kubeconfig, facts, core, options } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, {
      ...options,
      clients: { ...options.clients, version: versionAnswering('v1.27.3') },
    });
    try {
      const workloads = await driver.deploy('lb1', podNames(driver.nodes));
      const health = core.services.filter((s) => s.metadata?.name?.startsWith('health-'));
      expect(health.map((s) => s.spec?.loadBalancerClass)).to.deep.equal([
        NO_LOAD_BALANCER_CLASS,
        NO_LOAD_BALANCER_CLASS,
      ]);
      const ports = workloads.features?.healthCheck.map((h) => h.healthCheckNodePort) ?? [];
      expect(ports).to.have.length(2);
      for (const port of ports) expect(port).to.be.above(0);
    } finally {
      await driver.cleanup();
    }
  });

  it('warns, on a 1.20 cluster it did not build, that a cloud may build load balancers', async () => {
    const { kubeconfig, facts, core, options, warnings } = driverFixture();
    const driver = await KubernetesDriver.open(kubeconfig, facts, options);
    try {
      await driver.deploy('lb2', podNames(driver.nodes));
    } finally {
      await driver.cleanup();
    }
    const health = core.services.filter((s) => s.metadata?.name?.startsWith('health-'));
    expect(health.map((s) => s.spec?.loadBalancerClass)).to.deep.equal([undefined, undefined]);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(
      /^Kubernetes v1\.20\.2 has no spec\.loadBalancerClass to rely on .* a cloud controller on this cluster may build a load balancer/,
    );
  });
});
