// How the addons' errors carry a stable code across N-API: Rust raises `[CODE] text` (svc-napi's
// coded_error, svc-infer-napi's errors), and the loaders turn it into a typed error whose `code`
// TypeScript switches on. No caller matches a native error by its text.

const CODED = /^\[([A-Z][A-Z0-9_]*)\] ([\s\S]*)$/;

/** The code and text of an addon error raised with a code; undefined for any other value. */
export function parseCodedError(err: unknown): { code: string; message: string } | undefined {
  if (!(err instanceof Error)) return undefined;
  const m = CODED.exec(err.message);
  return m ? { code: m[1]!, message: m[2]! } : undefined;
}

/**
 * Replaces every method of a native class's prototype with one that passes coded errors, thrown or
 * rejected, through `translate` (once, when the addon is loaded).
 */
export function translateErrorsOf(prototype: object, translate: (err: unknown) => unknown): void {
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
    if (name === 'constructor' || !descriptor?.writable || typeof descriptor.value !== 'function') continue;
    const method = descriptor.value as (...args: unknown[]) => unknown;
    const reject = (err: unknown): never => {
      throw translate(err);
    };
    Object.defineProperty(prototype, name, {
      ...descriptor,
      value: function (this: unknown, ...args: unknown[]): unknown {
        try {
          const result = method.apply(this, args);
          return result instanceof Promise ? result.catch(reject) : result;
        } catch (err) {
          throw translate(err);
        }
      },
    });
  }
}
