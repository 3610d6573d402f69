/** The pod helper and workload programs a VM node runs its pods with, installed over its NodeShell. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NodeShell } from '../../remote/node-shell.ts';
import { VM_PATHS } from './shell-pod-runtime.ts';
import { WORKLOAD_FILES, workloadPath } from './workload-programs.ts';

const POD_HELPER = fileURLToPath(new URL('pod-helper.sh', import.meta.url));

/** Node one-liner that writes {path: {text, mode}} from stdin, each file atomically. */
const WRITE_FILES =
  "const fs=require('fs'),p=require('path');" +
  "for(const [f,{text,mode}] of Object.entries(JSON.parse(fs.readFileSync(0,'utf8')))){" +
  "fs.mkdirSync(p.dirname(f),{recursive:true});fs.writeFileSync(f+'.tmp',text,{mode});fs.renameSync(f+'.tmp',f)}";

/** The files a VM node needs, keyed by their path on the node. */
export function nodeProgramFiles(): Record<string, { text: string; mode: number }> {
  const files: Record<string, { text: string; mode: number }> = {
    [VM_PATHS.helper]: { text: readFileSync(POD_HELPER, 'utf8'), mode: 0o755 },
  };
  for (const file of WORKLOAD_FILES) {
    files[join(VM_PATHS.workloads.dir, file)] = {
      text: readFileSync(workloadPath(file), 'utf8'),
      mode: 0o644,
    };
  }
  return files;
}

/** Copies the pod helper and workload programs in one call (the VM's own node writes them). */
export async function installNodePrograms(shell: NodeShell): Promise<void> {
  await shell.exec([VM_PATHS.workloads.node, '-e', WRITE_FILES], {
    input: JSON.stringify(nodeProgramFiles()),
  });
}
