/**
 * What a service may know of the ambient transaction (decision 0020), without reaching the
 * database: a cache fills only with what has committed (`afterCommit`), and work that must stand
 * on its own refuses to run inside another's transaction (`insideTransaction`).
 */
export { afterCommit, insideTransaction } from '../adapters/sql/ambient.ts';
