import type { CommandIo } from './io.js';
import { compact } from './format.js';

/** A one-line progress bar redrawn on stderr; silent when stderr is not a terminal. */
export class ProgressBar {
  private readonly started = performance.now();
  private drawn = false;

  constructor(
    private readonly io: CommandIo,
    private readonly total: number,
    private readonly unit: string,
  ) {}

  update(done: number): void {
    if (!this.io.interactive) return;
    const width = 30;
    const ratio = Math.min(1, done / this.total);
    const filled = Math.round(ratio * width);
    const seconds = (performance.now() - this.started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    this.io.stderr(
      `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ` +
        `${compact(done)}/${compact(this.total)} ${this.unit} ${compact(rate)}/s `,
    );
    this.drawn = true;
  }

  finish(): void {
    if (this.drawn) this.io.stderr('\n');
  }
}
