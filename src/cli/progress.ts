// Progress of a long command: a bar redrawn in place on a terminal, plain lines otherwise (logs, pipes, CI).
import { formatByteSize } from '../lib/text/sizes.js';

const BAR_WIDTH = 24;
/** Redraws at most this often (a fast import would otherwise spend its time drawing). */
const REDRAW_MS = 100;

export class Progress {
  private doneBytes = 0;
  private doneItems = 0;
  private lastDraw = 0;
  private readonly tty: boolean;

  constructor(
    private readonly totalItems: number,
    private readonly totalBytes: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = out.isTTY === true;
  }

  /** Bytes of the current item went through. */
  advance(bytes: number): void {
    this.doneBytes += bytes;
    if (this.tty && Date.now() - this.lastDraw >= REDRAW_MS) this.draw();
  }

  /** An item is finished (or failed): `line` says how; on a terminal it goes above the bar. */
  itemDone(line: string): void {
    this.doneItems++;
    if (this.tty) this.out.write(`\r\u001b[2K${line}\n`);
    else this.out.write(`[${this.doneItems}/${this.totalItems}] ${line}\n`);
    if (this.tty) this.draw();
  }

  /** Clears the bar (a terminal's last line). */
  finish(): void {
    if (this.tty) this.out.write('\r\u001b[2K');
  }

  private draw(): void {
    this.lastDraw = Date.now();
    const ratio = this.totalBytes === 0 ? 1 : Math.min(1, this.doneBytes / this.totalBytes);
    const filled = Math.round(ratio * BAR_WIDTH);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}`;
    this.out.write(
      `\r\u001b[2K[${bar}] ${Math.floor(ratio * 100)}% ${this.doneItems}/${this.totalItems} files ` +
        `${formatByteSize(this.doneBytes)} of ${formatByteSize(this.totalBytes)}`,
    );
  }
}
