/** A request that ends its connection; the message is logged. */
export class RequestRejected extends Error {}
