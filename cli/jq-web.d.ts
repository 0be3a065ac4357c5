// jq-web 0.6.2 ships no types: the module's export is a promise of jq compiled to WebAssembly.
declare module "jq-web" {
  interface Jq {
    /**
     * `echo <json> | jq <flags> <filter>`: jq's stdout; throws an Error whose message holds jq's exit code and stderr.
     */
    raw(json: string, filter: string, flags?: string[]): string;
    json(data: unknown, filter: string): unknown;
  }
  const jq: Promise<Jq>;
  export default jq;
}
