// @ts-check
/** Command-line helpers shared by the pod workload programs; built-ins only, so they start fast. */

import { isIPv6 } from 'node:net';

/** The command line cannot be run as given; programs report it and exit 2. */
export class UsageError extends Error {
  /** @override */
  name = 'UsageError';
}

/**
 * @typedef {object} CommandLine
 * @property {string[]} positionals arguments that are not flags, in order
 * @property {Map<string, string>} flags flag values keyed by name without the leading dashes
 */

/**
 * Splits argv into positionals and `--name value` / `--name=value` flags; every flag takes a value.
 * @param {readonly string[]} argv
 * @param {readonly string[]} known flag names the program accepts, without dashes
 * @returns {CommandLine}
 */
export function parseCommandLine(argv, known) {
  /** @type {string[]} */
  const positionals = [];
  /** @type {Map<string, string>} */
  const flags = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!known.includes(name)) throw new UsageError(`unknown flag --${name}`);
    if (flags.has(name)) throw new UsageError(`flag --${name} given twice`);
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new UsageError(`flag --${name} needs a value`);
    flags.set(name, value);
  }
  return { positionals, flags };
}

/**
 * Parses a decimal integer and checks it lies in [min, max].
 * @param {string} text
 * @param {string} what names the flag or argument in the error message
 * @param {number} min
 * @param {number} max
 * @returns {number}
 */
export function parseIntInRange(text, what, min, max) {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${what} must be an integer from ${min} to ${max}, got '${text}'`);
  }
  return value;
}

/**
 * Formats an address as Go's net.JoinHostPort does (agnhost compatibility), dropping the
 * `::ffff:` prefix dual-stack sockets put on IPv4 peers.
 * @param {string} address
 * @param {number} port
 * @returns {string}
 */
export function formatHostPort(address, port) {
  const host = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  return isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The message of anything thrown, for one-line logs.
 * @param {unknown} err
 * @returns {string}
 */
export function describeError(err) {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Prints `program: message` to stderr and exits.
 * @param {string} program
 * @param {string} message
 * @param {number} code
 * @returns {never}
 */
export function exitWith(program, message, code) {
  process.stderr.write(`${program}: ${message}\n`);
  process.exit(code);
}

/**
 * Runs an option parser, turning a UsageError into the message, the usage text and exit 2.
 * @template T
 * @param {string} program
 * @param {string} usage
 * @param {() => T} parse
 * @returns {T}
 */
export function parseOrExit(program, usage, parse) {
  try {
    return parse();
  } catch (err) {
    if (err instanceof UsageError) exitWith(program, `${err.message}\n${usage}`, 2);
    throw err;
  }
}
