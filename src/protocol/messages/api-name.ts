/** How logs and messages name a Kafka API: by its name, as Kafka's `ApiKeys.name` and its documentation do, not its key. */
import { API_SCHEMAS } from './apis.js';

/** "Produce", or "api key 99" for a key no Kafka API has here. */
export function apiName(apiKey: number): string {
  return API_SCHEMAS[apiKey]?.name ?? `api key ${apiKey}`;
}

/** "Produce v2". */
export function apiVersionName(apiKey: number, version: number): string {
  return `${apiName(apiKey)} v${version}`;
}
