import { expect } from 'chai';
import { checkReachability, KUBELET_PORT } from './reachability.ts';
import type { ProbeRequest } from '../../model/lab-driver.ts';
import type { ProbeReply } from '../../../lab/contracts/probe-reply.ts';

describe('reachability before the matrix (clusters the harness did not make)', function () {
  const workloads = {
    hostNetwork: [
      { node: 'lin1', address: '10.0.0.4', port: 8085, hostname: 'lin1' },
      { node: 'win1', address: '10.0.0.5', port: 8085, hostname: 'win1' },
    ],
    external: { address: '203.0.113.7', port: 8099 },
  };

  it("asks the outside for a connect to each node's kubelet port and each node for the echo, and names what failed", async function () {
    const asked: string[] = [];
    const reply = (key: string, failing: Record<string, ProbeReply>): ProbeReply => {
      asked.push(key);
      return failing[key] ?? { result: 'ok' };
    };
    const unreachable = await checkReachability(
      workloads,
      { win1: 10260 },
      {
        fromOutside: (request: ProbeRequest, timeoutMs) =>
          Promise.resolve(
            reply(`outside ${JSON.stringify(request)} ${timeoutMs}`, {
              [`outside {"kind":"tcp","host":"10.0.0.4","port":${KUBELET_PORT}} 5000`]: {
                result: 'timeout',
                error: 'connect timed out',
              },
            }),
          ),
        fromNode: (node, request) => {
          if (node === 'win1') return Promise.reject(new Error('exec refused: pod gone'));
          return Promise.resolve(reply(`${node} ${JSON.stringify(request)}`, {}));
        },
      },
    );
    expect(unreachable).to.deep.equal({
      outside: { lin1: 'not even its kubelet port 10250 answers (timeout: connect timed out)' },
      echo: { win1: 'the node itself gets no answer either (exec refused: pod gone)' },
    });
    expect(asked.sort()).to.deep.equal([
      'lin1 {"kind":"http","url":"http://203.0.113.7:8099/clientip"}',
      'outside {"kind":"tcp","host":"10.0.0.4","port":10250} 5000',
      'outside {"kind":"tcp","host":"10.0.0.5","port":10260} 5000',
    ]);
  });

  it('every path answering: nothing is unreachable', async function () {
    const ok = () => Promise.resolve<ProbeReply>({ result: 'ok' });
    expect(await checkReachability(workloads, {}, { fromOutside: ok, fromNode: ok })).to.deep.equal(
      {
        outside: {},
        echo: {},
      },
    );
  });
});
