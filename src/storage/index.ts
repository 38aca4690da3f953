// Builds the configured datasource (DATASOURCE=local|s3) and prepares its folders.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Datasource } from './datasource.js';
import { RESERVED_SEGMENT } from './keys.js';
import { LocalDatasource } from './local.js';
import type { S3Config } from './s3.js';
import { ensureDirectory, sweepTempFiles } from './temp.js';

export type { AppendState, ByteRange, Datasource, ObjectInfo } from './datasource.js';
export { InvalidStorageKeyError, StorageNotFoundError } from './datasource.js';
export { sweepTempFiles } from './temp.js';

type StorageConfig = S3Config & Pick<Config, 'DATA_DIR' | 'DATASOURCE' | 'UPLOADS_DIR' | 'UPLOADS_FSYNC'>;

/** DATA_DIR/tmp: temp files of puts, local append-style uploads and S3 spools. */
export function storageTempDir(config: Pick<Config, 'DATA_DIR'>): string {
  return path.join(path.resolve(config.DATA_DIR), 'tmp');
}

/**
 * Creates the datasource and its folders, and removes the temp files of puts that a previous process of this
 * instance left behind (call it once at start-up, before accepting uploads). `instanceId` tags the temp files, so
 * that instances sharing a temp folder (a shared DATA_DIR, or UPLOADS_DIR on another filesystem) never sweep each
 * other's puts in progress.
 */
export async function createDatasource(
  config: StorageConfig,
  options: { instanceId?: string } = {},
): Promise<Datasource> {
  const fsync = config.UPLOADS_FSYNC;
  const owner = options.instanceId;
  const tmpDir = storageTempDir(config);
  await ensureDirectory(tmpDir, fsync);
  await sweepTempFiles(tmpDir, owner);
  if (config.DATASOURCE === 's3') {
    const { S3Datasource } = await import('./s3.js');
    return S3Datasource.create(config, tmpDir);
  }
  const root = path.resolve(config.UPLOADS_DIR ?? path.join(config.DATA_DIR, 'uploads'));
  await ensureDirectory(root, fsync);
  // Publishing is a rename, which only works within one filesystem: when UPLOADS_DIR is on another one, keep the
  // temp files in a reserved folder inside it instead.
  const sameFilesystem = (await stat(root)).dev === (await stat(tmpDir)).dev;
  // Chunks are kept inside the uploads folder: instances that share it (behind a load balancer) then share the
  // chunks of an upload in progress too, and any of them can take the next chunk.
  const local = new LocalDatasource({
    root,
    tmpDir: sameFilesystem ? tmpDir : path.join(root, RESERVED_SEGMENT),
    appendDir: path.join(root, RESERVED_SEGMENT),
    fsync,
    owner,
  });
  await local.init();
  if (local.tmpDir !== tmpDir) await sweepTempFiles(local.tmpDir, owner);
  return local;
}
