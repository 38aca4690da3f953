// Small schema pieces shared by many routes.
import { z } from 'zod';

export const IsoDateTime = z.iso.datetime({ offset: true });
export const Id = z.string().min(1).max(64);
