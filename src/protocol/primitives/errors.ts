/** The only error the codec throws for malformed input or unencodable values. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
}
