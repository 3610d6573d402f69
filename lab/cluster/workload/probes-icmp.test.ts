/**
 * The icmp probe of probes.mjs run in this process (probe.test.ts runs them as probe.mjs, a child
 * process; probes-usage.test.ts checks their arguments): the whole line each reports, against
 * servers on 127.0.0.1 started here. The system's ping is stood in for by a script on PATH,
 * /etc/resolv.conf by a stubbed readFileSync.
 */
import { expect } from 'chai';
import fs, { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runProbe } from './probes.mjs';
import { untimed } from '../../testing/probes-fixtures.ts';

describe('runProbe (in this process)', function () {
  this.timeout(10_000);

  describe('icmp (a stand-in ping on PATH)', () => {
    const bin = mkdtempSync(join(tmpdir(), 'hl-fake-ping-'));
    const argsFile = join(bin, 'args');
    const pidFile = join(bin, 'pid');
    let path: string | undefined;
    const stdout = {
      reply:
        'PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.\n64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.04 ms\n',
      silence:
        'PING 10.0.0.9 (10.0.0.9) 56(84) bytes of data.\n\n--- 10.0.0.9 ping statistics ---\n1 packets transmitted, 0 received, 100% packet loss, time 0ms\n',
    };
    const ping = async (mode: string, ...argv: string[]) => {
      process.env.FAKE_PING_MODE = mode;
      const run = await runProbe(['icmp', ...argv]);
      return { ...run, line: untimed(run.line) };
    };

    before(() => {
      writeFileSync(join(bin, 'reply.out'), stdout.reply);
      writeFileSync(join(bin, 'silence.out'), stdout.silence);
      writeFileSync(
        join(bin, 'ping'),
        [
          '#!/bin/sh',
          `echo "$*" > ${argsFile}`,
          `dir=${bin}`,
          'case "$FAKE_PING_MODE" in',
          '  reply) cat "$dir/reply.out"; exit 0 ;;',
          '  silence) cat "$dir/silence.out"; exit 1 ;;',
          '  bad-host) echo "ping: nosuch: Name or service not known" >&2; exit 2 ;;',
          '  quiet-failure) exit 2 ;;',
          `  hang) echo $$ > ${pidFile}; exec sleep 30 ;;`,
          'esac',
          'exit 3',
        ].join('\n'),
      );
      chmodSync(join(bin, 'ping'), 0o755);
      path = process.env.PATH;
      process.env.PATH = `${bin}:${path ?? ''}`;
    });
    after(() => {
      process.env.PATH = path;
      delete process.env.FAKE_PING_MODE;
      fs.rmSync(bin, { recursive: true, force: true });
    });

    it("asks one echo, waiting the probe's deadline in whole seconds (at least one)", async () => {
      expect(await ping('reply', '127.0.0.1', '--timeout-ms', '2500')).to.deep.equal({
        line: { kind: 'icmp', result: 'ok', peer: '127.0.0.1' },
        code: 0,
        lingering: false,
      });
      expect(readFileSync(argsFile, 'utf8')).to.equal('-n -c 1 -W 3 -w 3 127.0.0.1\n');
      await ping('reply', '127.0.0.1', '--timeout-ms', '200');
      expect(readFileSync(argsFile, 'utf8')).to.equal('-n -c 1 -W 1 -w 1 127.0.0.1\n');
      await ping('reply', '127.0.0.1');
      expect(readFileSync(argsFile, 'utf8')).to.equal('-n -c 1 -W 3 -w 3 127.0.0.1\n');
    });

    it("reads ping's exit 1 (no reply) from its output", async () => {
      expect((await ping('silence', '10.0.0.9')).line).to.deep.equal({
        kind: 'icmp',
        result: 'timeout',
        error:
          'no echo reply (--- 10.0.0.9 ping statistics ---; 1 packets transmitted, 0 received, 100% packet loss, time 0ms)',
      });
    });

    it("reports any other failing exit as an error with ping's complaint, or the exit", async () => {
      expect((await ping('bad-host', 'nosuch')).line).to.deep.equal({
        kind: 'icmp',
        result: 'error',
        error: 'ping: ping: nosuch: Name or service not known',
      });
      expect((await ping('quiet-failure', '10.0.0.9')).line).to.deep.equal({
        kind: 'icmp',
        result: 'error',
        error: 'ping: Command failed: ping -n -c 1 -W 3 -w 3 10.0.0.9\n',
      });
    });

    it('kills a ping that outlives the deadline', async () => {
      fs.rmSync(pidFile, { force: true });
      expect(await ping('hang', '10.0.0.9', '--timeout-ms', '300')).to.deep.equal({
        line: { kind: 'icmp', result: 'timeout', error: 'no answer within 300 ms' },
        code: 1,
        lingering: true,
      });
      const pid = Number(readFileSync(pidFile, 'utf8'));
      const alive = () => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(status(pid));
      try {
        for (let waited = 0; alive() && waited < 2000; waited += 50) await sleep(50);
        expect(alive(), 'the stand-in ping still runs').to.equal(false);
      } finally {
        if (alive()) process.kill(pid, 'SIGKILL');
      }
    });

    it('reports a probe that throws as an error, with nothing left behind', async () => {
      expect(await ping('reply', '127.0.0.1\0', '--timeout-ms', '2000')).to.deep.equal({
        line: {
          kind: 'icmp',
          result: 'error',
          error:
            "The argument 'args[7]' must be a string without null bytes. Received '127.0.0.1\\x00'",
        },
        code: 1,
        lingering: false,
      });
    });
  });
});

/** /proc/PID/status, or '' once it is gone. */
function status(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}
