/**
 * The project's documents as shipped with this deployment (docs/, adapters/fs/shipped-docs.ts):
 * read, never written. A path is relative to docs/ (`backoffice/views.md`).
 */
export interface ShippedDocs {
  /** The Markdown files of a folder under docs/ ('' for docs/ itself), by name; none when it was not shipped. */
  list(folder: string): string[];
  /** A document's text, or undefined when it is not there (removed since the start). */
  read(file: string): string | undefined;
}
