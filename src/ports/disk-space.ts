/** The disk as the health check reads it (adapters/fs/disk-space.ts). */
export interface DiskSpace {
  /** The free and total bytes of the file system that holds `path`; throws when it cannot be read. */
  space(path: string): Promise<{ freeBytes: number; totalBytes: number }>;
  /** A file's size in bytes, 0 when it is not there. */
  size(path: string): Promise<number>;
}
