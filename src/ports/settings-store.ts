/** Small platform-wide values (hash of the owner token, master-key check value). */
export interface SettingsStore {
  get(name: string): Promise<string | undefined>;
  /** Writes only when absent; true if this call wrote it. Safe under concurrent starts. */
  putIfAbsent(name: string, value: string): Promise<boolean>;
}
