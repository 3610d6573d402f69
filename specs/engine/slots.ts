import { setTimeout as delay } from 'node:timers/promises';

/** A bound on how many tasks run at once: each waits for a free slot, first come first served. */
export class Slots {
  readonly #queue: (() => void)[] = [];
  #running = 0;

  constructor(private readonly size: number) {}

  /** Runs `task` once a slot is free. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.size) {
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    }
    this.#running++;
    try {
      return await task();
    } finally {
      this.#running--;
      this.#queue.shift()?.();
    }
  }

  /** Inside `run`: gives the slot up for `ms`, then takes one again, ahead of tasks not yet started. */
  async pause(ms: number): Promise<void> {
    this.#running--;
    this.#queue.shift()?.();
    await delay(ms);
    if (this.#running >= this.size) {
      await new Promise<void>((resolve) => this.#queue.unshift(resolve));
    }
    this.#running++;
  }
}
