// The S3-compatible datasource. put() streams through a multipart upload with a fixed part size and queue, so memory
// stays flat whatever the file size, and aborts it on error so nothing is left. Append-style uploads are S3
// multipart uploads whose state (upload id, parts) is the JSON AppendState; since S3 parts must be >= 5 MiB except
// the last, appended bytes are spooled to a local temp file until a whole part is ready. Between two appends the
// spooled tail is kept in the bucket (under RESERVED_SEGMENT), not on this instance's disk, so that the next chunk may
// reach any instance; the part size follows the client's chunk size where it can, so that tails are rare.
import { constants as fsConstants, createReadStream } from 'node:fs';
import { open, stat, truncate, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, Writable, pipeline as pipelineCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Config } from '../config.js';
import {
  InvalidStorageKeyError,
  StorageNotFoundError,
  type AppendState,
  type ByteRange,
  type Datasource,
  type ObjectInfo,
  type PutInfo,
} from './datasource.js';
import { assertValidKey, assertValidRange, MAX_KEY_LENGTH, RESERVED_SEGMENT, unsatisfiableRange } from './keys.js';
import { isTempName, newTempName, unlinkIfPresent } from './temp.js';

export type S3Config = Pick<
  Config,
  | 'S3_ENDPOINT'
  | 'S3_REGION'
  | 'S3_BUCKET'
  | 'S3_ACCESS_KEY_ID'
  | 'S3_SECRET_ACCESS_KEY'
  | 'S3_FORCE_PATH_STYLE'
  | 'S3_PREFIX'
  | 'S3_PART_SIZE'
  | 'UPLOADS_FSYNC'
>;

/**
 * Parts a put() keeps in flight; memory per put is bounded by about (PUT_QUEUE_SIZE + 1) x part size plus garbage
 * not yet collected (measured: ~100 MiB above the base RSS with 8 MiB parts, the same for 128 MiB and 512 MiB).
 */
const PUT_QUEUE_SIZE = 4;

/** Concurrent connections to S3 (downloads stream through one each). */
const S3_MAX_SOCKETS = 1024;

interface UploadedPart {
  PartNumber: number;
  ETag: string;
}

interface S3AppendState extends AppendState {
  readonly kind: 's3';
  readonly contentType: string;
  readonly uploadId: string;
  /** Size of every part in `parts` (all but the last part of an upload have one size). */
  readonly partSize: number;
  readonly parts: UploadedPart[];
  /**
   * Temp file name holding the bytes after the last part, and how many of its bytes count. Between calls the bytes
   * are in the bucket under spoolObjectKey(spool) when `shared` is true (a call first fetches them into tmpDir), or in
   * tmpDir (states from before shared spools).
   */
  readonly spool: string;
  readonly spooled: number;
  readonly shared?: boolean;
}

/** S3's smallest part (all but the last) and its largest part count. */
const MIN_PART_SIZE = 5 * 1024 * 1024;
const MAX_PART_SIZE = 5 * 1024 ** 3;
const MAX_PARTS = 10_000;

export class S3Datasource implements Datasource {
  readonly kind = 's3' as const;

  private constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
    private readonly partSize: number,
    private readonly tmpDir: string,
    private readonly fsync: boolean,
  ) {}

  /** Connects and checks that the bucket is reachable, so a wrong endpoint, bucket or key stops start-up. */
  get tempDirs(): readonly string[] {
    return [this.tmpDir];
  }

  static async create(config: S3Config, tmpDir: string): Promise<S3Datasource> {
    if (!config.S3_BUCKET) throw new Error('S3_BUCKET is required when DATASOURCE=s3');
    const client = new S3Client({
      region: config.S3_REGION,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
      ...(config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
        ? { credentials: { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY } }
        : {}),
      // Flexible checksums (CRC32 trailers) are not understood by many S3-compatible servers; send what they all know.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A download holds its connection while the client reads; the SDK's default of 50 sockets would make the 51st
      // concurrent download wait for a slow one to finish.
      requestHandler: {
        connectionTimeout: 10_000,
        httpAgent: { keepAlive: true, maxSockets: S3_MAX_SOCKETS },
        httpsAgent: { keepAlive: true, maxSockets: S3_MAX_SOCKETS },
      },
    });
    try {
      await client.send(new HeadBucketCommand({ Bucket: config.S3_BUCKET }));
    } catch (err) {
      client.destroy();
      const where = config.S3_ENDPOINT ?? `AWS ${config.S3_REGION}`;
      throw new Error(`S3 bucket ${config.S3_BUCKET} at ${where} is not usable: ${describeS3Error(err)}`, {
        cause: err,
      });
    }
    return new S3Datasource(
      client,
      config.S3_BUCKET,
      config.S3_PREFIX ?? '',
      config.S3_PART_SIZE,
      tmpDir,
      config.UPLOADS_FSYNC,
    );
  }

  async put(key: string, body: Readable, info: PutInfo): Promise<ObjectInfo> {
    const objectKey = this.objectKey(key);
    // An upload becomes visible when it completes: what must come first comes before it begins.
    try {
      await info.ready;
    } catch (err) {
      body.destroy();
      throw err;
    }
    let size = 0;
    let bodyError: unknown;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        callback(null, chunk);
      },
    });
    pipelineCallback(body, counted, (err) => {
      if (err) bodyError = err;
    });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: objectKey, Body: counted, ContentType: info.contentType },
      partSize: this.partSize,
      queueSize: PUT_QUEUE_SIZE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      body.destroy();
      counted.destroy();
      // lib-storage aborted the multipart upload; report the body's own error when it was the cause.
      throw bodyError ?? err;
    }
    if (bodyError) {
      // Cannot complete after a body error, but be certain nothing stays visible if it raced.
      await this.delete(key);
      throw bodyError;
    }
    return { size };
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const objectKey = this.objectKey(key);
    if (range) assertValidRange(range);
    try {
      const response = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: objectKey,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const body = response.Body;
      if (body instanceof Readable) return body;
      if (body === undefined) return Readable.from([]);
      return Readable.fromWeb(body.transformToWebStream() as never);
    } catch (err) {
      if (isNotFound(err)) throw new StorageNotFoundError(key);
      if (statusOf(err) === 416 && range) {
        const info = await this.stat(key);
        if (info === null) throw new StorageNotFoundError(key);
        throw unsatisfiableRange(key, range, info.size);
      }
      throw err;
    }
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    const objectKey = this.objectKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      return { size: head.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async beginAppend(
    key: string,
    info: { contentType: string; chunkSize?: number; totalSize?: number },
  ): Promise<AppendState> {
    const objectKey = this.objectKey(key);
    const created = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey, ContentType: info.contentType }),
    );
    if (!created.UploadId) throw new Error('S3 did not return an UploadId');
    const state: S3AppendState = {
      kind: 's3',
      key,
      size: 0,
      contentType: info.contentType,
      uploadId: created.UploadId,
      partSize: partSizeFor(this.partSize, info.chunkSize, info.totalSize),
      parts: [],
      spool: newTempName('spool'),
      spooled: 0,
      shared: true,
    };
    return state;
  }

  async append(state: AppendState, body: Readable): Promise<AppendState> {
    const current = this.appendStateOf(state);
    try {
      await this.fetchSpool(current);
      await this.checkSpool(current);
    } catch (err) {
      body.destroy();
      if (current.shared) await unlinkIfPresent(this.spoolPath(current.spool)).catch(() => undefined);
      throw err;
    }
    // Durable whether asked or not (`durable`, tus): when the call resolves, the parts and the tail are in the bucket.
    const sink = new PartSpooler(this, current);
    let next: S3AppendState;
    try {
      await pipeline(body, sink);
      next = await sink.finish();
      if (next.shared && next.spooled > 0) await this.storeSpool(next);
    } catch (err) {
      body.destroy();
      await sink.rollBack();
      if (current.shared) {
        // The tail the call started from is still in the bucket; the local copies go.
        await unlinkIfPresent(this.spoolPath(current.spool)).catch(() => undefined);
        const newer = (sink.currentSpool ?? current.spool) !== current.spool ? sink.currentSpool : undefined;
        if (newer) await this.deleteSpoolObject(newer).catch(() => undefined);
      }
      throw err;
    }
    if (next.shared) {
      await unlinkIfPresent(this.spoolPath(next.spool));
      if (current.spooled > 0 && (next.spool !== current.spool || next.spooled === 0)) {
        await this.deleteSpoolObject(current.spool).catch(() => undefined);
      }
    }
    return next;
  }

  async completeAppend(state: AppendState): Promise<ObjectInfo> {
    const current = this.appendStateOf(state);
    await this.fetchSpool(current);
    await this.checkSpool(current);
    const Key = this.objectKey(current.key);
    const { uploadId: UploadId } = current;
    if (current.parts.length === 0) {
      // Less than one part: a plain PutObject of the spool (S3 refuses a multipart upload without parts).
      await this.client.send(new ListPartsCommand({ Bucket: this.bucket, Key, UploadId })).catch((err: unknown) => {
        throw isNoSuchUpload(err) ? new StorageNotFoundError(current.key) : err;
      });
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key,
          ContentType: current.contentType,
          ContentLength: current.spooled,
          Body: current.spooled > 0 ? this.spoolStream(current.spool, current.spooled) : Buffer.alloc(0),
        }),
      );
      await this.abortUpload(current);
    } else {
      const parts = [...current.parts];
      if (current.spooled > 0) parts.push(await this.uploadSpool(current, parts.length + 1, current.spooled));
      await this.client
        .send(
          new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId, MultipartUpload: { Parts: parts } }),
        )
        .catch((err: unknown) => {
          throw isNoSuchUpload(err) ? new StorageNotFoundError(current.key) : err;
        });
    }
    await unlinkIfPresent(this.spoolPath(current.spool));
    if (current.shared && current.spooled > 0) await this.deleteSpoolObject(current.spool).catch(() => undefined);
    return { size: current.size };
  }

  async abortAppend(state: AppendState): Promise<void> {
    const current = this.appendStateOf(state);
    await this.abortUpload(current);
    await unlinkIfPresent(this.spoolPath(current.spool));
    if (current.shared && current.spooled > 0) await this.deleteSpoolObject(current.spool);
  }

  /** Where a shared spool's bytes wait in the bucket between two calls. */
  private spoolObjectKey(spool: string): string {
    return `${this.prefix}${RESERVED_SEGMENT}/${spool}`;
  }

  /** Puts the state's local spool (its counted bytes) into the bucket. */
  private async storeSpool(state: S3AppendState): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.spoolObjectKey(state.spool),
        ContentLength: state.spooled,
        Body: this.spoolStream(state.spool, state.spooled),
      }),
    );
  }

  /** Brings a shared spool's bytes from the bucket into tmpDir (missing object -> StorageNotFoundError). */
  private async fetchSpool(state: S3AppendState): Promise<void> {
    if (!state.shared || state.spooled === 0) return;
    let body: Readable;
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.spoolObjectKey(state.spool) }),
      );
      body = answer.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) throw new StorageNotFoundError(state.key);
      throw err;
    }
    const handle = await open(this.spoolPath(state.spool), 'w', 0o600);
    await pipeline(body, handle.createWriteStream());
  }

  private async deleteSpoolObject(spool: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.spoolObjectKey(spool) }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  /** Uploads the first `length` bytes of the state's spool file as part `partNumber`. */
  async uploadSpool(
    state: S3AppendState,
    partNumber: number,
    length: number,
    spool = state.spool,
  ): Promise<UploadedPart> {
    const result = await this.client.send(
      new UploadPartCommand({
        Bucket: this.bucket,
        Key: this.objectKey(state.key),
        UploadId: state.uploadId,
        PartNumber: partNumber,
        ContentLength: length,
        Body: this.spoolStream(spool, length),
      }),
    );
    if (!result.ETag) throw new Error(`S3 returned no ETag for part ${partNumber} of ${state.key}`);
    return { PartNumber: partNumber, ETag: result.ETag };
  }

  spoolPath(name: string): string {
    return path.join(this.tmpDir, name);
  }

  get durable(): boolean {
    return this.fsync;
  }

  private spoolStream(name: string, length: number): Readable {
    return createReadStream(this.spoolPath(name), { start: 0, end: length - 1, highWaterMark: 256 * 1024 });
  }

  private async abortUpload(state: S3AppendState): Promise<void> {
    try {
      await this.client.send(
        new AbortMultipartUploadCommand({
          Bucket: this.bucket,
          Key: this.objectKey(state.key),
          UploadId: state.uploadId,
        }),
      );
    } catch (err) {
      if (!isNoSuchUpload(err)) throw err;
    }
  }

  /** The spool must hold at least the counted bytes (fewer means they were lost: the upload is unusable). */
  private async checkSpool(state: S3AppendState): Promise<void> {
    if (state.spooled === 0) return;
    let size: number;
    try {
      size = (await stat(this.spoolPath(state.spool))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StorageNotFoundError(state.key);
      throw err;
    }
    if (size < state.spooled) {
      throw new Error(
        `append-style upload for ${state.key} has lost spooled bytes (${size} of ${state.spooled}); abort it`,
      );
    }
  }

  private objectKey(key: string): string {
    assertValidKey(key);
    const objectKey = `${this.prefix}${key}`;
    if (Buffer.byteLength(objectKey) > MAX_KEY_LENGTH) {
      throw new InvalidStorageKeyError(key, `is longer than ${MAX_KEY_LENGTH} bytes with the prefix ${this.prefix}`);
    }
    return objectKey;
  }

  private appendStateOf(state: AppendState): S3AppendState {
    const s = state as Partial<S3AppendState>;
    const valid =
      s.kind === 's3' &&
      typeof s.uploadId === 'string' &&
      isTempName(s.spool, 'spool') &&
      Array.isArray(s.parts) &&
      isCount(s.spooled) &&
      isCount(s.partSize) &&
      isCount(s.size) &&
      (s.shared === undefined || typeof s.shared === 'boolean') &&
      s.size === s.parts.length * s.partSize + s.spooled;
    if (!valid) throw new TypeError('not the state of an S3 append-style upload');
    assertValidKey(state.key);
    return state as S3AppendState;
  }
}

/**
 * The sink of one append() call: writes the bytes into the spool file after its counted bytes; each time the spool
 * holds a whole part, uploads it as the next part and continues in a fresh spool file. The spool the call started
 * from is only ever written past its counted bytes, so a failed call can be rolled back to exactly the old state.
 */
class PartSpooler extends Writable {
  private spool: string;
  /** The spool file being written (a failed shared call removes a tail it may have stored in the bucket). */
  get currentSpool(): string {
    return this.spool;
  }
  private spooled: number;
  private readonly parts: UploadedPart[];
  private readonly created: string[] = [];
  private handle: FileHandle | undefined;
  /** The write in progress: a failed call waits for it before cleaning up, so nothing is written afterwards. */
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: S3Datasource,
    private readonly start: S3AppendState,
  ) {
    super({ highWaterMark: 256 * 1024 });
    this.spool = start.spool;
    this.spooled = start.spooled;
    this.parts = [...start.parts];
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.pending = this.writeChunk(chunk);
    this.pending.then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.closeHandle().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.closeHandle().then(
      () => callback(error),
      () => callback(error),
    );
  }

  private async writeChunk(chunk: Buffer): Promise<void> {
    const { partSize } = this.start;
    let offset = 0;
    while (offset < chunk.length) {
      if (this.destroyed) throw new Error('append cancelled');
      const piece = chunk.subarray(offset, offset + (partSize - this.spooled));
      const handle = await this.openSpool();
      let written = 0;
      while (written < piece.length) {
        const { bytesWritten } = await handle.write(piece, written, piece.length - written, this.spooled + written);
        written += bytesWritten;
      }
      this.spooled += piece.length;
      offset += piece.length;
      if (this.spooled === partSize) {
        await this.closeHandle();
        this.parts.push(await this.storage.uploadSpool(this.start, this.parts.length + 1, partSize, this.spool));
        this.spool = newTempName('spool');
        this.created.push(this.spool);
        this.spooled = 0;
      }
    }
  }

  private async openSpool(): Promise<FileHandle> {
    this.handle ??= await open(this.storage.spoolPath(this.spool), fsConstants.O_WRONLY | fsConstants.O_CREAT, 0o600);
    return this.handle;
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  /** The state after a successful call: the spool is cut to its counted bytes (and fsynced), replaced ones removed. */
  async finish(): Promise<S3AppendState> {
    const spoolFile = this.storage.spoolPath(this.spool);
    if (this.spooled === 0) await unlinkIfPresent(spoolFile);
    else {
      const handle = await open(spoolFile, fsConstants.O_WRONLY | fsConstants.O_CREAT, 0o600);
      try {
        await handle.truncate(this.spooled);
        if (this.storage.durable) await handle.sync();
      } finally {
        await handle.close();
      }
    }
    for (const name of [this.start.spool, ...this.created]) {
      if (name !== this.spool) await unlinkIfPresent(this.storage.spoolPath(name));
    }
    const { partSize } = this.start;
    return {
      ...this.start,
      parts: this.parts,
      spool: this.spool,
      spooled: this.spooled,
      size: this.parts.length * partSize + this.spooled,
    };
  }

  /** After a failed call: the spool the call started from is cut back to its counted bytes, new spools removed. */
  async rollBack(): Promise<void> {
    await this.pending.catch(() => undefined);
    await this.closeHandle().catch(() => undefined);
    for (const name of this.created) await unlinkIfPresent(this.storage.spoolPath(name)).catch(() => undefined);
    const original = this.storage.spoolPath(this.start.spool);
    if (this.start.spooled > 0) await truncate(original, this.start.spooled).catch(() => undefined);
    else await unlinkIfPresent(original).catch(() => undefined);
  }
}

/**
 * The part size of an append-style upload: the client's chunk size when parts of that size are allowed (then each
 * full chunk is one part and no tail waits between chunks), else the configured one.
 */
function partSizeFor(configured: number, chunkSize?: number, totalSize?: number): number {
  if (chunkSize === undefined || chunkSize < MIN_PART_SIZE || chunkSize > MAX_PART_SIZE) return configured;
  if (totalSize !== undefined && Math.ceil(totalSize / chunkSize) > MAX_PARTS) return configured;
  return chunkSize;
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  return name === 'NoSuchKey' || name === 'NotFound' || (statusOf(err) === 404 && name !== 'NoSuchBucket');
}

function isNoSuchUpload(err: unknown): boolean {
  return (err as { name?: string })?.name === 'NoSuchUpload' || statusOf(err) === 404;
}

function describeS3Error(err: unknown): string {
  const name = (err as { name?: string })?.name ?? 'Error';
  const status = statusOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (status === 404) return `${name}: the bucket does not exist (create it first)`;
  if (status === 403) return `${name}: access denied (check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)`;
  return `${name}${status ? ` (HTTP ${status})` : ''}: ${message}`;
}
