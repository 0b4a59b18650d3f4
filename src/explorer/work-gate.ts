// A gate that lets a bounded number of jobs of one kind run at once and queues a bounded number
// more; past that it refuses at once, so that a burst of costly requests (argon2 logins) cannot
// take every core or queue without end.
import { ServiceBusyError } from './envelope.js';

export class WorkGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    /** What the jobs are, for the refusal's message. */
    private readonly kind: string,
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  /** Runs `job` when a slot is free; throws ServiceBusyError (503) when `maxWaiting` jobs already wait. */
  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) {
        throw new ServiceBusyError(`server busy: ${this.waiting.length} ${this.kind} requests are already waiting; retry later`);
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await job();
    } finally {
      // The slot passes straight to the next waiter, so `running` stays counted.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }

  /** Jobs running and waiting now. */
  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
