// The upload queue: files wait, go up a few at a time (small ones whole, large ones resumable by tus, in chunks), can
// be cancelled and retried. It lives outside React, for the whole visit,
// so that uploads go on while the person looks at other pages; the page reads it with useUploadQueue().
import { useSyncExternalStore } from 'react';
import { uploadErrorMessage } from './upload-errors';
import { uploadResumable, uploadWhole, type UploadedLink } from './transport';

export type UploadStatus = 'queued' | 'uploading' | 'done' | 'failed' | 'cancelled';

export interface UploadItem {
  id: string;
  file: File;
  /** Sent resumable, by tus in chunks (larger than the chunk threshold); resumes after a page reload. */
  chunked: boolean;
  status: UploadStatus;
  /** Bytes of the file sent so far. */
  sent: number;
  /** Bytes per second, over the last few seconds. */
  speed: number;
  chunk?: { index: number; count: number };
  /** What went wrong, in words (status failed). */
  error?: string;
  link?: UploadedLink;
  /** Its link was already copied with a finished batch. */
  announced: boolean;
}

export interface QueueSettings {
  chunksEnabled: boolean;
  chunksThreshold: number;
  chunksSize: number;
}

/** The x-service-* headers for a file, or an Error in words when the options cannot be used. */
export type HeadersSource = () => Record<string, string>;

/** Uploads running at once. Chunks of one file never overlap (the protocol sends them in order). */
const PARALLEL = 3;
const SPEED_WINDOW_MS = 4000;

/** Bytes per second over a sliding window of progress samples. */
class SpeedMeter {
  private samples: Array<{ at: number; sent: number }> = [];

  add(sent: number, at = performance.now()): number {
    this.samples.push({ at, sent });
    while (this.samples.length > 2 && at - this.samples[0]!.at > SPEED_WINDOW_MS) this.samples.shift();
    const first = this.samples[0]!;
    const seconds = (at - first.at) / 1000;
    return seconds < 0.2 ? 0 : Math.max(0, (sent - first.sent) / seconds);
  }
}

let nextId = 0;

export class UploadQueue {
  private items: UploadItem[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly controllers = new Map<string, AbortController>();
  private readonly headers = new Map<string, HeadersSource>();
  private polling = false;
  private emitTimer: number | undefined;
  /** Whose uploads these are (a different user signing in on this tab starts an empty queue). */
  owner: string | null = null;
  settings: QueueSettings = { chunksEnabled: true, chunksThreshold: 95 * 1024 ** 2, chunksSize: 25 * 1024 ** 2 };
  /** Called when nothing is left to do, with the files finished since the last call (to copy their links). */
  onSettled: ((finished: UploadItem[]) => void) | null = null;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  snapshot = (): UploadItem[] => this.items;

  get active(): boolean {
    return this.items.some((i) => i.status === 'queued' || i.status === 'uploading');
  }

  /** Adds files with the options in force now; they start as soon as a slot is free. Returns their ids. */
  add(files: File[], headers: HeadersSource): string[] {
    const { chunksEnabled, chunksThreshold } = this.settings;
    const added = files.map<UploadItem>((file) => ({
      id: `upload-${++nextId}`,
      file,
      chunked: chunksEnabled && file.size > chunksThreshold,
      status: 'queued',
      sent: 0,
      speed: 0,
      announced: false,
    }));
    for (const item of added) this.headers.set(item.id, headers);
    this.items = [...this.items, ...added];
    this.emit();
    this.pump();
    return added.map((item) => item.id);
  }

  cancel(id: string): void {
    const item = this.find(id);
    if (!item || (item.status !== 'queued' && item.status !== 'uploading')) return;
    this.controllers.get(id)?.abort();
    this.controllers.delete(id);
    this.update(id, { status: 'cancelled', speed: 0, sent: 0, chunk: undefined });
    this.pump();
  }

  cancelAll(): void {
    for (const item of this.items) this.cancel(item.id);
  }

  /** Starts a failed or cancelled file again from its first byte, with the options in force now. */
  retry(id: string, headers: HeadersSource): void {
    const item = this.find(id);
    if (!item || (item.status !== 'failed' && item.status !== 'cancelled')) return;
    this.headers.set(id, headers);
    this.update(id, {
      status: 'queued',
      sent: 0,
      speed: 0,
      error: undefined,
      chunk: undefined,
      link: undefined,
      announced: false,
    });
    this.pump();
  }

  remove(id: string): void {
    const item = this.find(id);
    if (!item || item.status === 'uploading') return;
    this.items = this.items.filter((i) => i.id !== id);
    this.headers.delete(id);
    this.emit();
    this.pump();
  }

  /** Forgets the finished, failed and cancelled files. */
  clearFinished(): void {
    this.items = this.items.filter((i) => i.status === 'queued' || i.status === 'uploading');
    this.emit();
  }

  /** Cancels everything and forgets it (another user signed in). */
  reset(owner: string | null): void {
    for (const controller of this.controllers.values()) controller.abort();
    this.controllers.clear();
    this.headers.clear();
    this.items = [];
    this.owner = owner;
    this.emit();
  }

  private find(id: string): UploadItem | undefined {
    return this.items.find((i) => i.id === id);
  }

  private update(id: string, patch: Partial<UploadItem>, soon = false): void {
    this.items = this.items.map((i) => (i.id === id ? { ...i, ...patch } : i));
    if (soon) this.emitSoon();
    else this.emit();
  }

  private emit(): void {
    window.clearTimeout(this.emitTimer);
    this.emitTimer = undefined;
    for (const listener of this.listeners) listener();
  }

  /** Progress events come many times a second: the page redraws at most ten times a second for them. */
  private emitSoon(): void {
    if (this.emitTimer === undefined) this.emitTimer = window.setTimeout(() => this.emit(), 100);
  }

  private pump(): void {
    // run() moves the file out of 'queued' before its first await, so each round sees the queue as it is now.
    while (this.items.filter((i) => i.status === 'uploading').length < PARALLEL) {
      const next = this.items.find((i) => i.status === 'queued');
      if (!next) break;
      void this.run(next.id);
    }
    this.settleIfIdle();
  }

  private settleIfIdle(): void {
    if (this.active) return;
    const finished = this.items.filter((i) => i.status === 'done' && !i.announced);
    if (finished.length === 0) return;
    const ids = new Set(finished.map((i) => i.id));
    this.items = this.items.map((i) => (ids.has(i.id) ? { ...i, announced: true } : i));
    this.emit();
    this.onSettled?.(finished);
  }

  private async run(id: string): Promise<void> {
    const item = this.find(id);
    if (!item) return;
    const controller = new AbortController();
    this.controllers.set(id, controller);
    this.update(id, { status: 'uploading', sent: 0, speed: 0 });
    const meter = new SpeedMeter();
    const onProgress = (sent: number) => {
      if (controller.signal.aborted) return;
      this.update(id, { sent, speed: meter.add(sent) }, true);
    };
    try {
      const options = this.headers.get(id)?.() ?? {};
      if (item.chunked) {
        const link = await uploadResumable(
          item.file,
          options,
          this.settings.chunksSize,
          onProgress,
          (chunk) => this.update(id, { chunk }, true),
          controller.signal,
        );
        this.update(id, { status: 'done', sent: item.file.size, speed: 0, link });
      } else {
        const link = await uploadWhole(item.file, options, onProgress, controller.signal);
        this.update(id, { status: 'done', sent: item.file.size, speed: 0, link });
      }
    } catch (err) {
      // A cancel already moved the item on.
      if (!controller.signal.aborted) this.update(id, { status: 'failed', speed: 0, error: uploadErrorMessage(err) });
    } finally {
      if (this.controllers.get(id) === controller) this.controllers.delete(id);
      this.pump();
    }
  }
}

/** The one queue of this browser tab. */
export const uploadQueue = new UploadQueue();

// Leaving the page while files go up would lose them: the browser asks first.
window.addEventListener('beforeunload', (event) => {
  if (uploadQueue.active) event.preventDefault();
});

export function useUploadQueue(): UploadItem[] {
  return useSyncExternalStore(uploadQueue.subscribe, uploadQueue.snapshot);
}
