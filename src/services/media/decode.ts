// Decoding untrusted images and videos without risking the server: sharp with its limits (pixels, a timeout, no
// cache, sequential reads), which decodes on libuv's thread pool off the main thread, and ffmpeg in a child process
// with a time limit (killed when it runs over), a memory limit (prlimit, where present) and a cap on its output.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type { SharpOptions } from 'sharp';
import { loadSharp } from '../../lib/lazy-modules.js';

/** Largest image decoded, in pixels (a decompression bomb stops here, before it is decoded). */
export const MAX_INPUT_PIXELS = 100_000_000;
/** Longest a single sharp operation may take. */
export const SHARP_TIMEOUT_SECONDS = 60;
/** Longest ffmpeg may take for one frame. */
export const FFMPEG_TIMEOUT_MS = 30_000;
/** Address space ffmpeg may use. */
export const FFMPEG_MEMORY_BYTES = 1024 ** 3;
/** Largest frame ffmpeg may hand back (PNG). */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;
/** The longer side of a thumbnail, in pixels. */
export const THUMBNAIL_SIZE = 320;

/** The options with which every untrusted image is opened. */
export function imageInputOptions(): SharpOptions {
  return { limitInputPixels: MAX_INPUT_PIXELS, sequentialRead: true, failOn: 'error' };
}

/** A small WebP of an image file (the first frame of an animation), oriented as its EXIF says. */
export async function imageThumbnail(input: string | Buffer): Promise<Buffer> {
  const sharp = await loadSharp();
  const made = sharp(input, imageInputOptions())
    .rotate()
    .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 70 })
    .timeout({ seconds: SHARP_TIMEOUT_SECONDS })
    .toBuffer();
  // libvips starts its worker threads with the first images: from then on they run below the requests.
  setImmediate(lowerImageWorkPriority);
  try {
    return await made;
  } finally {
    lowerImageWorkPriority();
  }
}

/**
 * Niceness of background media work (libvips' worker threads, ffmpeg): on a machine with few cores, making thumbnails
 * must not take the CPU from the requests being answered (uploads keep >= 0.8x of their rate while the queue is busy,
 * bench/thumbnails.ts).
 */
export const BACKGROUND_NICE = 10;
const lowered = new Set<number>();

/**
 * Lowers the CPU priority of libvips' worker threads (Linux: a thread's nice value is its own, set by its thread id).
 * They are a pool shared by all image work of the process; new ones are found on the next call. Best effort.
 */
export function lowerImageWorkPriority(): void {
  if (process.platform !== 'linux') return;
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return;
  }
  for (const task of tasks) {
    const tid = Number(task);
    if (lowered.has(tid)) continue;
    try {
      if (!readFileSync(`/proc/self/task/${task}/comm`, 'utf8').startsWith('libvips')) continue;
      os.setPriority(tid, BACKGROUND_NICE);
      lowered.add(tid);
    } catch {
      // The thread ended meanwhile, or the system refuses: it keeps its priority.
    }
  }
}

export class MediaToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MediaToolError';
  }
}

const availability = new Map<string, boolean>();

/** Whether `ffmpegPath` runs (checked once per path and process). */
export function ffmpegAvailable(ffmpegPath: string): boolean {
  let known = availability.get(ffmpegPath);
  if (known === undefined) {
    const result = spawnSync(ffmpegPath, ['-hide_banner', '-version'], { stdio: 'ignore', timeout: 10_000 });
    known = result.status === 0;
    availability.set(ffmpegPath, known);
  }
  return known;
}

const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p));

/**
 * One frame of a video as PNG bytes, about `atSeconds` in (the first frame when the video is shorter). Rejects with
 * MediaToolError when ffmpeg fails (not a video, truncated, unsupported), runs over its time or output limit, or is
 * aborted through `signal` (the process is killed).
 */
export async function videoFrame(
  ffmpegPath: string,
  input: string,
  signal: AbortSignal,
  atSeconds = 1,
): Promise<Buffer> {
  const frame = await runFfmpeg(ffmpegPath, input, atSeconds, signal);
  if (frame.length > 0 || atSeconds === 0) {
    if (frame.length === 0) throw new MediaToolError('ffmpeg found no video frame');
    return frame;
  }
  return runFfmpeg(ffmpegPath, input, 0, signal).then((f) => {
    if (f.length === 0) throw new MediaToolError('ffmpeg found no video frame');
    return f;
  });
}

function runFfmpeg(ffmpegPath: string, input: string, atSeconds: number, signal: AbortSignal): Promise<Buffer> {
  const args = [
    '-nostdin',
    '-hide_banner',
    '-loglevel',
    'error',
    '-threads',
    '1',
    ...(atSeconds > 0 ? ['-ss', String(atSeconds)] : []),
    '-i',
    input,
    '-map',
    '0:v:0',
    '-frames:v',
    '1',
    '-vf',
    `scale='min(${THUMBNAIL_SIZE * 2},iw)':-2`,
    '-f',
    'image2pipe',
    '-c:v',
    'png',
    'pipe:1',
  ];
  const [command, commandArgs] = PRLIMIT
    ? [PRLIMIT, [`--as=${FFMPEG_MEMORY_BYTES}`, '--', ffmpegPath, ...args]]
    : [ffmpegPath, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) {
      try {
        os.setPriority(child.pid, BACKGROUND_NICE);
      } catch {
        // Best effort, as for the image threads.
      }
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let failure: string | undefined;
    const kill = (why: string) => {
      failure ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(`ffmpeg ran longer than ${FFMPEG_TIMEOUT_MS} ms`), FFMPEG_TIMEOUT_MS);
    const onAbort = () => kill(`stopped: ${String((signal.reason as Error | undefined)?.message ?? 'aborted')}`);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FRAME_BYTES) kill('ffmpeg produced too large a frame');
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    child.on('error', (err) => kill(`ffmpeg could not start: ${err.message}`));
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (failure) return reject(new MediaToolError(failure));
      if (code !== 0) {
        const detail = stderr.trim().split('\n').slice(-3).join(' | ') || `signal ${sig ?? 'none'}`;
        return reject(new MediaToolError(`ffmpeg failed (exit ${code ?? 'none'}): ${detail}`));
      }
      resolve(Buffer.concat(chunks));
    });
  });
}
