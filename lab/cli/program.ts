/** The `lab` command line: every command and option, built without running anything. */
import { spawnSync } from 'node:child_process';
import { Command } from 'commander';
import { LabError } from '../errors.ts';
import { labDown, labReap, labStatus, labUp } from '../lifecycle/lab-lifecycle.ts';
import { openLab } from '../lifecycle/open-lab.ts';
import { planLab, serializePlan } from '../plan/plan-lab.ts';
import { labSpecJsonSchema } from '../spec/lab-spec-schema.ts';
import { loadSpec } from '../spec/load-spec.ts';
import type { LabStore } from '../state/lab-store.ts';
import { parseDuration } from '../text/duration.ts';
import { registerFaultCommands } from './fault-commands.ts';
import { formatStatus } from './format-status.ts';
import { registerHistoryCommands } from './history-commands.ts';

function noSnapshots(name: string, provider: string): LabError {
  return new LabError(`lab ${name} (${provider}) cannot take or restore snapshots`, {
    hint: 'snapshots are of VM labs (provider: libvirt)',
  });
}

/** `lab` over the labs in `store`, printing through `out`. */
export function labProgram(
  store: LabStore,
  out: (text: string) => void = (text) => process.stdout.write(`${text}\n`),
): Command {
  const program = new Command('lab')
    .description('Hybrid Linux + Windows Kubernetes labs and their networking conformance suite')
    .showHelpAfterError();

  program
    .command('up')
    .description('bring a lab up (lab.yaml, else the "hybrid" preset)')
    .option(
      '--spec <file|preset|shorthand>',
      'a spec file, a preset name or k8s-<provider>-<cp>-<lin>-<win>',
    )
    .option('--from <snapshot>', 'return a lab that is up to its snapshot (`lab snapshot`)')
    .option('--lab <name>', 'with --from: the lab (default: $LAB, else .lab/current)')
    .action(async (opts: { spec?: string; from?: string; lab?: string }) => {
      if (opts.from !== undefined) {
        const { name, lab } = await openLab(store, store.resolveName(opts.lab), 'restore');
        if (lab.restore === undefined) throw noSnapshots(name, lab.plan.provider);
        const started = performance.now();
        const took = await lab.restore(opts.from);
        const steps = Object.entries(took).map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`);
        out(
          `lab ${name} is back at snapshot ${opts.from} (${((performance.now() - started) / 1000).toFixed(1)} s: ${steps.join(', ')})`,
        );
        out(formatStatus(lab.plan, await lab.status()));
        return;
      }
      const loaded = loadSpec(opts.spec, process.cwd());
      const started = performance.now();
      const { plan, lab, alreadyUp } = await labUp(loaded, { store });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      out(
        alreadyUp
          ? `lab ${plan.name} is already up with the same plan; nothing to do`
          : `lab ${plan.name} is up (${seconds} s)`,
      );
      out(formatStatus(plan, await lab.status()));
    });

  program
    .command('snapshot')
    .description(
      'snapshot every VM of a lab that is up, memory included; `lab up --from NAME` returns to it',
    )
    .argument('<name>')
    .option('--lab <name>', 'the lab (default: $LAB, else .lab/current)')
    .action(async (snapshot: string, opts: { lab?: string }) => {
      const { name, lab } = await openLab(store, store.resolveName(opts.lab), 'snapshot');
      if (lab.snapshot === undefined) throw noSnapshots(name, lab.plan.provider);
      const { ms } = await lab.snapshot(snapshot);
      out(
        `lab ${name}: snapshot ${snapshot} of ${lab.plan.nodes.length} nodes (${(ms / 1000).toFixed(1)} s)`,
      );
    });

  program
    .command('down')
    .description('remove everything the lab created')
    .option('--lab <name>', 'the lab (default: $LAB, else .lab/current)')
    .action(async (opts: { lab?: string }) => {
      const name = store.resolveName(opts.lab);
      const swept = await labDown(name, { store });
      out(`lab ${name} is down${swept.length > 0 ? `; swept ${swept.length} leftovers` : ''}`);
    });

  program
    .command('status')
    .description('show the nodes of a lab and whether they are ready')
    .option('--lab <name>', 'the lab (default: $LAB, else .lab/current)')
    .option('--json', 'print the status as JSON')
    .action(async (opts: { lab?: string; json?: boolean }) => {
      const name = store.resolveName(opts.lab);
      const status = await labStatus(name, { store });
      out(
        opts.json === true
          ? JSON.stringify(status, null, 2)
          : formatStatus(store.readPlan(name), status),
      );
      if (!status.ready) process.exitCode = 1;
    });

  program
    .command('plan')
    .description('print the plan of a spec; creates nothing')
    .option('--spec <file|preset|shorthand>', 'a spec file, a preset name or a shorthand')
    .action((opts: { spec?: string }) => {
      const loaded = loadSpec(opts.spec, process.cwd());
      process.stdout.write(serializePlan(planLab(loaded.spec, loaded.source)));
    });

  program
    .command('reap')
    .description('remove leftovers of labs that are not up, found by the lab id stamped on them')
    .option('--lab <name>', 'only this lab (also when it is up)')
    .option(
      '--older-than <age>',
      "on a cluster others share: also others' runs older than this (30m, 6h, 2d); without it, only your own",
    )
    .action(async (opts: { lab?: string; olderThan?: string }) => {
      const removed = await labReap({
        store,
        ...(opts.lab === undefined ? {} : { labId: `hl-${opts.lab}` }),
        ...(opts.olderThan === undefined
          ? {}
          : { olderThanMs: parseDuration(opts.olderThan, '--older-than') }),
      });
      for (const line of removed) out(`removed ${line}`);
      out(`reaped ${removed.length} resources`);
    });

  program
    .command('schema')
    .description('print the JSON Schema of the lab spec (for editor completion)')
    .action(() => {
      out(JSON.stringify(labSpecJsonSchema(), null, 2));
    });

  program
    .command('ssh')
    .description('open a shell on a node, or run a command there (lab ssh NODE -- CMD...)')
    .argument('<node>')
    .argument('[command...]')
    .option('--lab <name>', 'the lab (default: $LAB, else .lab/current)')
    .action(async (node: string, command: string[], opts: { lab?: string }) => {
      const name = store.resolveName(opts.lab);
      const { lab } = await openLab(store, name, 'ssh');
      if (command.length > 0) {
        const result = await lab.nodeShell(node).exec(command, { check: false });
        process.stdout.write(result.stdout);
        process.stderr.write(result.stderr);
        process.exitCode = result.exitCode;
        return;
      }
      const [file, ...args] = lab.shellCommand(node);
      process.exitCode = spawnSync(file!, args, { stdio: 'inherit' }).status ?? 1;
    });

  program
    .command('provision')
    .description('(re-)provision a kubeadm lab that is up; a second run changes nothing')
    .option('--lab <name>', 'the lab (default: $LAB, else .lab/current)')
    .option(
      '--ssh-config <file>',
      'SSH targets (default: the ssh_config the libvirt provider wrote)',
    )
    .option('--preflight', 'only list what the artifact cache lacks, and where to get it')
    .action(async (opts: { lab?: string; sshConfig?: string; preflight?: boolean }) => {
      // Loaded on use: provisioning code is only needed by kubeadm labs.
      const { provisionCommand, provisionPreflight } = await import('./provision-command.ts');
      const name = store.resolveName(opts.lab);
      if (opts.preflight === true) {
        const missing = await provisionPreflight(store, name);
        out(missing.length === 0 ? 'the artifact cache is complete' : missing.join('\n'));
        if (missing.length > 0) process.exitCode = 1;
        return;
      }
      const result = await provisionCommand(store, name, opts.sshConfig);
      out(`lab ${name} provisioned: ${result.changed} changes; kubeconfig ${result.kubeconfig}`);
    });

  registerFaultCommands(program, store);
  registerHistoryCommands(program);
  return program;
}
