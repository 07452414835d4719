import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string, name = 'gateway'): Logger {
  return pino({ name, level, base: { service: name } });
}
