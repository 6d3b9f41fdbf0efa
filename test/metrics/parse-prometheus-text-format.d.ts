declare module 'parse-prometheus-text-format' {
  export interface PromSample {
    value?: string;
    labels?: Record<string, string>;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  export interface PromFamily {
    name: string;
    help: string;
    type: string;
    metrics: PromSample[];
  }
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
