import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ginkgoSkipReasons } from './ginkgo-skips.ts';

// As ginkgo v1 prints a spec skipped in its BeforeEach, between other specs' dots.
const OUTPUT = `•SSSSSSS
------------------------------
S [SKIPPING] in Spec Setup (BeforeEach) [0.243 seconds]
[sig-windows] Services
/go/src/k8s.io/kubernetes/test/e2e/windows/framework.go:27
  should be able to create a functioning NodePort service for Windows [BeforeEach]
  /go/src/k8s.io/kubernetes/test/e2e/windows/service.go:42

  Only supported for node OS distro [windows] (not debian)

  /go/src/k8s.io/kubernetes/test/e2e/windows/service.go:38
------------------------------
\u001b[36mS [SKIPPING] [1.1 seconds]\u001b[0m
[sig-network] Services
/go/src/k8s.io/kubernetes/test/e2e/network/framework.go:23
  should work after restarting kube-proxy [Disruptive] [It]
  /go/src/k8s.io/kubernetes/test/e2e/network/service.go:1071

  Requires at least 2 nodes
  (not 1)

  /go/src/k8s.io/kubernetes/test/e2e/framework/skipper/skipper.go:80
------------------------------
SSS•`;

describe('ginkgo skip reasons', function () {
  it('reads each skipped spec and what e2e.test printed for it, colours or not', function () {
    expect([...ginkgoSkipReasons(OUTPUT)]).to.deep.equal([
      [
        '[sig-windows] Services should be able to create a functioning NodePort service for Windows',
        'Only supported for node OS distro [windows] (not debian)',
      ],
      [
        '[sig-network] Services should work after restarting kube-proxy [Disruptive]',
        'Requires at least 2 nodes (not 1)',
      ],
    ]);
  });

  it('output without skip blocks gives none', function () {
    expect(ginkgoSkipReasons('•••\nRan 3 of 5000 Specs\n').size).to.equal(0);
  });
});

describe('ginkgo skip reasons of a real run', function () {
  it('joins a spec nested three deep (testdata/skip-block-nested.txt, e2e.test v1.20.2)', function () {
    const text = readFileSync(new URL('testdata/skip-block-nested.txt', import.meta.url), 'utf8');
    expect([...ginkgoSkipReasons(text)]).to.deep.equal([
      [
        '[sig-windows] Hybrid cluster network for all supported CNIs should have stable networking for Linux and Windows pods',
        'Only supported for node OS distro [windows] (not debian)',
      ],
    ]);
  });
});
