/** Where the offset store reports what it met: a torn file moved in, a store it could not write. */
export interface OffsetStoreLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
