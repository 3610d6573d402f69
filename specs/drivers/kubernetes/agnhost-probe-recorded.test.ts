// "recorded probes" replays what curl 7.88.1 and agnhost printed in pods of a live v1.20.2 cluster
// (kube-recorded-objects.ts). The literal outputs elsewhere are those of other curl builds (curl 8,
// Windows curl.exe 7.5x, Windows Go errors), which no node here runs.
import { expect } from 'chai';
import { V1Service } from '@kubernetes/client-node';
import { probeCommand, replyFromExec } from './agnhost-probe.ts';
import { execInPod } from './exec-in-pod.ts';
import { FakeExec } from '../../testing/kube-fake-exec.ts';
import {
  execRun,
  RECORDED,
  recordedResponse,
  recordedService,
  replay,
  statusOnPoll,
} from '../../testing/kube-recorded-objects.ts';

describe('recorded probes (probeCommand run in a pod of a live v1.20.2 cluster, frames replayed)', () => {
  /** The recorded run through execInPod over its replayed frames, then replyFromExec. */
  async function replyOf(name: string) {
    const run = execRun(name);
    const exec = new FakeExec(() => replay(name));
    const target = { namespace: 'hybrid-lab-r1', pod: run.pod, container: 'netexec' };
    const result = await execInPod(exec, target, run.command, 5000);
    const request = run.request!;
    // The argv the recorder ran is the one the driver builds for the request.
    expect(probeCommand('linux', request, run.timeoutMs)).to.deep.equal(run.command);
    return { reply: replyFromExec(request, result), request };
  }

  it('http: /clientip answers with the source pod address; curl connected to the target pod', async () => {
    const { reply, request } = await replyOf('http-clientip');
    const source = statusOnPoll(execRun('http-clientip').pod, Infinity).podIP!;
    const target = new URL((request as { url: string }).url).hostname;
    expect(reply).to.include({ result: 'ok', status: 200, peer: target });
    expect(reply.body).to.match(new RegExp(`^${source.replaceAll('.', '\\.')}:\\d+$`));
    expect(reply.bytes).to.equal(reply.body!.length);
  });

  it('http: a closed port is refused (curl 7.88 says so only in -v output), a silent address times out', async () => {
    const refused = (await replyOf('http-refused')).reply;
    expect(refused.result).to.equal('refused');
    expect(refused.error).to.contain('Connection refused');
    const timeout = (await replyOf('http-timeout')).reply;
    expect(timeout.result).to.equal('timeout');
    expect(timeout.error).to.match(/^Connection timed out after \d+ milliseconds$/);
  });

  it('dns: curl 7.88 names the address in its Trying line: the Service ClusterIP, kubernetes.default', async () => {
    const webLinux = recordedService('web-linux')!.spec!.clusterIP;
    expect((await replyOf('dns-service')).reply).to.deep.equal({
      result: 'ok',
      addresses: [webLinux],
    });
    const kubernetes = recordedResponse(V1Service, RECORDED.services.kubernetes).spec!.clusterIP;
    expect((await replyOf('dns-kubernetes')).reply).to.deep.equal({
      result: 'ok',
      addresses: [kubernetes],
    });
    expect((await replyOf('dns-nxdomain')).reply).to.deep.equal({
      result: 'nxdomain',
      error: 'Could not resolve host: web-nosuch',
    });
  });

  it('dns-tcp: bash asked the nameserver of resolv.conf over TCP; the answer holds the ClusterIP, or NXDOMAIN', async () => {
    const webLinux = recordedService('web-linux')!.spec!.clusterIP;
    const { reply } = await replyOf('dns-tcp-service');
    // The kubelet's resolv.conf names the kube-dns ClusterIP (10.96.0.10 on the recorded cluster).
    expect(reply).to.deep.equal({ result: 'ok', addresses: [webLinux], peer: '10.96.0.10' });
    expect((await replyOf('dns-tcp-nxdomain')).reply).to.deep.equal({
      result: 'nxdomain',
      error: 'NXDOMAIN over TCP',
      peer: '10.96.0.10',
    });
  });

  it('endpoints over UDP: bash pairs the backend and the client it saw; a closed port is refused, a silent one times out', async () => {
    const source = statusOnPoll(execRun('udp-sweep-service').pod, Infinity).podIP!;
    const { reply } = await replyOf('udp-sweep-service');
    expect(reply.result).to.equal('ok');
    expect(reply.answers).to.have.length(1);
    expect(reply.answers![0]!.endpoint).to.match(/^netexec-[a-z0-9]+-b$/);
    expect(reply.answers![0]!.client).to.equal(source);
    expect((await replyOf('udp-sweep-refused')).reply).to.deep.equal({
      result: 'refused',
      error: "dd: error reading 'standard input': Connection refused",
    });
    expect((await replyOf('udp-sweep-timeout')).reply.result).to.equal('timeout');
  });

  it('tcp: agnhost connect exits 0, or 1 with REFUSED or TIMEOUT', async () => {
    expect((await replyOf('tcp-ok')).reply).to.deep.equal({ result: 'ok' });
    expect((await replyOf('tcp-refused')).reply).to.deep.equal({
      result: 'refused',
      error: 'REFUSED',
    });
    expect((await replyOf('tcp-timeout')).reply).to.deep.equal({
      result: 'timeout',
      error: 'TIMEOUT',
    });
  });
});
