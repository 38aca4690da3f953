// The error body of the specification, with the code enum listing exactly the specification's codes.
import { z } from 'zod';
import { ERROR_CODES } from '../lib/error-codes.js';

export const ErrorBodySchema = z
  .looseObject({
    error: z.string().describe('E<code>: message, then optional context; for people, not programs'),
    code: z.literal(ERROR_CODES).describe('service error code; use for programmatic handling'),
    statusCode: z.number().int().describe('always the HTTP status of the response'),
  })
  .meta({ id: 'Error' });
