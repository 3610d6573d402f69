// "recorded probes" replays what curl 7.88.1 and agnhost printed in pods of a live v1.20.2 cluster
// (kube-recorded-objects.ts). The literal outputs elsewhere are those of other curl builds (curl 8,
// Windows curl.exe 7.5x, Windows Go errors), which no node here runs.
import { expect } from 'chai';
import { V1Status } from '@kubernetes/client-node';
import type { ProbeRequest } from '../../model/lab-driver.ts';
import { PERF_ELSEWHERE, probeCommand, replyFromExec } from './agnhost-probe.ts';
import type { ExecResult } from './exec-in-pod.ts';
import { statusFrame } from '../../testing/kube-recorded-objects.ts';
import { dns, http, ran, tcp } from '../../testing/agnhost-probe-fixtures.ts';

describe('agnhost probe mapping (command per request kind, output → ProbeReply)', () => {
  it('runs http and dns through curl (curl.exe on Windows) and tcp through agnhost connect', () => {
    expect(probeCommand('linux', http, 3000)).to.deep.equal([
      'curl',
      '-sS',
      '-v',
      '--connect-timeout',
      '3.000',
      '-m',
      '3.000',
      '-w',
      '\\n--hybrid-lab-status:%{http_code} %{size_download} %{remote_ip}',
      'http://10.244.2.7:8080/clientip',
    ]);
    expect(probeCommand('windows', http, 3000)[0]).to.equal('curl.exe');
    expect(probeCommand('windows', dns, 2500)).to.deep.equal([
      'curl.exe',
      '-4',
      '-sS',
      '-v',
      '--connect-timeout',
      '2.500',
      '-m',
      '2.500',
      'http://web-linux:80/',
    ]);
    expect(probeCommand('windows', tcp, 3000)).to.deep.equal([
      '/agnhost',
      'connect',
      '--timeout=3000ms',
      '10.244.2.7:8080',
    ]);
  });

  it("asks netexec's /dial for a UDP probe, the status after the body", () => {
    const udp = { kind: 'udp', host: '10.244.3.5', port: 8081, message: 'hostname' } as const;
    expect(probeCommand('windows', udp, 3000)).to.deep.equal([
      'curl.exe',
      '-sS',
      '--connect-timeout',
      '3.000',
      '-m',
      '3.000',
      '-w',
      '\n--hybrid-lab-status:%{http_code}',
      'http://127.0.0.1:8080/dial?request=hostname&protocol=udp&host=10.244.3.5&port=8081&tries=1',
    ]);
  });

  it('brackets an IPv6 address for agnhost connect', () => {
    expect(
      probeCommand('linux', { kind: 'tcp', host: 'fd00:10:244::7', port: 8080 }, 3000),
    ).to.deep.equal(['/agnhost', 'connect', '--timeout=3000ms', '[fd00:10:244::7]:8080']);
  });

  it('refuses a perf request, which perf-in-pod.ts runs instead', () => {
    const perf: ProbeRequest = {
      kind: 'perf',
      measure: 'tcp-rr',
      base: 'http://10.244.2.7:5201',
      durationMs: 10000,
    };
    expect(() => probeCommand('linux', perf, 3000)).to.throw(PERF_ELSEWHERE);
    expect(replyFromExec(perf, ran(0, ''))).to.deep.equal({
      result: 'error',
      error: PERF_ELSEWHERE,
    });
  });

  it('turns an exec the API failed without an exit code into error (recorded InternalError frame)', () => {
    const status = statusFrame('missing-executable');
    const failed: ExecResult = { exitCode: null, stdout: '', stderr: '', status };
    const reply = replyFromExec(http, failed);
    expect(reply.result).to.equal('error');
    expect(reply.error).to.equal(`exec failed: ${status.message}`);
    expect(reply.error).to.contain('"curl.exe": executable file not found in $PATH');
  });

  it('says no exit code when the failed exec named no message and no reason', () => {
    const failed: ExecResult = {
      exitCode: null,
      stdout: '',
      stderr: '',
      status: Object.assign(new V1Status(), { status: 'Failure' }),
    };
    expect(replyFromExec(http, failed)).to.deep.equal({
      result: 'error',
      error: 'exec failed: no exit code',
    });
  });
});
