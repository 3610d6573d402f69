/** Writes a minimal one-layer OCI image archive, as `ctr images import` reads it (test images). */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandRunner } from '../exec/command-runner.ts';

function blob(dir: string, data: Buffer | string): { digest: string; size: number } {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const hex = createHash('sha256').update(bytes).digest('hex');
  writeFileSync(join(dir, 'blobs', 'sha256', hex), bytes);
  return { digest: `sha256:${hex}`, size: bytes.length };
}

/** An archive of image `ref` whose only layer holds `files`; written to `out`. */
export async function writeOciArchive(
  runner: CommandRunner,
  ref: string,
  files: Record<string, string>,
  out: string,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hl-oci-'));
  try {
    const content = join(dir, 'content');
    mkdirSync(content);
    mkdirSync(join(dir, 'blobs', 'sha256'), { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(content, name), text);
    const layerFile = join(dir, 'layer.tar');
    await runner.run('tar', [
      '--sort=name',
      '--mtime=@0',
      '--owner=0',
      '--group=0',
      '-cf',
      layerFile,
      '-C',
      content,
      ...Object.keys(files),
    ]);
    const layer = blob(dir, readFileSync(layerFile));
    const config = blob(
      dir,
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: {},
        rootfs: { type: 'layers', diff_ids: [layer.digest] },
      }),
    );
    const manifest = blob(
      dir,
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', ...layer }],
      }),
    );
    writeFileSync(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
    writeFileSync(
      join(dir, 'index.json'),
      JSON.stringify({
        schemaVersion: 2,
        manifests: [
          {
            mediaType: 'application/vnd.oci.image.manifest.v1+json',
            ...manifest,
            annotations: { 'io.containerd.image.name': ref },
          },
        ],
      }),
    );
    await runner.run('tar', ['-cf', out, '-C', dir, 'oci-layout', 'index.json', 'blobs']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
