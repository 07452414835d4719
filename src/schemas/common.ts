import { z } from 'zod';

export const ErrorBody = z
  .object({
    error: z.string().meta({ description: 'Machine-readable error code.' }),
    message: z.string().meta({ description: 'Human-readable explanation.' }),
  })
  .meta({ id: 'Error', description: 'Error envelope used by every endpoint.' });

export const isoDateTime = z.string().meta({ format: 'date-time' });
