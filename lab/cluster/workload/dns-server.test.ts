import { expect } from 'chai';
import { Program } from '../../testing/spawned-program.ts';
import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { once } from 'node:events';
import { connect } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  TCP_QUERY_ID,
  answerOutcome,
  firstNameserver,
  isDnsName,
  readAnswer,
  tcpQuery,
} from './dns-wire.mjs';

const DNS_SERVER = new URL('./dns-server.mjs', import.meta.url);

const ZONE = {
  domain: 'cluster.local',
  records: {
    'kubernetes.default.svc.cluster.local': ['10.96.0.1'],
    'web.ns.svc.cluster.local': ['10.96.0.20'],
    'headless.ns.svc.cluster.local': ['10.244.1.5', '10.244.2.7'],
    'echo.ns.svc.cluster.local': ['198.51.100.1'],
  },
  aliases: {
    'ext.ns.svc.cluster.local': 'echo.ns.svc.cluster.local',
    'ext2.ns.svc.cluster.local': 'ext.ns.svc.cluster.local.',
    'far.ns.svc.cluster.local': 'echo.example.com',
    'loop-a.ns.svc.cluster.local': 'loop-b.ns.svc.cluster.local',
    'loop-b.ns.svc.cluster.local': 'loop-a.ns.svc.cluster.local',
  },
};

/** The answer records of a reply: owner (as written: a pointer or labels), type, data. */
function answerTypes(reply: Buffer): number[] {
  const types: number[] = [];
  let offset = 12;
  while (reply[offset] !== 0) offset += reply[offset]! + 1; // the question's name
  offset += 5;
  for (let a = reply.readUInt16BE(6); a > 0; a--) {
    if ((reply[offset]! & 0xc0) === 0xc0) offset += 2;
    else {
      while (reply[offset] !== 0) offset += reply[offset]! + 1;
      offset += 1;
    }
    types.push(reply.readUInt16BE(offset));
    offset += 10 + reply.readUInt16BE(offset + 8);
  }
  return types;
}

/** A query in wire format with one question (class IN); RD set unless flags say otherwise. */
function rawQuery(id: number, name: string, qtype: number, flags = 0x0100): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  const labels = name.split('.').flatMap((l) => [Buffer.from([l.length]), Buffer.from(l)]);
  return Buffer.concat([header, ...labels, Buffer.from([0, 0, qtype, 0, 1])]);
}

/** A 12-byte header asking one question, followed by the given question bytes. */
function withHeader(id: number, question: number[]): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(1, 4);
  return Buffer.concat([header, Buffer.from(question)]);
}

describe('dns-server', function () {
  this.timeout(10_000);
  const started: Program[] = [];
  let dir = '';
  let zoneFile = '';
  let server: Program;
  let port = 0;
  const resolver = new Resolver({ timeout: 1000, tries: 1 });

  /** Sends packets in order and returns the first reply. */
  async function exchange(...packets: Buffer[]): Promise<Buffer> {
    const socket = createSocket('udp4');
    try {
      const reply = once(socket, 'message', { signal: AbortSignal.timeout(2000) });
      for (const packet of packets) socket.send(packet, port, '127.0.0.1');
      const [data] = (await reply) as [Buffer];
      return data;
    } finally {
      socket.close();
    }
  }

  async function expectError(lookup: Promise<unknown>, code: string): Promise<void> {
    const err: unknown = await lookup.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.have.property('code', code);
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dns-server-test-'));
    zoneFile = join(dir, 'zone.json');
    await writeFile(zoneFile, JSON.stringify(ZONE));
    server = Program.start(DNS_SERVER, [
      '--zone',
      zoneFile,
      '--listen',
      '127.0.0.1',
      '--port',
      '0',
    ]);
    started.push(server);
    const match = /^listening dns=127\.0\.0\.1:(\d+)$/.exec(await server.nextLine());
    if (match === null) throw new Error('dns-server did not print its listening line');
    port = Number(match[1]);
    resolver.setServers([`127.0.0.1:${port}`]);
  });

  after(async () => {
    started.forEach((p) => {
      p.stop();
    });
    await rm(dir, { recursive: true, force: true });
  });

  it('answers A queries from the zone with TTL 5', async () => {
    const answers = await resolver.resolve4('kubernetes.default.svc.cluster.local', { ttl: true });
    expect(answers).to.deep.equal([{ address: '10.96.0.1', ttl: 5 }]);
  });

  it('answers every address of a headless service', async () => {
    const answers = await resolver.resolve4('headless.ns.svc.cluster.local');
    expect(answers).to.have.members(['10.244.1.5', '10.244.2.7']);
  });

  it('matches names case-insensitively', async () => {
    expect(await resolver.resolve4('WEB.Ns.svc.Cluster.Local')).to.deep.equal(['10.96.0.20']);
  });

  it('answers NXDOMAIN for a missing name inside the domain', async () => {
    await expectError(resolver.resolve4('missing.ns.svc.cluster.local'), 'ENOTFOUND');
  });

  it('answers NODATA for AAAA on an existing name', async () => {
    await expectError(resolver.resolve6('web.ns.svc.cluster.local'), 'ENODATA');
  });

  it('answers NODATA for a parent of a record', async () => {
    await expectError(resolver.resolve4('ns.svc.cluster.local'), 'ENODATA');
  });

  it('answers NXDOMAIN without authority for names outside the domain (no upstream)', async () => {
    await expectError(resolver.resolve4('example.com'), 'ENOTFOUND');
  });

  it('answers an alias with its CNAME, then what its target in the zone answers (as CoreDNS)', async () => {
    expect(await resolver.resolveCname('ext.ns.svc.cluster.local')).to.deep.equal([
      'echo.ns.svc.cluster.local',
    ]);
    expect(await resolver.resolve4('ext.ns.svc.cluster.local')).to.deep.equal(['198.51.100.1']);
    expect(await resolver.resolve4('ext2.ns.svc.cluster.local')).to.deep.equal(['198.51.100.1']);
    const reply = await exchange(rawQuery(9, 'ext2.ns.svc.cluster.local', 1));
    expect(answerTypes(reply)).to.deep.equal([5, 5, 1]);
  });

  it('an alias whose target it cannot answer gets the CNAME alone; a loop ends', async () => {
    expect(answerTypes(await exchange(rawQuery(10, 'far.ns.svc.cluster.local', 1)))).to.deep.equal([
      5,
    ]);
    expect(await resolver.resolve4('far.ns.svc.cluster.local')).to.deep.equal([]);
    const loop = answerTypes(await exchange(rawQuery(11, 'loop-a.ns.svc.cluster.local', 1)));
    expect(loop.length).to.be.within(1, 9);
    expect(new Set(loop)).to.deep.equal(new Set([5]));
  });

  it('answers over TCP too, two queries on one connection, each behind its length', async () => {
    const conn = connect(port, '127.0.0.1');
    try {
      await once(conn, 'connect');
      const framed = (q: Buffer) =>
        Buffer.concat([Buffer.from([q.length >> 8, q.length & 0xff]), q]);
      const q1 = rawQuery(0x0101, 'web.ns.svc.cluster.local', 1);
      const q2 = rawQuery(0x0202, 'missing.ns.svc.cluster.local', 1);
      // Split across writes: framing, not packet boundaries, delimits messages.
      const bytes = Buffer.concat([framed(q1), framed(q2)]);
      conn.write(bytes.subarray(0, 7));
      conn.write(bytes.subarray(7));
      let got = Buffer.alloc(0);
      const replies: Buffer[] = [];
      for await (const chunk of conn) {
        got = Buffer.concat([got, chunk as Buffer]);
        while (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) {
          replies.push(got.subarray(2, 2 + got.readUInt16BE(0)));
          got = got.subarray(2 + got.readUInt16BE(0));
        }
        if (replies.length === 2) break;
      }
      expect(replies.map((r) => r.readUInt16BE(0))).to.deep.equal([0x0101, 0x0202]);
      expect(replies.map((r) => r.readUInt16BE(2) & 0x000f)).to.deep.equal([0, 3]);
      expect(replies[0]!.subarray(-4)).to.deep.equal(Buffer.from([10, 96, 0, 20]));
    } finally {
      conn.destroy();
    }
  });

  it("dns-wire's TCP query and answer reader (the dns-tcp probe's) agree with the server", async () => {
    const ask = async (name: string): Promise<Buffer> => {
      const conn = connect(port, '127.0.0.1');
      try {
        conn.write(tcpQuery(name, TCP_QUERY_ID));
        let got = Buffer.alloc(0);
        for await (const chunk of conn) {
          got = Buffer.concat([got, chunk as Buffer]);
          if (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) break;
        }
        return got.subarray(2, 2 + got.readUInt16BE(0));
      } finally {
        conn.destroy();
      }
    };
    const headless = await ask('headless.ns.svc.cluster.local.');
    expect(answerOutcome(headless, TCP_QUERY_ID)).to.deep.equal({
      result: 'ok',
      addresses: ['10.244.1.5', '10.244.2.7'],
    });
    expect(answerOutcome(await ask('missing.ns.svc.cluster.local'), TCP_QUERY_ID)).to.deep.equal({
      result: 'nxdomain',
      error: 'NXDOMAIN over TCP',
    });
    expect(answerOutcome(headless, TCP_QUERY_ID + 1)).to.deep.equal({
      result: 'error',
      error: 'the reply is not a response to the query sent',
    });
    expect(answerOutcome(headless.subarray(0, headless.length - 2), TCP_QUERY_ID)).to.deep.equal({
      result: 'error',
      error: 'a cut answer in the reply',
    });
    expect(readAnswer(headless.subarray(0, 5), TCP_QUERY_ID)).to.deep.equal({
      error: 'a 5-byte reply',
    });
  });

  it('dns-wire refuses names that fit no question, and finds the first nameserver', () => {
    expect(['web.ns', 'web.ns.', 'a'.repeat(63)].map(isDnsName)).to.deep.equal([true, true, true]);
    expect(['', 'a..b', '.', 'a'.repeat(64), `${'a.'.repeat(127)}b`].map(isDnsName)).to.deep.equal([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(() => tcpQuery('a..b', 1)).to.throw('not a DNS name: a..b');
    const conf =
      '# kubelet\nsearch ns.svc.cluster.local\n nameserver 10.96.0.10\nnameserver 8.8.8.8\n';
    expect(firstNameserver(conf)).to.equal('10.96.0.10');
    expect(firstNameserver('search x\n')).to.equal(undefined);
  });

  it('echoes the ID, question and RD and sets QR and AA without RA', async () => {
    const query = rawQuery(0xbeef, 'NoPe.svc.Cluster.local', 1);
    const reply = await exchange(query);
    expect(reply.readUInt16BE(0)).to.equal(0xbeef);
    const flags = reply.readUInt16BE(2);
    expect(flags & 0x8000, 'QR').to.not.equal(0);
    expect(flags & 0x0400, 'AA').to.not.equal(0);
    expect(flags & 0x0100, 'RD').to.not.equal(0);
    expect(flags & 0x0080, 'RA').to.equal(0);
    expect(flags & 0x000f, 'RCODE').to.equal(3);
    expect(reply.readUInt16BE(4)).to.equal(1);
    expect(reply.subarray(12)).to.deep.equal(query.subarray(12));
  });

  it('follows a compression pointer in the question', async () => {
    // Offset 11 is the low byte of ARCOUNT, i.e. 0: the root name, outside the zone: NXDOMAIN.
    const reply = await exchange(withHeader(7, [0xc0, 11, 0, 1, 0, 1]));
    expect(reply.readUInt16BE(0)).to.equal(7);
    expect(reply.readUInt16BE(2) & 0x000f).to.equal(3);
  });

  it('ignores malformed packets and keeps serving', async () => {
    const reply = await exchange(
      Buffer.from([1, 2, 3]),
      withHeader(1, [0xc0, 12, 0, 1, 0, 1]), // pointer to itself
      withHeader(2, [1, 0x61, 0xc0, 12, 0, 1, 0, 1]), // label then a pointer back to it
      withHeader(3, [0xc0, 0x40, 0, 1, 0, 1]), // pointer past the end
      withHeader(4, [63, 0x61, 0x62]), // label longer than the packet
      rawQuery(5, 'web.ns.svc.cluster.local', 1, 0x8000), // a response, not a query
      rawQuery(6, 'web.ns.svc.cluster.local', 1),
    );
    expect(reply.readUInt16BE(0)).to.equal(6);
    expect(reply.readUInt16BE(6), 'ANCOUNT').to.equal(1);
  });

  it('re-reads the zone on SIGHUP', async () => {
    const records = { ...ZONE.records, 'new.ns.svc.cluster.local': ['10.96.0.99'] };
    await writeFile(zoneFile, JSON.stringify({ ...ZONE, records }));
    server.child.kill('SIGHUP');
    expect(await server.nextLine()).to.match(/^reloaded zone=.* names=5$/);
    expect(await resolver.resolve4('new.ns.svc.cluster.local')).to.deep.equal(['10.96.0.99']);
  });

  it('answers clients in bareCnameClients with the CNAME alone', async () => {
    await writeFile(zoneFile, JSON.stringify({ ...ZONE, bareCnameClients: ['127.0.0.0/8'] }));
    server.child.kill('SIGHUP');
    expect(await server.nextLine()).to.match(/^reloaded /);
    expect(answerTypes(await exchange(rawQuery(12, 'ext.ns.svc.cluster.local', 1)))).to.deep.equal([
      5,
    ]);
    expect(await resolver.resolve4('ext.ns.svc.cluster.local')).to.deep.equal([]);
    await writeFile(zoneFile, JSON.stringify({ ...ZONE, bareCnameClients: ['10.244.0.0/24'] }));
    server.child.kill('SIGHUP');
    expect(await server.nextLine()).to.match(/^reloaded /);
    expect(await resolver.resolve4('ext.ns.svc.cluster.local')).to.deep.equal(['198.51.100.1']);
  });

  it('exits 1 with the reason when the zone file is invalid', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ domain: 'cluster.local', records: { 'x.example': [] } }));
    const program = Program.start(DNS_SERVER, ['--zone', bad, '--listen', '127.0.0.1']);
    started.push(program);
    expect(await program.exited).to.equal(1);
    expect(await program.stderrAfterExit()).to.include('outside cluster.local');
    const badCidr = join(dir, 'bad-cidr.json');
    await writeFile(badCidr, JSON.stringify({ ...ZONE, bareCnameClients: ['10.0.0.0/33'] }));
    const second = Program.start(DNS_SERVER, ['--zone', badCidr, '--listen', '127.0.0.1']);
    started.push(second);
    expect(await second.exited).to.equal(1);
    expect(await second.stderrAfterExit()).to.include('10.0.0.0/33 is not an IPv4 CIDR');
  });
});
