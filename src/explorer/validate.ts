// The JSON Schema subset the explorer checks requests against: type (string, integer, number,
// boolean, object, array), enum, pattern, minLength/maxLength, minimum/maximum, required,
// properties, additionalProperties: false, items, maxItems. Path and query values arrive as strings
// and are converted to the declared type first.
import type { ParamDef, Schema } from './schema.js';
import { BadRequestError } from './envelope.js';

function describe(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** Longest client text a message repeats whole. */
const ECHO_MAX = 66;

/** A client's text (a member name, an argument) as a message may repeat it: whole when short, else cut with its length. */
export function clip(text: string): string {
  return text.length <= ECHO_MAX ? text : `${text.slice(0, 16)}… (${text.length} characters)`;
}

/** The first problem of `value` against `schema`, or null. `where` names the value in the message. */
export function problem(schema: Schema, value: unknown, where: string): string | null {
  const type = schema.type as string | undefined;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return `${where} must be one of ${schema.enum.join(', ')}`;
  switch (type) {
    case 'string': {
      if (typeof value !== 'string') return `${where} must be a string, got ${describe(value)}`;
      if (typeof schema.minLength === 'number' && value.length < schema.minLength) return `${where} must be at least ${schema.minLength} characters`;
      if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) return `${where} must be at most ${schema.maxLength} characters`;
      if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value)) {
        return `${where} is malformed${typeof schema.description === 'string' ? ` (${schema.description})` : ''}`;
      }
      return null;
    }
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${where} must be a number, got ${describe(value)}`;
      if (type === 'integer' && !Number.isSafeInteger(value)) return `${where} must be an integer`;
      if (typeof schema.minimum === 'number' && value < schema.minimum) return `${where} must be at least ${schema.minimum}`;
      if (typeof schema.maximum === 'number' && value > schema.maximum) return `${where} must be at most ${schema.maximum}`;
      return null;
    }
    case 'boolean':
      return typeof value === 'boolean' ? null : `${where} must be a boolean, got ${describe(value)}`;
    case 'array': {
      if (!Array.isArray(value)) return `${where} must be an array, got ${describe(value)}`;
      if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return `${where} must have at most ${schema.maxItems} items`;
      if (typeof schema.minItems === 'number' && value.length < schema.minItems) return `${where} must have at least ${schema.minItems} items`;
      if (schema.items) {
        for (let i = 0; i < value.length; i++) {
          const p = problem(schema.items as Schema, value[i], `${where}[${i}]`);
          if (p) return p;
        }
      }
      return null;
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${where} must be an object, got ${describe(value)}`;
      const o = value as Record<string, unknown>;
      // Own properties only: `constructor`, `__proto__` or `toString` must not pass as declared or present.
      const own = (key: string) => (Object.hasOwn(o, key) ? o[key] : undefined);
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      for (const key of (schema.required ?? []) as string[]) if (own(key) === undefined) return `${where}.${key} is required`;
      if (schema.additionalProperties === false) {
        for (const key of Object.keys(o)) if (!Object.hasOwn(props, key)) return `${where}.${clip(key)} is not allowed`;
      }
      for (const [key, sub] of Object.entries(props)) {
        if (own(key) === undefined) continue;
        const p = problem(sub, o[key], `${where}.${key}`);
        if (p) return p;
      }
      return null;
    }
    default:
      return null;
  }
}

/** Longest path or query number read: 2^64 - 1 has 20 digits (a sign and a fraction may come with it). */
const MAX_NUMBER_CHARACTERS = 24;

/** Converts a path or query string to its declared type and checks it; absent optional params stay undefined. */
export function parseParam(def: ParamDef, raw: string | undefined): unknown {
  if (raw === undefined || raw === '') {
    if (def.required) throw new BadRequestError(`${def.in} parameter "${def.name}" is required`);
    return def.schema.default;
  }
  let value: unknown = raw;
  const type = def.schema.type;
  if (type === 'integer' || type === 'number') {
    // Refused by its length before it is read: no integer the API takes has more digits than 2^64.
    if (raw.length > MAX_NUMBER_CHARACTERS) {
      throw new BadRequestError(`${def.in} parameter "${def.name}" must be a number of at most ${MAX_NUMBER_CHARACTERS} characters`);
    }
    value = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
    if (Number.isNaN(value)) throw new BadRequestError(`${def.in} parameter "${def.name}" must be a number`);
  } else if (type === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw new BadRequestError(`${def.in} parameter "${def.name}" must be true or false`);
    value = raw === 'true';
  }
  const p = problem(def.schema, value, `${def.in} parameter "${def.name}"`);
  if (p) throw new BadRequestError(p);
  return value;
}

/** Checks a JSON body against its schema. */
export function checkBody(schema: Schema, body: unknown): void {
  const p = problem(schema, body, 'body');
  if (p) throw new BadRequestError(p);
}
