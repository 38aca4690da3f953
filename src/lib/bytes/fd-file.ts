// An open file driven through node:fs's callback functions: what FileWriter and the directory fsyncs need of a
// FileHandle, at about half its event-loop cost per call. A FileHandle call costs ~10 us of the main thread (its
// promise-based request and the handle's bookkeeping), a callback call wrapped in a promise ~5 us (a scratch
// benchmark: open, writev, close and rename of 4 KiB files, 32 at a time: 40 -> 21 us of the main thread per file),
// and a small upload makes six of them (bench/RESULTS.md, 2026-11-28).
import { close, fdatasync, fsync, open, rename, writev } from 'node:fs';

/** What FileWriter writes through: a FileHandle, or an FdFile. */
export interface WritableFile {
  writev(buffers: readonly NodeJS.ArrayBufferView[], position: number): Promise<{ bytesWritten: number }>;
  sync(): Promise<void>;
  datasync(): Promise<void>;
  close(): Promise<void>;
}

export class FdFile implements WritableFile {
  /** Set by close(): the number may belong to another file from then on, so no call may use it again. */
  private closed = false;

  private constructor(
    /** The descriptor (for calls this class does not make, while it is open). */
    readonly fd: number,
  ) {}

  static open(file: string, flags: string): Promise<FdFile> {
    return new Promise((resolve, reject) => {
      // A file it creates is the service account's alone (0600), whatever the umask.
      open(file, flags, 0o600, (err, fd) => (err ? reject(err) : resolve(new FdFile(fd))));
    });
  }

  writev(buffers: readonly NodeJS.ArrayBufferView[], position: number): Promise<{ bytesWritten: number }> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(closedError('writev'));
      writev(this.fd, buffers, position, (err, bytesWritten) => (err ? reject(err) : resolve({ bytesWritten })));
    });
  }

  sync(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(closedError('fsync'));
      fsync(this.fd, (err) => (err ? reject(err) : resolve()));
    });
  }

  datasync(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(closedError('fdatasync'));
      fdatasync(this.fd, (err) => (err ? reject(err) : resolve()));
    });
  }

  /** Closes the descriptor; again, does nothing. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve, reject) => {
      close(this.fd, (err) => (err ? reject(err) : resolve()));
    });
  }
}

/** rename() through the callback function (see above). */
export function renameFile(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => {
    rename(from, to, (err) => (err ? reject(err) : resolve()));
  });
}

function closedError(call: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EBADF: bad file descriptor, ${call} (the file is closed)`), {
    code: 'EBADF',
    syscall: call,
  });
}
