/**
 * The README's command blocks that CI runs on a clean Debian (ci/clean-debian.sh), read from the
 * README itself so the two cannot drift. The contract, owned here: each block is a fenced ```sh
 * block on the line right after its marker line `<!-- ci:clean-debian NAME -->`.
 *   tsx ci/tools/readme-blocks.ts README.md   prints the bash script that runs every block
 *   (run it with HL_README_DRY_RUN=FILE to list the commands in FILE instead)
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { LabError } from '../../lab/errors.ts';
import { quoteArg } from '../../lab/remote/quote.ts';
import { isMain, runMain } from './run-main.ts';

/** The blocks, in the order a newcomer runs them (and the script does). */
export const CLEAN_DEBIAN_BLOCKS = ['quickstart', 'real-kubernetes'] as const;
export type CleanDebianBlock = (typeof CLEAN_DEBIAN_BLOCKS)[number];

const MARKER = /^<!--\s*ci:clean-debian\s+(\S+)\s*-->$/;

/** The marker line that must precede the block `name`. */
export function cleanDebianMarker(name: CleanDebianBlock): string {
  return `<!-- ci:clean-debian ${name} -->`;
}

export interface ReadmeBlock {
  readonly name: CleanDebianBlock;
  /** 1-based line of the block's first line (after the ```sh). */
  readonly line: number;
  /** The command lines as a user types them (continuations joined, comments and blanks dropped). */
  readonly lines: readonly string[];
}

const isBlock = (name: string): name is CleanDebianBlock =>
  (CLEAN_DEBIAN_BLOCKS as readonly string[]).includes(name);

/** Every marked block of a README, in CLEAN_DEBIAN_BLOCKS order; a broken contract throws naming the line. */
export function readmeBlocks(text: string, source: string): ReadmeBlock[] {
  const lines = text.split('\n');
  const found = new Map<CleanDebianBlock, ReadmeBlock>();
  const fail = (i: number, message: string): never => {
    throw new LabError(`${source}:${i + 1}: ${message}`, {
      hint: `each of ${CLEAN_DEBIAN_BLOCKS.map(cleanDebianMarker).join(', ')} goes on the line right before its \`\`\`sh block`,
    });
  };
  lines.forEach((raw, i) => {
    if (!raw.includes('ci:clean-debian')) return;
    const name = MARKER.exec(raw.trim())?.[1];
    if (name === undefined) fail(i, `a malformed ci:clean-debian marker: ${raw.trim()}`);
    if (!isBlock(name!)) fail(i, `unknown ci:clean-debian block "${name!}"`);
    const block = name as CleanDebianBlock;
    if (found.has(block)) fail(i, `a second ${cleanDebianMarker(block)}`);
    if (lines[i + 1]?.trim() !== '```sh')
      fail(i, `${cleanDebianMarker(block)} is not followed by a \`\`\`sh line`);
    const end = lines.findIndex((l, j) => j > i + 1 && l.trim() === '```');
    if (end < 0) fail(i + 1, `the ${block} block has no closing \`\`\``);
    const commands = commandLines(lines.slice(i + 2, end));
    if (commands.length === 0) fail(i + 1, `the ${block} block holds no command`);
    found.set(block, { name: block, line: i + 3, lines: commands });
  });
  const missing = CLEAN_DEBIAN_BLOCKS.filter((name) => !found.has(name));
  if (missing.length > 0)
    throw new LabError(`${source} lacks ${missing.map(cleanDebianMarker).join(' and ')}`, {
      hint: 'put each marker on the line right before the ```sh block it names',
    });
  return CLEAN_DEBIAN_BLOCKS.map((name) => found.get(name)!);
}

function commandLines(body: readonly string[]): string[] {
  const out: string[] = [];
  let pending = '';
  for (const raw of body) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) pending += `${line.slice(0, -1).trimEnd()} `;
    else {
      out.push(pending + line);
      pending = '';
    }
  }
  if (pending !== '') out.push(pending.trimEnd());
  return out;
}

/**
 * The simple commands of a line joined by `&&`, each timed on its own; a line with anything
 * else a shell would read (quotes, `;`, `|`, `$`, redirections, ...) stays one command.
 */
export function lineCommands(line: string): string[] {
  if (/['"`\\;|$<>(){}]/.test(line) || /&(?!&)/.test(line.replace(/&&/g, ''))) return [line];
  return line.split('&&').map((c) => c.trim());
}

const ALL_TIMES = '"${hl_times[@]}"';
/**
 * Defines hl_run (one command in this shell, its wall time, exit at its failure) and hl_block.
 * With HL_README_DRY_RUN=FILE each command is added to FILE instead of run.
 */
const PRELUDE = String.raw`hl_times=()
hl_summary() {
  printf '\n== wall time of each README command\n'
  printf '  %s\n' ${ALL_TIMES}
}
hl_block() { printf '\n== README block %s (%s)\n' "$1" "$2"; }
hl_run() {
  local began=$EPOCHREALTIME rc=0 took
  printf '\n== $ %s\n' "$1"
  if [ -n "$HL_README_DRY_RUN" ]; then printf '%s\n' "$1" >>"$HL_README_DRY_RUN" && return; fi
  eval "$1" </dev/null || rc=$?
  took=$(awk -v a="$began" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  hl_times+=("$(printf '%7s s  %s' "$took" "$1")")
  if [ "$rc" -ne 0 ]; then
    printf '== FAILED (exit %s) after %s s: %s\n' "$rc" "$took" "$1"
    hl_summary
    exit "$rc"
  fi
  printf '== %s s: %s\n' "$took" "$1"
}
`;

/** A bash script running every block's commands in order in one shell, as a user types them. */
export function runScript(blocks: readonly ReadmeBlock[], source: string): string {
  const body = blocks.flatMap((block) => [
    `hl_block ${block.name} ${quoteArg(`${source}:${block.line}`)}`,
    ...block.lines.flatMap(lineCommands).map((command) => `hl_run ${quoteArg(command)}`),
  ]);
  return `# ${source}'s marked blocks, written by ci/tools/readme-blocks.ts.\n${PRELUDE}${body.join('\n')}\nhl_summary\n`;
}

function main(argv: string[]): void {
  const [file] = argv;
  if (file === undefined || argv.length > 1)
    throw new LabError('usage: readme-blocks.ts README.md');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new LabError(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  process.stdout.write(runScript(readmeBlocks(text, basename(file)), basename(file)));
}

if (isMain(import.meta.url)) await runMain('readme-blocks', main);
