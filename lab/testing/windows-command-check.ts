/**
 * Judges the commands of Windows scripts: each must be defined by the script or a project script
 * it dot-sources, installed by a project script (at the path it is called by), brought by a
 * container image (called from a HostProcess container's sandbox folder), or a Windows Server
 * 2022 built-in. Everything else, and whatever the reader could not tell, is a finding.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuiltinCommand } from '../provision/windows-builtin-commands.ts';
import type { InstalledCommand } from '../provision/windows-installed-commands.ts';
import type { ImageCommand } from '../provision/windows-image-commands.ts';
import { readCommands, type ScriptCommands } from './powershell-commands.ts';
import type { PsParse } from './powershell-parser.ts';
import type { WindowsScript } from './windows-scripts.ts';

export interface CommandCatalogue {
  builtins: readonly BuiltinCommand[];
  installed: readonly InstalledCommand[];
  /** Programs of an image, run by a HostProcess container from its sandbox folder. */
  images: readonly ImageCommand[];
  /** Alias → command, to name what an alias stands for. */
  aliases: Readonly<Record<string, string>>;
}

export interface CommandVerdict {
  /** `origin:line:column: what is wrong`, one per finding. */
  findings: string[];
  /** Lower-case names of the built-in and installed commands that were used. */
  used: Set<string>;
}

/** Checks every script (and every code here-string in it) against the catalogue. */
export function checkCommands(
  parse: PsParse,
  scripts: readonly WindowsScript[],
  catalogue: CommandCatalogue,
  root: string,
): CommandVerdict {
  const verdict: CommandVerdict = { findings: [], used: new Set() };
  const builtins = new Map(catalogue.builtins.map((b) => [b.name.toLowerCase(), b]));
  const installed = new Map(catalogue.installed.map((i) => [i.name.toLowerCase(), i]));
  const images = new Map(catalogue.images.map((i) => [i.name.toLowerCase(), i]));
  const aliases = new Map(
    Object.entries(catalogue.aliases).map(([alias, command]) => [alias.toLowerCase(), command]),
  );

  const judge = (origin: string, dir: string | undefined, read: ScriptCommands): void => {
    const say = (text: string) => verdict.findings.push(`${origin}:${text}`);
    read.problems.forEach(say);
    const functions = new Set([...read.functions, ...sourcedFunctions(parse, root, dir, read)]);
    for (const use of read.uses) {
      const { name, path } = use.target;
      const written = use.written;
      if (use.operator === '.' || name.endsWith('.ps1')) {
        if (dir === undefined || !existsSync(join(root, dir, name)))
          say(`${use.at}: \`${written}\` runs a script that is not in the project next to it`);
        continue;
      }
      if (functions.has(name)) continue;
      const install = installed.get(name);
      if (install !== undefined) {
        verdict.used.add(name);
        const paths = install.paths.map((p) => p.toLowerCase());
        if (path !== undefined && !paths.includes(path))
          say(
            `${use.at}: \`${written}\` is not where ${install.installedBy} puts ${install.name} (${install.paths.join(', ')})`,
          );
        continue;
      }
      const image = images.get(name);
      if (image !== undefined) {
        verdict.used.add(name);
        if (!/^["']?\$env:CONTAINER_SANDBOX_MOUNT_POINT\\/i.test(written))
          say(
            `${use.at}: \`${written}\` runs ${image.name} of ${image.image}: a HostProcess container finds it under $env:CONTAINER_SANDBOX_MOUNT_POINT`,
          );
        continue;
      }
      const builtin = builtins.get(name);
      if (builtin !== undefined) {
        verdict.used.add(name);
        if (path !== undefined && !path.startsWith('c:\\windows\\'))
          say(`${use.at}: \`${written}\` calls the built-in ${name} outside C:\\Windows`);
        const forms = builtin.forms ?? [];
        if (forms.length > 0 && !forms.some((form) => fitsForm(form, use.elements)))
          say(
            `${use.at}: \`${[written, ...use.elements].join(' ')}\` is not a form Microsoft shows for it (${builtin.doc}): ${forms
              .map((form) => {
                const source = builtin.shownBy?.[form];
                return source === undefined ? form : `${form} (shown by ${source})`;
              })
              .join('; ')}`,
          );
        continue;
      }
      const alias = aliases.get(name);
      say(
        alias !== undefined
          ? `${use.at}: \`${written}\` is an alias of ${alias}: write the command's name`
          : `${use.at}: \`${written}\` is not on the list of Windows Server 2022 built-ins (lab/provision/windows-builtin-commands.ts: add it with its Microsoft Learn page if it is one), not installed by a project script (windows-installed-commands.ts), and not defined by the script or what it dot-sources`,
      );
    }
    for (const code of read.embedded)
      judge(`${origin} (code written to ${code.writtenTo})`, dir, code.commands);
  };

  for (const script of scripts) judge(script.origin, script.dir, readCommands(parse, script.text));
  return verdict;
}

/**
 * Whether `elements` (a call's arguments) are `form`'s (`vfpctrl /port <port name> /get-port-state`):
 * the same words after the program's name, case aside, any one argument standing for each `<…>`.
 */
function fitsForm(form: string, elements: readonly string[]): boolean {
  const words = (form.match(/<[^>]*>|\S+/g) ?? []).slice(1);
  return (
    words.length === elements.length &&
    words.every(
      (word, i) => word.startsWith('<') || word.toLowerCase() === elements[i]?.toLowerCase(),
    )
  );
}

/** Functions of the project scripts `read` dot-sources, and of what those dot-source in turn. */
function sourcedFunctions(
  parse: PsParse,
  root: string,
  dir: string | undefined,
  read: ScriptCommands,
  seen = new Set<string>(),
): string[] {
  if (dir === undefined) return [];
  const found: string[] = [];
  for (const use of read.uses.filter((u) => u.operator === '.')) {
    const file = join(root, dir, use.target.name);
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const sourced = readCommands(parse, readFileSync(file, 'utf8'));
    found.push(...sourced.functions, ...sourcedFunctions(parse, root, dir, sourced, seen));
  }
  return found;
}
