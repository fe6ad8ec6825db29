import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** A file's SHA-256 (hex) and size, read as a stream (never whole into memory). */
export async function fileDigest(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}
