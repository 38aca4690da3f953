// A user's export as the API shows it: Zipline's Export shape (size as a string, path the archive's name), and when
// it expires.
import { z } from 'zod';
import { IsoDateTime } from './common.js';

export const ExportSchema = z
  .object({
    id: z.string(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    completed: z.boolean().describe('true once the zip can be downloaded (GET /api/user/export?id=)'),
    path: z.string().describe("the zip's file name"),
    files: z.number().int().describe('how many files the zip holds'),
    size: z.string().describe('bytes of the zip, as a string (as Zipline); "0" until completed'),
    expiresAt: IsoDateTime.describe('when the export is removed'),
  })
  .meta({ id: 'Export' });

export type ExportDto = z.infer<typeof ExportSchema>;
