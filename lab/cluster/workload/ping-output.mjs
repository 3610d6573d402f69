// @ts-check
/**
 * What one ping said, from its output: iputils `ping -n -c 1` on Linux (pods here, agnhost's
 * Debian image) and Windows' `ping.exe -n 1`. Built-ins only, like every workload file.
 */

/**
 * @typedef {object} PingOutcome
 * @property {'ok' | 'timeout' | 'unreachable'} result
 * @property {string} [peer] the address the echo reply came from
 * @property {string} [error] why there was no reply
 */

/**
 * Reads one ping's output: a reply names the address it came from; a "Destination … Unreachable"
 * (from a router or the source's own stack) is unreachable; silence is a timeout.
 * @param {string} output stdout (and stderr) of the ping
 * @returns {PingOutcome}
 */
export function parsePing(output) {
  const unreachable =
    /(?:From|Reply from) [\d.]+:?[^\r\n]*Destination (?:host|net)[^\r\n]*unreachable/i.exec(output);
  if (unreachable !== null) {
    return { result: 'unreachable', error: unreachable[0].trim() };
  }
  const linux = /^\d+ bytes from ([\d.]+):/m.exec(output);
  if (linux !== null) return { result: 'ok', peer: linux[1] };
  const windows = /^Reply from ([\d.]+): bytes=/m.exec(output);
  if (windows !== null) return { result: 'ok', peer: windows[1] };
  const said = output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(-2)
    .join('; ');
  return { result: 'timeout', error: `no echo reply${said === '' ? '' : ` (${said})`}` };
}
