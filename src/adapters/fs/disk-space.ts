import { stat, statfs } from 'node:fs/promises';
import type { DiskSpace } from '../../ports/disk-space.ts';

/** The local disk. */
export const localDiskSpace: DiskSpace = {
  async space(path) {
    const fs = await statfs(path);
    return { freeBytes: fs.bavail * fs.bsize, totalBytes: fs.blocks * fs.bsize };
  },
  size: (path) =>
    stat(path).then(
      (s) => s.size,
      () => 0,
    ),
};
