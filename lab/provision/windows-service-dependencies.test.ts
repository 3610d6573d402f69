/**
 * The facts catalogue's `service-dependencies`: Stop-Service and Restart-Service refuse a service
 * that running services depend on unless -Force, and -Force stops those too. So every stop or
 * restart of a service some project service depends on is forced, and the script starts the
 * dependents it took down again.
 */
import { expect } from 'chai';
import { windowsScripts } from '../testing/windows-scripts.ts';

/** Code lines of a script: comments left out. */
const code = (text: string) => text.split('\n').filter((l) => !l.trim().startsWith('#'));

/** service → the project's services that depend on it (nssm's DependOnService). */
function dependents(): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const { text } of windowsScripts()) {
    for (const [, service = '', on = ''] of text.matchAll(
      /nssm\S*\s+set\s+(\S+)\s+DependOnService\s+(\S+)/g,
    )) {
      map.set(on, [...(map.get(on) ?? []), service]);
    }
  }
  return map;
}

describe('Windows services and their dependents (facts catalogue: service-dependencies)', () => {
  it('kubelet depends on containerd (the dependency the checks below hold scripts to)', () => {
    expect(dependents().get('containerd')).to.deep.equal(['kubelet']);
  });

  it('every stop or restart of a service others depend on is forced, and its dependents are started again', () => {
    const deps = dependents();
    let checked = 0;
    for (const script of windowsScripts()) {
      const lines = code(script.text);
      lines.forEach((line, i) => {
        const call = /\b(Stop|Restart)-Service\b\s+(?:-Name\s+)?([\w-]+)/.exec(line);
        if (call === null || !deps.has(call[2]!)) return;
        checked++;
        const at = `${script.origin}:${i + 1}: ${line.trim()}`;
        expect(line, `${at} needs -Force`).to.match(/\s-Force\b/);
        const before = lines.slice(0, i).join('\n');
        const after = lines.slice(i + 1).join('\n');
        expect(before, `${at}: records the running dependents first`).to.include(
          `Get-HlRunningDependent ${call[2]!}`,
        );
        expect(after, `${at}: starts them again`).to.match(/Start-HlDependent\b/);
      });
    }
    expect(checked, 'install-containerd.ps1 stops and restarts containerd').to.equal(2);
  });
});
