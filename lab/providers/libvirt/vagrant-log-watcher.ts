/**
 * Follows a vagrant log while `vagrant up` runs: shows each machine's milestones as progress
 * and records when they happened (boot time = "Starting domain" to "Machine booted and ready").
 */
import { readFileSync } from 'node:fs';
import type { Progress } from '../../log/progress.ts';

/** Vagrant lines worth showing, by what they mean. */
const MILESTONES: readonly [RegExp, string][] = [
  [/Uploading base box image/, 'uploading the box'],
  [/Creating domain with/, 'creating the domain'],
  [/Starting domain/, 'starting'],
  [/Waiting for domain to get an IP/, 'waiting for an IP'],
  [/Waiting for machine to boot/, 'booting'],
  [/Machine booted and ready/, 'booted'],
  [/Configuring and enabling network interfaces/, 'configuring the lab NIC'],
];

export interface MachineEvent {
  machine: string;
  milestone: string;
  /** Milliseconds since the watcher started. */
  atMs: number;
}

export class VagrantLogWatcher {
  readonly events: MachineEvent[] = [];
  readonly #started = performance.now();
  readonly #waiters: { milestone: string; resolve: () => void }[] = [];
  #offset = 0;
  #partial = '';
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string,
    private readonly label: string,
    private readonly progress: Progress,
    private readonly intervalMs = 1000,
  ) {}

  /** Follows from the current end of the file: earlier runs' lines are not this run's. */
  start(): this {
    try {
      this.#offset = readFileSync(this.file, 'latin1').length;
    } catch {
      this.#offset = 0;
    }
    this.#timer = setInterval(() => {
      this.poll();
    }, this.intervalMs);
    return this;
  }

  /** Reads what was appended since the last poll. */
  poll(): void {
    let text: string;
    try {
      text = readFileSync(this.file, 'latin1');
    } catch {
      return;
    }
    const fresh = this.#partial + text.slice(this.#offset);
    this.#offset = text.length;
    const lines = fresh.split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) this.#line(line);
  }

  /** Stops following; pending milestone waits resolve (the run is over either way). */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.poll();
    for (const waiter of this.#waiters.splice(0)) waiter.resolve();
  }

  /** Resolves once any machine logged `milestone` (or the watcher stopped). */
  reached(milestone: string): Promise<void> {
    if (this.events.some((e) => e.milestone === milestone)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ milestone, resolve }));
  }

  /** Milliseconds from `from` to `to` for each machine that logged both. */
  durations(from: string, to: string): Record<string, number> {
    const at = (machine: string, milestone: string) =>
      this.events.find((e) => e.machine === machine && e.milestone === milestone)?.atMs;
    const result: Record<string, number> = {};
    for (const machine of new Set(this.events.map((e) => e.machine))) {
      const a = at(machine, from);
      const b = at(machine, to);
      if (a !== undefined && b !== undefined) result[machine] = Math.round(b - a);
    }
    return result;
  }

  #line(raw: string): void {
    const line = raw.slice(raw.lastIndexOf('\r') + 1); // progress bars redraw with \r
    const match = /^==> ([^:\s]+): (.*)$/.exec(line);
    if (match === null) return;
    const [, machine, message] = match as unknown as [string, string, string];
    const milestone = MILESTONES.find(([pattern]) => pattern.test(message))?.[1];
    if (milestone === undefined) return;
    if (this.events.some((e) => e.machine === machine && e.milestone === milestone)) return;
    this.events.push({ machine, milestone, atMs: performance.now() - this.#started });
    this.progress.info(`${this.label}/${machine}: ${milestone}`);
    for (const waiter of this.#waiters.filter((w) => w.milestone === milestone)) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}
