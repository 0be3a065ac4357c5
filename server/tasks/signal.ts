// A wake-up for the worker's loops that is not lost when it comes while nobody waits.
export class Signal {
  private pending = false;
  private resolve: (() => void) | undefined;

  fire(): void {
    this.pending = true;
    this.resolve?.();
  }

  wait(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.resolve = undefined;
        this.pending = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.resolve = done;
    });
  }
}

/** Waits for `done`, at most `ms`. */
export async function within(done: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
