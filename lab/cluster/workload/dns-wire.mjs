// @ts-check
/**
 * The DNS message format (RFC 1035 section 4) as far as the lab speaks it: names, the A question
 * a client asks and the answer it reads back. Shared by dns-server.mjs, the DNS-over-TCP probe
 * (probes.mjs) and the Kubernetes driver, which reads the bytes a pod's shell printed. Built-ins
 * only, like every workload file.
 */

import { Buffer } from 'node:buffer';

export const HEADER_BYTES = 12;
export const TYPE_A = 1;
export const CLASS_IN = 1;
/** The id of every query sent over TCP: a connection carries one query, so its reply is known. */
export const TCP_QUERY_ID = 0x686c;
/** Response codes (RFC 1035 section 4.1.1). */
export const Rcode = /** @type {const} */ ({ NoError: 0, NxDomain: 3, NotImp: 4, Refused: 5 });
const RCODE_NAMES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

/**
 * Reads a possibly compressed name. Each pointer must jump below every offset seen so far,
 * so a hostile packet cannot make it loop.
 * @param {Buffer} packet
 * @param {number} start
 * @returns {{ labels: Buffer[], end: number } | undefined}
 */
export function readName(packet, start) {
  /** @type {Buffer[]} */
  const labels = [];
  let offset = start;
  let lowest = start;
  /** @type {number | undefined} */
  let end;
  let wireLength = 1;
  for (;;) {
    const length = packet[offset];
    if (length === undefined) return undefined;
    if (length === 0) return { labels, end: end ?? offset + 1 };
    if ((length & 0xc0) === 0xc0) {
      const low = packet[offset + 1];
      if (low === undefined) return undefined;
      const target = ((length & 0x3f) << 8) | low;
      if (target >= lowest) return undefined;
      end ??= offset + 2;
      offset = lowest = target;
      continue;
    }
    if ((length & 0xc0) !== 0) return undefined;
    wireLength += length + 1;
    if (wireLength > 255 || offset + 1 + length > packet.length) return undefined;
    labels.push(packet.subarray(offset + 1, offset + 1 + length));
    offset += length + 1;
  }
}

/**
 * Whether `name` fits in a question: dotted labels of 1 to 63 bytes, a trailing dot allowed.
 * @param {string} name
 * @returns {boolean}
 */
export function isDnsName(name) {
  const bare = name.replace(/\.$/, '');
  return (
    Buffer.byteLength(bare) <= 253 &&
    bare.split('.').every((l) => l !== '' && Buffer.byteLength(l) <= 63)
  );
}

/**
 * A recursive A/IN query for `name` (see isDnsName), as sent over TCP: behind its two-byte
 * length (RFC 1035 section 4.2.2).
 * @param {string} name
 * @param {number} id
 * @returns {Buffer}
 */
export function tcpQuery(name, id) {
  if (!isDnsName(name)) throw new Error(`not a DNS name: ${name}`);
  const labels = name.replace(/\.$/, '').split('.');
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2); // RD: the cluster DNS resolves, as for any stub resolver
  header.writeUInt16BE(1, 4);
  const question = Buffer.concat([
    ...labels.flatMap((l) => [Buffer.from([Buffer.byteLength(l)]), Buffer.from(l)]),
    Buffer.from([0, 0, TYPE_A, 0, CLASS_IN]),
  ]);
  const message = Buffer.concat([header, question]);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length);
  return Buffer.concat([length, message]);
}

/**
 * The answer to query `id`: its response code and A addresses; an error text for anything that
 * is not a well-formed response to it.
 * @param {Buffer} message one DNS message, without the TCP length
 * @param {number} id
 * @returns {{ rcode: string, addresses: string[] } | { error: string }}
 */
export function readAnswer(message, id) {
  if (message.length < HEADER_BYTES) return { error: `a ${message.length}-byte reply` };
  const flags = message.readUInt16BE(2);
  if (message.readUInt16BE(0) !== id || (flags & 0x8000) === 0) {
    return { error: 'the reply is not a response to the query sent' };
  }
  const rcode = RCODE_NAMES[flags & 0x0f] ?? `RCODE ${flags & 0x0f}`;
  let offset = HEADER_BYTES;
  for (let q = message.readUInt16BE(4); q > 0; q--) {
    const name = readName(message, offset);
    if (name === undefined) return { error: 'a malformed question in the reply' };
    offset = name.end + 4;
  }
  /** @type {string[]} */
  const addresses = [];
  for (let a = message.readUInt16BE(6); a > 0; a--) {
    const name = readName(message, offset);
    if (name === undefined || name.end + 10 > message.length) {
      return { error: 'a malformed answer in the reply' };
    }
    const type = message.readUInt16BE(name.end);
    const length = message.readUInt16BE(name.end + 8);
    const data = name.end + 10;
    if (data + length > message.length) return { error: 'a cut answer in the reply' };
    if (type === TYPE_A && length === 4)
      addresses.push([...message.subarray(data, data + 4)].join('.'));
    offset = data + length;
  }
  return { rcode, addresses };
}

/**
 * A reply read as a probe reports it: `ok` with the A addresses (none: the name has no A
 * record), `nxdomain`, or `error` naming the response code or what was wrong with the bytes.
 * @param {Buffer} message one DNS message, without the TCP length
 * @param {number} id the query's id
 * @returns {{ result: 'ok', addresses: string[] } | { result: 'nxdomain' | 'error', error: string }}
 */
export function answerOutcome(message, id) {
  const answer = readAnswer(message, id);
  if ('error' in answer) return { result: 'error', error: answer.error };
  return rcodeOutcome(answer.rcode, answer.addresses);
}

/**
 * A response code (its name, as dig prints it) and the A addresses answered, as a probe reports
 * them (see answerOutcome).
 * @param {string} rcode
 * @param {string[]} addresses
 * @returns {{ result: 'ok', addresses: string[] } | { result: 'nxdomain' | 'error', error: string }}
 */
export function rcodeOutcome(rcode, addresses) {
  if (rcode === 'NOERROR') return { result: 'ok', addresses };
  if (rcode === 'NXDOMAIN') return { result: 'nxdomain', error: 'NXDOMAIN over TCP' };
  return { result: 'error', error: `the server answered ${rcode}` };
}

/**
 * The first `nameserver` of a resolv.conf, as a stub resolver takes it.
 * @param {string} text
 * @returns {string | undefined}
 */
export function firstNameserver(text) {
  return /^\s*nameserver\s+(\S+)/m.exec(text)?.[1];
}
