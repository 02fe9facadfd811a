import { ProtocolError } from '../primitives/errors.js';
import { Reader } from '../primitives/reader.js';
import { API_SCHEMAS, ApiKey } from './apis.js';
import { RequestHeader } from './request-header.js';

export interface RequestHeaderInfo {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  /** 1 or 2; -1 when the api key is unknown, as the header layout is then unknown too. */
  headerVersion: number;
  /** Where the request body starts; -1 when the header could not be read past the correlation id. */
  bodyOffset: number;
}

/** Request header version for a known api key (2 for flexible versions), or -1. */
export function requestHeaderVersion(apiKey: number, apiVersion: number): number {
  const api = API_SCHEMAS[apiKey];
  if (api === undefined) return -1;
  return api.flexibleMinVersion >= 0 && apiVersion >= api.flexibleMinVersion ? 2 : 1;
}

export function responseHeaderVersion(apiKey: number, apiVersion: number): number {
  // ApiVersions responses keep header v0 so a client can parse the error of a version it guessed wrong.
  if (apiKey === ApiKey.ApiVersions) return 0;
  return requestHeaderVersion(apiKey, apiVersion) === 2 ? 1 : 0;
}

/**
 * Parses a request frame's header. An unknown api key or an unsupported version still yields apiKey,
 * apiVersion and correlationId so the caller can answer with an error; a supported request whose
 * header is malformed throws ProtocolError.
 */
export function readRequestHeader(buf: Buffer): RequestHeaderInfo {
  const r = new Reader(buf);
  const apiKey = r.readInt16();
  const apiVersion = r.readInt16();
  const correlationId = r.readInt32();
  const headerVersion = requestHeaderVersion(apiKey, apiVersion);
  const unreadable = { apiKey, apiVersion, correlationId, clientId: null, headerVersion, bodyOffset: -1 };
  if (headerVersion < 0) return unreadable;
  const api = API_SCHEMAS[apiKey]!;
  const supported = apiVersion >= api.minVersion && apiVersion <= api.maxVersion;
  try {
    const full = new Reader(buf);
    const h = RequestHeader.read(full, headerVersion);
    return { apiKey, apiVersion, correlationId, clientId: h.clientId, headerVersion, bodyOffset: full.offset };
  } catch (e) {
    if (supported || !(e instanceof ProtocolError)) throw e;
    return unreadable;
  }
}
