/** IPv4 address and CIDR arithmetic for the planner. */

export interface Cidr {
  /** Network address as an unsigned 32-bit number. */
  base: number;
  prefix: number;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function isIpv4(text: string): boolean {
  return IPV4.test(text);
}

export function ipToNumber(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

export function numberToIp(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** Parses `a.b.c.d/n`; returns undefined when it is not an IPv4 CIDR. */
export function parseCidr(text: string): (Cidr & { hostBitsSet: boolean }) | undefined {
  const [ip, len, ...rest] = text.split('/');
  if (ip === undefined || len === undefined || rest.length > 0 || !isIpv4(ip)) return undefined;
  if (!/^\d{1,2}$/.test(len) || Number(len) > 32) return undefined;
  const prefix = Number(len);
  const value = ipToNumber(ip);
  const base = value - (value % size({ base: 0, prefix }));
  return { base, prefix, hostBitsSet: base !== value };
}

/** Number of addresses in the block. */
export function size(cidr: Cidr): number {
  return 2 ** (32 - cidr.prefix);
}

export function formatCidr(cidr: Cidr): string {
  return `${numberToIp(cidr.base)}/${cidr.prefix}`;
}

/** The n-th address of the block (0 = network address). */
export function nthAddress(cidr: Cidr, n: number): string {
  return numberToIp(cidr.base + n);
}

export function overlaps(a: Cidr, b: Cidr): boolean {
  return a.base < b.base + size(b) && b.base < a.base + size(a);
}

export function contains(cidr: Cidr, ip: string): boolean {
  const value = ipToNumber(ip);
  return value >= cidr.base && value < cidr.base + size(cidr);
}

/** The index-th sub-block of length `prefix` inside `cidr`. */
export function subnet(cidr: Cidr, prefix: number, index: number): Cidr {
  return { base: cidr.base + index * 2 ** (32 - prefix), prefix };
}
