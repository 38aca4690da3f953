// The file parts of an upload request, in order, as the upload service reads them.
import type { Multipart, MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { IncomingFile } from '../services/uploads.js';

/**
 * The parts named `file`, in order; other fields and other file parts are drained and skipped. The parser puts no size
 * limit on a file: the upload service enforces the size limit and the quota while it streams (a parser limit would
 * silently truncate).
 */
export async function* uploadFileParts(request: FastifyRequest, maxFiles: number): AsyncGenerator<IncomingFile> {
  const options = {
    limits: { fileSize: Number.MAX_SAFE_INTEGER, files: maxFiles, fields: 100, fieldSize: 64 * 1024 },
    throwFileSizeLimit: false,
  };
  const parts: AsyncIterableIterator<Multipart> = request.parts(options as Parameters<FastifyRequest['parts']>[0]);
  for await (const part of parts) {
    if (part.type !== 'file') continue;
    const file = part as MultipartFile;
    if (file.fieldname !== 'file') {
      file.file.resume();
      continue;
    }
    yield { stream: file.file, fileName: file.filename, mimeType: file.mimetype };
  }
}
