import { expect } from 'chai';
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import {
  TYPE_A,
  answerOutcome,
  firstNameserver,
  isDnsName,
  readAnswer,
  readName,
  rcodeOutcome,
  tcpQuery,
} from './dns-wire.mjs';

const ID = 0x1234;
const TYPE_CNAME = 5;

/** A name as it goes on the wire, uncompressed. */
function wireName(name: string): Buffer {
  return Buffer.concat([
    ...name.split('.').flatMap((l) => [Buffer.from([l.length]), Buffer.from(l)]),
    Buffer.from([0]),
  ]);
}

/** A header: id, flags, then question and answer counts. */
function header(flags: number, questions: number, answers: number, id = ID): Buffer {
  const bytes = Buffer.alloc(12);
  bytes.writeUInt16BE(id, 0);
  bytes.writeUInt16BE(flags, 2);
  bytes.writeUInt16BE(questions, 4);
  bytes.writeUInt16BE(answers, 6);
  return bytes;
}

/** One answer record for the question's name (a pointer to offset 12): type, class IN, TTL, data. */
function record(type: number, data: number[]): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(1, 2);
  fixed.writeUInt32BE(30, 4);
  fixed.writeUInt16BE(data.length, 8);
  return Buffer.concat([Buffer.from([0xc0, 12]), fixed, Buffer.from(data)]);
}

const question = Buffer.concat([wireName('web.lab.svc'), Buffer.from([0, TYPE_A, 0, 1])]);

/** A response (QR set, RD and RA) with `rcode`, the question and `records`. */
function response(rcode: number, ...records: Buffer[]): Buffer {
  return Buffer.concat([header(0x8180 | rcode, 1, records.length), question, ...records]);
}

describe('DNS wire format', () => {
  describe('readName', () => {
    it('reads labels, following a pointer back to an earlier name', () => {
      const packet = Buffer.concat([
        wireName('lab.svc'),
        Buffer.from([3, 0x77, 0x65, 0x62, 0xc0, 0]),
      ]);
      const name = readName(packet, 9);
      expect(name?.labels.map(String)).to.deep.equal(['web', 'lab', 'svc']);
      expect(name?.end).to.equal(15);
    });

    it('refuses a pointer forward or to itself, so a packet cannot make it loop', () => {
      const forward = Buffer.concat([Buffer.from([0xc0, 2]), wireName('web')]);
      expect(readName(forward, 0)).to.equal(undefined);
      expect(readName(Buffer.from([0xc0, 0]), 0)).to.equal(undefined);
    });

    it('refuses the reserved label types 01 and 10', () => {
      for (const kind of [0x40, 0x80]) {
        const packet = Buffer.concat([
          Buffer.from([kind | 1]),
          Buffer.alloc(kind + 1, 0x61),
          Buffer.from([0]),
        ]);
        expect(readName(packet, 0), `0x${kind.toString(16)}`).to.equal(undefined);
      }
    });

    it('takes a name of 255 bytes on the wire and refuses one longer', () => {
      const label = (n: number) => 'a'.repeat(n);
      const longest = wireName([label(63), label(63), label(63), label(61)].join('.'));
      expect(longest.length).to.equal(255);
      expect(readName(longest, 0)?.labels.map((l) => l.length)).to.deep.equal([63, 63, 63, 61]);
      const tooLong = wireName([label(63), label(63), label(63), label(62)].join('.'));
      expect(readName(tooLong, 0)).to.equal(undefined);
    });

    it('refuses a name cut short', () => {
      expect(readName(Buffer.from([3, 0x77, 0x65]), 0)).to.equal(undefined);
      expect(readName(Buffer.from([3, 0x77, 0x65, 0x62]), 0)).to.equal(undefined);
      expect(readName(Buffer.from([0xc0]), 0)).to.equal(undefined);
    });
  });

  describe('isDnsName', () => {
    it('takes names up to 253 bytes with labels up to 63, and a trailing dot', () => {
      const longest = ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.');
      expect(longest.length).to.equal(253);
      expect([longest, `${longest}.`, 'web.lab.svc.'].map(isDnsName)).to.deep.equal([
        true,
        true,
        true,
      ]);
      expect([`${longest}d`, 'a..b', '', `${'a'.repeat(64)}.svc`].map(isDnsName)).to.deep.equal([
        false,
        false,
        false,
        false,
      ]);
    });

    it('is what tcpQuery asks for', () => {
      expect(() => tcpQuery('a..b', ID)).to.throw('not a DNS name: a..b');
      const query = tcpQuery('web.lab.svc.', ID);
      expect(query.readUInt16BE(0)).to.equal(query.length - 2);
      expect(query.subarray(2)).to.deep.equal(Buffer.concat([header(0x0100, 1, 0), question]));
    });
  });

  describe('readAnswer', () => {
    it('reads the response code and the A addresses', () => {
      const reply = response(0, record(TYPE_A, [10, 96, 0, 10]), record(TYPE_A, [10, 96, 0, 11]));
      expect(readAnswer(reply, ID)).to.deep.equal({
        rcode: 'NOERROR',
        addresses: ['10.96.0.10', '10.96.0.11'],
      });
    });

    it('names every response code as dig does, and an unnamed one by its number', () => {
      const names = [0, 1, 2, 3, 4, 5, 6, 15].map((rcode) => {
        const answer = readAnswer(response(rcode), ID);
        return 'rcode' in answer ? answer.rcode : answer.error;
      });
      expect(names).to.deep.equal([
        'NOERROR',
        'FORMERR',
        'SERVFAIL',
        'NXDOMAIN',
        'NOTIMP',
        'REFUSED',
        'RCODE 6',
        'RCODE 15',
      ]);
    });

    it('names the response codes the same in a process of its own (the names are fixed at load)', () => {
      const wire = new URL('./dns-wire.mjs', import.meta.url).href;
      const script =
        `const { readAnswer } = await import(${JSON.stringify(wire)});\n` +
        `const names = [1, 2, 4, 5].map((rcode) => {\n` +
        `  const reply = Buffer.alloc(12);\n` +
        `  reply.writeUInt16BE(${ID}, 0);\n` +
        `  reply.writeUInt16BE(0x8180 | rcode, 2);\n` +
        `  return readAnswer(reply, ${ID}).rcode;\n` +
        `});\n` +
        `process.stdout.write(names.join(' '));\n`;
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      expect(child.stdout).to.equal('FORMERR SERVFAIL NOTIMP REFUSED');
    });

    it('skips records that are not A records of 4 bytes', () => {
      const reply = response(
        0,
        record(TYPE_CNAME, [10, 0, 0, 1]),
        record(TYPE_A, [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        record(TYPE_A, [10, 96, 0, 12]),
      );
      expect(readAnswer(reply, ID)).to.deep.equal({ rcode: 'NOERROR', addresses: ['10.96.0.12'] });
    });

    it('takes a bare header, and a record with empty data at the very end', () => {
      expect(readAnswer(header(0x8180, 0, 0), ID)).to.deep.equal({
        rcode: 'NOERROR',
        addresses: [],
      });
      expect(readAnswer(response(0, record(TYPE_A, [])), ID)).to.deep.equal({
        rcode: 'NOERROR',
        addresses: [],
      });
    });

    it('refuses what is not a well-formed response to the query', () => {
      const errors = [
        Buffer.alloc(11),
        header(0x0100, 0, 0),
        header(0x8180, 0, 0, ID + 1),
        Buffer.concat([header(0x8180, 1, 0), Buffer.from([3, 0x77])]),
        Buffer.concat([header(0x8180, 1, 1), question, Buffer.from([0xc0, 12, 0, 1, 0])]),
        Buffer.concat([
          header(0x8180, 1, 1),
          question,
          record(TYPE_A, [10, 0, 0, 1]).subarray(0, 11),
        ]),
        Buffer.concat([
          header(0x8180, 1, 1),
          question,
          record(TYPE_A, [10, 0, 0, 1]).subarray(0, 14),
        ]),
      ].map((message) => readAnswer(message, ID));
      expect(errors).to.deep.equal([
        { error: 'a 11-byte reply' },
        { error: 'the reply is not a response to the query sent' },
        { error: 'the reply is not a response to the query sent' },
        { error: 'a malformed question in the reply' },
        { error: 'a malformed answer in the reply' },
        { error: 'a malformed answer in the reply' },
        { error: 'a cut answer in the reply' },
      ]);
    });
  });

  describe('answerOutcome', () => {
    it('reports ok with the addresses, nxdomain, or the response code as an error', () => {
      const outcomes = [
        response(0, record(TYPE_A, [10, 96, 0, 10])),
        response(0),
        response(3),
        response(2),
        response(5),
        Buffer.alloc(4),
      ].map((message) => answerOutcome(message, ID));
      expect(outcomes).to.deep.equal([
        { result: 'ok', addresses: ['10.96.0.10'] },
        { result: 'ok', addresses: [] },
        { result: 'nxdomain', error: 'NXDOMAIN over TCP' },
        { result: 'error', error: 'the server answered SERVFAIL' },
        { result: 'error', error: 'the server answered REFUSED' },
        { result: 'error', error: 'a 4-byte reply' },
      ]);
      expect(rcodeOutcome('RCODE 9', [])).to.deep.equal({
        result: 'error',
        error: 'the server answered RCODE 9',
      });
    });
  });

  describe('firstNameserver', () => {
    it('takes the first nameserver line, not a commented one, however it is spaced', () => {
      const resolvConf =
        '# nameserver 192.0.2.1\nsearch lab.svc.cluster.local\n  nameserver \t 10.96.0.10\nnameserver 10.96.0.11\n';
      expect(firstNameserver(resolvConf)).to.equal('10.96.0.10');
      expect(firstNameserver('search lab\n')).to.equal(undefined);
    });
  });
});
