/** Copies the artifacts a node needs from the host cache, skipping files it already has. */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { NodeOs } from '../plan/lab-plan.ts';
import { scriptCommand, STAGE, type ProvisionShell } from './step-runner.ts';

const hashes = new Map<string, string>();

/** sha256 of a local file, remembered by path, size and mtime (several nodes share a cache). */
export async function fileSha256(path: string): Promise<string> {
  const stat = statSync(path);
  const key = `${path}:${stat.size}:${stat.mtimeMs}`;
  const known = hashes.get(key);
  if (known !== undefined) return known;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  const hex = hash.digest('hex');
  hashes.set(key, hex);
  return hex;
}

/** Every file below `relDir` of the cache (e.g. the Debian repository), relative to the cache. */
export function filesBelow(cacheDir: string, relDir: string): string[] {
  const dir = join(cacheDir, ...relDir.split('/'));
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => `${relDir}/${d.name}`)
    .sort();
}

/** `sha256  path` lines, as sha256sum and artifact-hashes.ps1 print them. */
export function parseHashList(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([a-fA-F0-9]{64})\s+\*?(.+)$/.exec(line.trim());
    if (match !== null) map.set(match[2]!.replace(/\\/g, '/'), match[1]!.toLowerCase());
  }
  return map;
}

/**
 * Makes `files` (relative to `cacheDir`) present and identical under the node's artifact folder.
 * Returns how many were uploaded.
 */
export async function syncArtifacts(
  shell: ProvisionShell,
  os: NodeOs,
  cacheDir: string,
  files: readonly string[],
): Promise<number> {
  const dirs = [...new Set(files.map((f) => posix.dirname(f)))].sort();
  const script = os === 'linux' ? 'artifact-hashes.sh' : 'artifact-hashes.ps1';
  const listing = await shell.exec(scriptCommand(os, script, dirs), {
    timeoutMs: 10 * 60_000,
  });
  const remote = parseHashList(listing.stdout);
  const stale: string[] = [];
  // What the cache lacks stays missing: the preflight reports it, the node script names it.
  for (const file of files.filter((f) => existsSync(join(cacheDir, ...f.split('/'))))) {
    if (remote.get(file) !== (await fileSha256(join(cacheDir, ...file.split('/')))))
      stale.push(file);
  }
  for (const dir of dirs) {
    const batch = stale.filter((f) => posix.dirname(f) === dir);
    if (batch.length === 0) continue;
    const target =
      os === 'linux'
        ? `${STAGE.linux}/artifacts/${dir}/`
        : `${STAGE.windows}\\artifacts\\${dir.replace(/\//g, '\\')}\\`;
    await shell.upload(
      batch.map((f) => join(cacheDir, ...f.split('/'))),
      target,
      { timeoutMs: 30 * 60_000 },
    );
  }
  return stale.length;
}
