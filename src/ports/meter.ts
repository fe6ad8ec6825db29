/**
 * What the service counts for Prometheus (docs/operations.md, "Metrics"). Labels are bounded:
 * route templates (never paths), status codes, outcomes from a catalogue, job names; never a
 * tenant, an account or an id. With metrics off (no OPENRAIL_METRICS_TOKEN) the meter is `noMeter`,
 * and the work done per request is what it was before metrics existed.
 */
export interface Meter {
  /** One answered HTTP request: its route template (or `unmatched`), its status and its time. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** Credentials issued. */
  issued(count: number): void;
  /** A hosted or direct verification's outcome: `accepted`, or the first failed link's code. */
  verified(outcome: string): void;
  /** A webhook delivery attempt's result: `delivered`, `failed` (to be retried) or `dead`. */
  delivery(result: 'delivered' | 'failed' | 'dead'): void;
  /** A background job's run. */
  jobRun(job: string, ok: boolean): void;
  /** A mail sent or refused by the transport. */
  mail(ok: boolean): void;
  /** A signature asked of the key backend (`sealed` or `pkcs11`): whether it was made, and its time. */
  signature(backend: string, ok: boolean, seconds: number): void;
  /** A gauge read when scraped (a backlog, a lag, a pool): `read` answers its value, or values by label. */
  gauge(name: string, help: string, read: () => Promise<number | Record<string, number>>, label?: string): void;
  /** The exposition, in Prometheus text; undefined with metrics off. */
  exposition(): Promise<{ contentType: string; text: string } | undefined>;
}

export const noMeter: Meter = {
  request: () => {},
  issued: () => {},
  verified: () => {},
  delivery: () => {},
  jobRun: () => {},
  mail: () => {},
  signature: () => {},
  gauge: () => {},
  exposition: async () => undefined,
};
