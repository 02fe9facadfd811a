/**
 * @platformatic/kafka 2.x is built for Node.js 22, and from Node 22 it uses just one API that
 * Node 20 lacks: Promise.withResolvers. Tests on Node 20 supply it before loading the client.
 */
const withResolvers = function <T>() {
  let resolve!: (value: T | PromiseLike<T>) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};
const PromiseWithResolvers = Promise as unknown as { withResolvers?: typeof withResolvers };
PromiseWithResolvers.withResolvers ??= withResolvers;

export * from '@platformatic/kafka';
