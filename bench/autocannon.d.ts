// autocannon 9 ships no type declarations; this declares the part of its API bench/ uses.
declare module "autocannon" {
  export interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    headers?: Record<string, string>;
    method?: string;
    /** The request's body (every request the same). */
    body?: string;
    /** Stop after this many requests (instead of a duration). */
    amount?: number;
    /** Per-request setup: return the request to send (a different path or body each time). */
    requests?: Array<{
      method?: string;
      headers?: Record<string, string>;
      setupRequest?: (req: RequestSpec) => RequestSpec;
    }>;
  }

  export interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
  }

  export default function autocannon(opts: Options): Promise<Result>;
}
