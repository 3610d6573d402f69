import { request } from 'node:http';
import { expect } from 'chai';
import { InternetCheckStandIn, PRE_CHECK_URL } from './internet-check-stand-in.ts';

/** A GET through the proxy, as Go's http.Get sends it with HTTP_PROXY set: the absolute URL as path. */
function viaProxy(proxy: string, url: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(proxy);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, path: url, headers: { host: new URL(url).host } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject).end();
  });
}

describe('the Internet pre-check stand-in', function () {
  it('answers only e2e.test`s http://google.com pre-check, saying what it is', async function () {
    await using standIn = await InternetCheckStandIn.start();
    const answer = await viaProxy(standIn.url, PRE_CHECK_URL);
    expect(answer.status).to.equal(200);
    expect(answer.body).to.include('not the Internet');
    expect(standIn.counts.answered).to.equal(1);
  });

  it('refuses anything else, so no spec can pass through it, and counts it', async function () {
    await using standIn = await InternetCheckStandIn.start();
    expect((await viaProxy(standIn.url, 'http://192.168.200.11:30080/hostname')).status).to.equal(
      502,
    );
    expect((await viaProxy(standIn.url, 'http://google.com/search?q=x')).status).to.equal(502);
    expect(standIn.counts).to.deep.equal({
      answered: 0,
      refused: ['GET http://192.168.200.11:30080/hostname', 'GET http://google.com/search?q=x'],
    });
  });

  it('hands e2e.test the proxy and keeps the lab`s networks direct', async function () {
    await using standIn = await InternetCheckStandIn.start();
    expect(standIn.env(['192.168.200.0/24', '10.244.0.0/16'])).to.deep.equal({
      HTTP_PROXY: standIn.url,
      http_proxy: standIn.url,
      NO_PROXY: 'localhost,127.0.0.1,192.168.200.0/24,10.244.0.0/16',
      no_proxy: 'localhost,127.0.0.1,192.168.200.0/24,10.244.0.0/16',
    });
    await standIn.stop();
    await standIn.stop();
  });
});
