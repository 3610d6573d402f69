// @ts-check
/**
 * Pod workload: the emulated cluster DNS (a CoreDNS stand-in) answering A queries over UDP and
 * TCP (the kube-dns Service offers both) from a JSON zone file. An alias (an ExternalName
 * Service) answers its CNAME followed, as CoreDNS follows a target inside the zone, by the
 * records its target has (chains up to 8 deep), except to clients in `bareCnameClients` (CIDRs),
 * which get the CNAME alone (fault injection: a resolver path that does not follow it).
 *
 *   node lab/cluster/workload/dns-server.mjs --zone FILE --listen ADDR [--port 53]
 *
 * Prints `listening dns=ADDR:PORT` once bound (port 0 picks a free one). On SIGHUP it re-reads
 * the zone and prints `reloaded zone=FILE names=N`, or keeps the old zone and logs to stderr.
 */

import { Buffer } from 'node:buffer';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer, isIPv4, isIPv6 } from 'node:net';
import {
  UsageError,
  describeError,
  exitWith,
  formatHostPort,
  parseCommandLine,
  parseIntInRange,
  parseOrExit,
} from './args.mjs';
import { CLASS_IN, HEADER_BYTES, Rcode, TYPE_A, readName } from './dns-wire.mjs';

const USAGE = 'usage: dns-server.mjs --zone FILE --listen ADDR [--port 53]';

const TYPE_CNAME = 5;
const TYPE_ANY = 255;
/** How many CNAMEs an answer follows before it stops (CoreDNS gives up on loops likewise). */
const MAX_CNAME_HOPS = 8;
/** Short TTL so resolvers notice a SIGHUP'd zone quickly, as CoreDNS's default 5 s does. */
const TTL_SECONDS = 5;
/** Classic UDP limit; we ignore EDNS, so answers beyond it are left out and TC is set. */
const MAX_UDP_BYTES = 512;

/**
 * @typedef {object} Zone
 * @property {string} domain lowercase, no trailing dot
 * @property {Map<string, string[]>} records A addresses by lowercase name
 * @property {Map<string, string>} aliases CNAME targets by lowercase name
 * @property {{ base: number, mask: number }[]} bareCnameClients clients answered with a CNAME alone
 * @property {Set<string>} names every name that exists, including empty non-terminals
 */

/**
 * One resource record of an answer: its owner, type and data.
 * @typedef {{ name: string, type: number, data: Buffer }} Record
 */

/**
 * @typedef {object} Query
 * @property {number} id
 * @property {number} flags the header's second word
 * @property {Buffer[]} labels question name as sent, original case
 * @property {number} qtype
 * @property {number} qclass
 */

/**
 * @param {string} name
 * @returns {string}
 */
function normalize(name) {
  return name.toLowerCase().replace(/\.$/, '');
}

/**
 * @param {unknown} value
 * @returns {value is string[]}
 */
function isIPv4List(value) {
  return Array.isArray(value) && value.every((a) => typeof a === 'string' && isIPv4(a));
}

/**
 * Reads and checks a zone file; throws with the file name and what is wrong.
 * @param {string} file
 * @returns {Zone}
 */
function loadZone(file) {
  /** @type {unknown} */
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  if (typeof raw !== 'object' || raw === null || !('domain' in raw) || !('records' in raw)) {
    throw new Error(`${file}: expected {"domain": ..., "records": {...}}`);
  }
  const { domain: rawDomain, records: rawRecords } = raw;
  const rawAliases = 'aliases' in raw ? raw.aliases : {};
  const rawClients = 'bareCnameClients' in raw ? raw.bareCnameClients : [];
  if (typeof rawDomain !== 'string' || rawDomain === '') throw new Error(`${file}: bad domain`);
  if (typeof rawRecords !== 'object' || rawRecords === null)
    throw new Error(`${file}: bad records`);
  const domain = normalize(rawDomain);
  /** @type {Map<string, string[]>} */
  const records = new Map();
  const names = new Set([domain]);
  for (const [rawName, addresses] of Object.entries(rawRecords)) {
    const name = normalize(rawName);
    if (!name.endsWith(`.${domain}`)) throw new Error(`${file}: ${rawName} is outside ${domain}`);
    if (!isIPv4List(addresses)) {
      throw new Error(`${file}: ${rawName} needs an array of IPv4 addresses`);
    }
    records.set(name, [...(records.get(name) ?? []), ...addresses]);
    // Parents of a record exist too; they answer NODATA rather than NXDOMAIN.
    for (let n = name; n !== domain; n = n.slice(n.indexOf('.') + 1)) names.add(n);
  }
  if (typeof rawAliases !== 'object' || rawAliases === null)
    throw new Error(`${file}: bad aliases`);
  /** @type {Map<string, string>} */
  const aliases = new Map();
  for (const [rawName, target] of Object.entries(rawAliases)) {
    const name = normalize(rawName);
    if (!name.endsWith(`.${domain}`)) throw new Error(`${file}: ${rawName} is outside ${domain}`);
    if (typeof target !== 'string' || target === '')
      throw new Error(`${file}: alias ${rawName} needs a target name`);
    aliases.set(name, normalize(target));
    for (let n = name; n !== domain; n = n.slice(n.indexOf('.') + 1)) names.add(n);
  }
  if (!Array.isArray(rawClients) || !rawClients.every((c) => typeof c === 'string'))
    throw new Error(`${file}: bareCnameClients needs an array of IPv4 CIDRs`);
  const bareCnameClients = rawClients.map((cidr) => {
    const parsed = parseCidr(cidr);
    if (parsed === undefined) throw new Error(`${file}: ${cidr} is not an IPv4 CIDR`);
    return parsed;
  });
  return { domain, records, aliases, bareCnameClients, names };
}

/**
 * @param {string} address
 * @returns {number | undefined}
 */
function ipv4Value(address) {
  if (!isIPv4(address)) return undefined;
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

/**
 * @param {string} text `a.b.c.d/n`
 * @returns {{ base: number, mask: number } | undefined}
 */
function parseCidr(text) {
  const [address = '', bits = ''] = text.split('/');
  const base = ipv4Value(address);
  const prefix = Number(bits);
  if (base === undefined || !/^\d+$/.test(bits) || prefix > 32) return undefined;
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { base: (base & mask) >>> 0, mask };
}

/**
 * Whether the client at `address` (IPv4, or IPv4-mapped IPv6) gets CNAMEs alone.
 * @param {Zone} zone
 * @param {string} address
 * @returns {boolean}
 */
function bareCname(zone, address) {
  const value = ipv4Value(address.replace(/^::ffff:/i, ''));
  if (value === undefined) return false;
  return zone.bareCnameClients.some(({ base, mask }) => (value & mask) >>> 0 === base);
}

/**
 * @param {string} name
 * @returns {Buffer}
 */
function encodeName(name) {
  return Buffer.concat([
    ...name
      .split('.')
      .filter((label) => label !== '')
      .flatMap((label) => [
        Buffer.from([Buffer.byteLength(label, 'latin1')]),
        Buffer.from(label, 'latin1'),
      ]),
    Buffer.from([0]),
  ]);
}

/**
 * @param {string} address
 * @returns {Buffer}
 */
function addressData(address) {
  return Buffer.from(address.split('.').map(Number));
}

/**
 * Parses a query with exactly one question; undefined for responses and malformed packets.
 * @param {Buffer} packet
 * @returns {Query | undefined}
 */
function parseQuery(packet) {
  if (packet.length < HEADER_BYTES) return undefined;
  const flags = packet.readUInt16BE(2);
  if ((flags & 0x8000) !== 0 || packet.readUInt16BE(4) !== 1) return undefined;
  const name = readName(packet, HEADER_BYTES);
  if (name === undefined || name.end + 4 > packet.length) return undefined;
  return {
    id: packet.readUInt16BE(0),
    flags,
    labels: name.labels,
    qtype: packet.readUInt16BE(name.end),
    qclass: packet.readUInt16BE(name.end + 2),
  };
}

/**
 * Encodes the response: the question echoed uncompressed, answers owned by the question's name
 * pointing back at it, others with their names in full. Over UDP, answers that do not fit in
 * 512 bytes are left out and TC is set.
 * @param {Query} query
 * @param {number} rcode
 * @param {boolean} authoritative
 * @param {readonly Record[]} answers
 * @param {string} asked the question's name, normalized
 * @returns {Buffer}
 */
function encodeResponse(query, rcode, authoritative, answers, asked = '') {
  const question = Buffer.concat([
    ...query.labels.flatMap((label) => [Buffer.from([label.length]), label]),
    Buffer.from([0, query.qtype >> 8, query.qtype & 0xff, query.qclass >> 8, query.qclass & 0xff]),
  ]);
  /** @type {Buffer[]} */
  const records = [];
  let size = HEADER_BYTES + question.length;
  for (const answer of answers) {
    const owner =
      answer.name === asked ? Buffer.from([0xc0, HEADER_BYTES]) : encodeName(answer.name);
    const fixed = Buffer.alloc(10);
    fixed.writeUInt16BE(answer.type, 0);
    fixed.writeUInt16BE(CLASS_IN, 2);
    fixed.writeUInt32BE(TTL_SECONDS, 4);
    fixed.writeUInt16BE(answer.data.length, 8);
    const record = Buffer.concat([owner, fixed, answer.data]);
    if (size + record.length > MAX_UDP_BYTES) break;
    records.push(record);
    size += record.length;
  }
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt16BE(query.id, 0);
  const opcodeAndRd = query.flags & 0x7900;
  const aa = authoritative ? 0x0400 : 0;
  const tc = records.length < answers.length ? 0x0200 : 0;
  header.writeUInt16BE(0x8000 | opcodeAndRd | aa | tc | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, question, ...records]);
}

/**
 * The records answering `name`: its A records, or its CNAME and what its target answers, as far
 * as the zone knows it (`chase` false: the CNAME alone).
 * @param {Zone} zone
 * @param {string} name
 * @param {boolean} wantsA
 * @param {boolean} chase
 * @returns {Record[]}
 */
function recordsOf(zone, name, wantsA, chase) {
  /** @type {Record[]} */
  const answers = [];
  let owner = name;
  for (let hop = 0; hop <= MAX_CNAME_HOPS; hop++) {
    const target = zone.aliases.get(owner);
    if (target === undefined) {
      const addresses = wantsA ? (zone.records.get(owner) ?? []) : [];
      return [
        ...answers,
        ...addresses.map((a) => ({ name: owner, type: TYPE_A, data: addressData(a) })),
      ];
    }
    answers.push({ name: owner, type: TYPE_CNAME, data: encodeName(target) });
    if (!chase) return answers;
    owner = target;
  }
  return answers;
}

/**
 * Answers from the zone as CoreDNS's kubernetes plugin would; names outside it do not exist.
 * @param {Zone} zone
 * @param {Query} query
 * @param {string} client the asking client's address
 * @returns {Buffer}
 */
function answer(zone, query, client) {
  if ((query.flags & 0x7800) !== 0) return encodeResponse(query, Rcode.NotImp, false, []);
  // latin1 keeps arbitrary label bytes one-to-one; zone names are plain ASCII.
  const name = query.labels.map((label) => label.toString('latin1').toLowerCase()).join('.');
  const inZone = name === zone.domain || name.endsWith(`.${zone.domain}`);
  if (query.qclass !== CLASS_IN) return encodeResponse(query, Rcode.Refused, false, []);
  // No upstream exists in a lab: answer outside names as an upstream would for names that do
  // not exist, so resolvers walk their search list and clients see NXDOMAIN, not SERVFAIL.
  if (!inZone) return encodeResponse(query, Rcode.NxDomain, false, []);
  if (!zone.names.has(name)) return encodeResponse(query, Rcode.NxDomain, true, []);
  const wantsA = query.qtype === TYPE_A || query.qtype === TYPE_ANY;
  const records = recordsOf(zone, name, wantsA, !bareCname(zone, client));
  return encodeResponse(query, Rcode.NoError, true, records, name);
}

/**
 * @param {readonly string[]} argv
 * @returns {{ zoneFile: string, listen: string, port: number }}
 */
function parseOptions(argv) {
  const { positionals, flags } = parseCommandLine(argv, ['zone', 'listen', 'port']);
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const zoneFile = flags.get('zone');
  const listen = flags.get('listen');
  if (zoneFile === undefined || listen === undefined)
    throw new UsageError('--zone and --listen are required');
  return { zoneFile, listen, port: parseIntInRange(flags.get('port') ?? '53', '--port', 0, 65535) };
}

function main() {
  const argv = process.argv.slice(2);
  const { zoneFile, listen, port } = parseOrExit('dns-server', USAGE, () => parseOptions(argv));

  /** @type {Zone} */
  let zone;
  try {
    zone = loadZone(zoneFile);
  } catch (err) {
    exitWith('dns-server', `cannot load zone: ${describeError(err)}`, 1);
  }

  const socket = createSocket({ type: isIPv6(listen) ? 'udp6' : 'udp4' });
  process.on('SIGHUP', () => {
    try {
      zone = loadZone(zoneFile);
      process.stdout.write(`reloaded zone=${zoneFile} names=${zone.records.size}\n`);
    } catch (err) {
      process.stderr.write(`dns-server: keeping the previous zone: ${describeError(err)}\n`);
    }
  });
  /** @param {Buffer} packet @param {string} client @returns {Buffer | undefined} */
  const respond = (packet, client) => {
    try {
      const query = parseQuery(packet);
      return query === undefined ? undefined : answer(zone, query, client);
    } catch (err) {
      // A packet we failed to foresee is dropped like any other malformed one.
      process.stderr.write(`dns-server: dropped a packet: ${describeError(err)}\n`);
      return undefined;
    }
  };
  socket.on('message', (packet, from) => {
    const reply = respond(packet, from.address);
    if (reply !== undefined) socket.send(reply, from.port, from.address);
  });
  // DNS over TCP: each message behind a two-byte length (RFC 1035 4.2.2).
  const tcp = createServer((conn) => {
    let pending = Buffer.alloc(0);
    conn.setTimeout(10_000, () => conn.destroy());
    conn.on('error', () => conn.destroy());
    conn.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const size = pending.readUInt16BE(0);
        if (pending.length < 2 + size) break;
        const reply = respond(pending.subarray(2, 2 + size), conn.remoteAddress ?? '');
        pending = pending.subarray(2 + size);
        if (reply === undefined) continue;
        const length = Buffer.alloc(2);
        length.writeUInt16BE(reply.length);
        conn.write(Buffer.concat([length, reply]));
      }
    });
  });
  for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) {
    process.once(signal, () => {
      socket.close();
      tcp.close();
      process.exit(0);
    });
  }
  /** @param {string} proto @returns {(err: Error) => never} */
  const onBindError = (proto) => (err) =>
    exitWith(
      'dns-server',
      `cannot bind ${proto} on ${formatHostPort(listen, port)}: ${err.message}`,
      1,
    );
  socket.once('error', onBindError('udp'));
  socket.bind(port, listen, () => {
    socket.removeAllListeners('error');
    socket.on('error', (err) => process.stderr.write(`dns-server: udp: ${err.message}\n`));
    const bound = socket.address().port;
    tcp.once('error', onBindError('tcp'));
    tcp.listen(bound, listen, () => {
      tcp.removeAllListeners('error');
      tcp.on('error', (err) => process.stderr.write(`dns-server: tcp: ${err.message}\n`));
      process.stdout.write(`listening dns=${formatHostPort(listen, bound)}\n`);
    });
  });
}

main();
