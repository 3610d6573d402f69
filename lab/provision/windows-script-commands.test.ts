import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { powerShellParser, type PsParse } from '../testing/powershell-parser.ts';
import { checkCommands } from '../testing/windows-command-check.ts';
import { REPO_ROOT, windowsContainers, windowsScripts } from '../testing/windows-scripts.ts';
import {
  MICROSOFT_SCRIPT_FORMS,
  WINDOWS_BUILTIN_COMMANDS,
  WINDOWS_POWERSHELL_ALIASES,
} from './windows-builtin-commands.ts';
import { WINDOWS_INSTALLED_COMMANDS } from './windows-installed-commands.ts';
import { WINDOWS_IMAGE_COMMANDS } from './windows-image-commands.ts';

const catalogue = {
  builtins: WINDOWS_BUILTIN_COMMANDS,
  installed: WINDOWS_INSTALLED_COMMANDS,
  images: WINDOWS_IMAGE_COMMANDS,
  aliases: WINDOWS_POWERSHELL_ALIASES,
};

describe('commands of the Windows scripts', function () {
  this.timeout(60_000);
  let parse: PsParse;
  before(async () => {
    const loaded = await powerShellParser();
    // Both packages are devDependencies: a missing parser is a broken install, not a skip.
    if ('unavailable' in loaded) expect.fail(loaded.unavailable);
    parse = loaded;
  });

  it('finds every .ps1 file and every script the manifests embed', () => {
    const origins = windowsScripts().map((s) => s.origin);
    expect(origins).to.include.members([
      'vagrant/scripts/windows/common.ps1',
      'vagrant/boxes/windows/scripts/setup-openssh.ps1',
      'manifests/windows/kube-proxy-hostprocess.yaml ConfigMap kube-proxy-windows start.ps1',
      'manifests/windows/flannel-hostprocess.yaml ConfigMap kube-flannel-windows-cfg start.ps1',
    ]);
  });

  it('every command is defined by the project, installed by its scripts, or a documented Windows Server 2022 built-in', () => {
    const { findings } = checkCommands(parse, windowsScripts(), catalogue, REPO_ROOT);
    expect(findings).to.deep.equal([]);
  });

  it('every Windows container starts a known program, and a script only one this check reads', () => {
    const checked = new Set(windowsScripts().map((s) => s.origin));
    const containers = windowsContainers();
    expect(containers.length).to.be.greaterThan(0);
    const known = new Set(
      [...WINDOWS_BUILTIN_COMMANDS, ...WINDOWS_INSTALLED_COMMANDS].map((b) => b.name.toLowerCase()),
    );
    for (const c of containers) {
      const program = c.argv[0]?.split(/[\\/]/).pop()?.toLowerCase() ?? '(the image entrypoint)';
      expect(known.has(program), `${c.origin} runs ${program}`).to.equal(true);
      expect(c.unresolved, `${c.origin}: -File names no ConfigMap script`).to.equal(undefined);
      if (c.runs !== undefined) expect(checked.has(c.runs), c.runs).to.equal(true);
    }
  });

  it('the built-in list names each command once, with its Microsoft Learn page, and only commands in use', () => {
    const names = WINDOWS_BUILTIN_COMMANDS.map((b) => b.name.toLowerCase());
    expect(
      names.filter((n, i) => names.indexOf(n) !== i),
      'listed twice',
    ).to.deep.equal([]);
    for (const b of WINDOWS_BUILTIN_COMMANDS) {
      expect(b.doc, b.name).to.match(/^https:\/\/learn\.microsoft\.com\/en-us\/\S+$/);
      const bare = b.name.toLowerCase().replace(/\.exe$/, '');
      if (b.forms === undefined) {
        expect(b.doc.toLowerCase(), `${b.name}: the page names it`).to.include(
          b.module === 'executable' ? bare : b.name.toLowerCase(),
        );
      } else {
        // A troubleshooting page: the forms it shows, each calling the command itself.
        expect(b.forms, b.name).to.not.be.empty;
        for (const form of b.forms) expect(form.split(' ')[0], form).to.equal(bare);
        // A form the page does not show comes from one of Microsoft's own published scripts.
        for (const [form, source] of Object.entries(b.shownBy ?? {})) {
          expect(b.forms, b.name).to.include(form);
          expect(source, form).to.match(/^https:\/\/github\.com\/microsoft\/SDN\/\S+\.ps1$/);
        }
      }
      expect(Object.keys(WINDOWS_POWERSHELL_ALIASES), `${b.name} is an alias`).to.not.include(
        b.name,
      );
    }
    const { used } = checkCommands(parse, windowsScripts(), catalogue, REPO_ROOT);
    for (const c of windowsContainers()) used.add(c.argv[0]?.toLowerCase() ?? '');
    expect(
      names.filter((n) => !used.has(n)),
      'listed but not used',
    ).to.deep.equal([]);
  });

  it("every form credited to one of Microsoft's debug scripts is a form that script runs today", () => {
    // `<…>` placeholders differ in name only.
    const shape = (form: string) => form.replace(/<[^>]*>/g, '<>');
    for (const b of WINDOWS_BUILTIN_COMMANDS) {
      for (const [form, script] of Object.entries(b.shownBy ?? {})) {
        const shown = (MICROSOFT_SCRIPT_FORMS[script] ?? []).map(shape);
        expect(shown, `${form} is credited to ${script}`).to.include(shape(form));
      }
    }
  });

  it('every installed command names the script that installs it, and that script names its artifact and folder', () => {
    const { used } = checkCommands(parse, windowsScripts(), catalogue, REPO_ROOT);
    for (const command of WINDOWS_INSTALLED_COMMANDS) {
      expect(
        used.has(command.name.toLowerCase()),
        `${command.name} is listed but not used`,
      ).to.equal(true);
      const installer = withLiteralVariables(
        readFileSync(join(REPO_ROOT, command.installedBy), 'utf8'),
      ).toLowerCase();
      for (const artifact of command.from.match(/HL_[A-Z_]+/g) ?? []) {
        expect(installer, `${command.installedBy} installs ${artifact}`).to.include(
          artifact.toLowerCase(),
        );
      }
      for (const path of command.paths) {
        const folder = path.slice(0, path.lastIndexOf('\\')).toLowerCase();
        expect(installer, `${command.installedBy} writes into ${folder}`).to.include(folder);
      }
    }
  });
});

/** The script with `$name` replaced where the script assigns `$name = '<literal>'` once. */
function withLiteralVariables(text: string): string {
  const assignments = [...text.matchAll(/^\s*\$(\w+)\s*=\s*'([^']*)'\s*$/gm)];
  let out = text;
  for (const [, name, value] of assignments) {
    if (assignments.filter((a) => a[1] === name).length !== 1) continue;
    out = out.replace(new RegExp(`\\$${name}(?![\\w:])`, 'g'), () => value!);
  }
  return out;
}
